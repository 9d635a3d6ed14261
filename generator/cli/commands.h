// The strata subcommands. Each registers its options on the CLI11 app and runs when selected; main() turns
// strata::Error into "strata: error: ..." and a non-zero exit.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace strata::cli {

// A registered subcommand and the callback that runs it (after parsing), returning the exit code.
struct Command {
  CLI::App* app;
  std::function<int()> run;
};

Command add_arch_command(CLI::App& app);
Command add_sieve_command(CLI::App& app);
Command add_model_command(CLI::App& app);
Command add_check_command(CLI::App& app);
Command add_generate_command(CLI::App& app);
Command add_plan_command(CLI::App& app);
Command add_profile_kit_command(CLI::App& app);
Command add_verify_command(CLI::App& app);

// The process's command line, as main() received it (for provenance headers).
void set_command_args(int argc, char** argv);
const std::vector<std::string>& command_args();

}  // namespace strata::cli
