// strata: the command-line front end. A thin layer over the stage libraries (generator/<stage>/).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cli/commands.h"
#include "common/error.h"
#include "common/inert_text.h"
#include "strata_version.h"

namespace strata::cli {
namespace {
std::vector<std::string> g_args;

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The message for a first word that is no command (CLI11 would only say that a subcommand is required): it names
// the word and the nearest command, or lists them all when none is near. Empty when `word` is a command or an
// option.
std::string unknown_command(const CLI::App& app, const std::string& word) {
  if (word.empty() || word[0] == '-') return "";
  std::string nearest, all;
  size_t best = std::string::npos;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    const std::string& name = sub->get_name();
    if (name == word) return "";
    all += (all.empty() ? "" : ", ") + name;
    const size_t d = edit_distance(word, name);
    if (d < best) {
      best = d;
      nearest = name;
    }
  }
  // Near: at most a third of the word's letters wrong (a typo, a letter left out or two swapped).
  if (best <= std::max<size_t>(2, word.size() / 3))
    return fmt::format("unknown command '{}'; did you mean '{}'?", word, nearest);
  return fmt::format("unknown command '{}'; the commands are {}", word, all);
}
}  // namespace
void set_command_args(int argc, char** argv) { g_args.assign(argv, argv + argc); }
const std::vector<std::string>& command_args() { return g_args; }
}  // namespace strata::cli

int main(int argc, char** argv) {
  CLI::App app{"Strata: sample-free, architecture-guided kernel source generator", "strata"};
  app.set_version_flag("--version", std::string("strata ") + STRATA_VERSION);
  app.require_subcommand(1);
  const std::vector<strata::cli::Command> commands = {
      strata::cli::add_arch_command(app),        strata::cli::add_sieve_command(app),
      strata::cli::add_model_command(app),       strata::cli::add_check_command(app),
      strata::cli::add_generate_command(app),    strata::cli::add_plan_command(app),
      strata::cli::add_profile_kit_command(app), strata::cli::add_verify_command(app)};
  strata::cli::set_command_args(argc, argv);
  if (argc > 1) {
    const std::string unknown = strata::cli::unknown_command(app, argv[1]);
    if (!unknown.empty()) {
      std::fprintf(stderr, "strata: error: %s\n", unknown.c_str());
      std::fprintf(stderr, "Run 'strata --help' for usage.\n");
      return 2;
    }
  }
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
