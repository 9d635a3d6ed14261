// strata: the command-line front end. A thin layer over the stage libraries (generator/<stage>/).
#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <vector>

#include "cli/commands.h"
#include "common/error.h"
#include "common/inert_text.h"
#include "strata_version.h"

namespace strata::cli {
namespace {
std::vector<std::string> g_args;
}  // namespace
void set_command_args(int argc, char** argv) { g_args.assign(argv, argv + argc); }
const std::vector<std::string>& command_args() { return g_args; }
}  // namespace strata::cli

int main(int argc, char** argv) {
  CLI::App app{"Strata: sample-free, architecture-guided kernel source generator", "strata"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION);
  app.require_subcommand(1);
  const std::vector<strata::cli::Command> commands = {
      strata::cli::add_arch_command(app),     strata::cli::add_sieve_command(app),
      strata::cli::add_model_command(app),    strata::cli::add_check_command(app),
      strata::cli::add_generate_command(app), strata::cli::add_profile_kit_command(app),
      strata::cli::add_verify_command(app)};
  strata::cli::set_command_args(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "strata: error: %s (see 'strata --help')\n", strata::printable_line(e.what()).c_str());
    return 2;
  }
  try {
    for (const auto& command : commands)
      if (command.app->parsed()) return command.run();
    return 2;
  } catch (const strata::Error& e) {
    std::fprintf(stderr, "strata: error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    // Not expected: every input problem is a strata::Error. Still a message, never an abort.
    std::fprintf(stderr, "strata: error: internal error: %s\n", strata::printable_line(e.what()).c_str());
    return 70;
  }
}
