// strata sieve --arch A --op O [--explain]: candidate counts per level (Helix Algorithm 2), and with
// --explain the constraint that removed each group of candidates.
#include <fmt/format.h>

#include <chrono>

#include "cli/commands.h"
#include "cli/spec_options.h"
#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"

namespace strata::cli {
namespace {

void print_explain(const SieveLevel& level) {
  for (const auto& key : level.constraint_order) {
    const int64_t n = level.pruned.at(key);
    if (n == 0) continue;
    std::string examples;
    auto it = level.examples.find(key);
    if (it != level.examples.end())
      for (const auto& e : it->second) examples += (examples.empty() ? "" : ", ") + e;
    fmt::print("      - {:>9} removed by {}: {} (e.g. {})\n", n, key, describe_constraint(key), examples);
  }
}

}  // namespace

Command add_sieve_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("sieve", "Run the hierarchical candidate sieve and print counts per level");
  auto paths = std::make_shared<SpecPaths>();
  auto explain = std::make_shared<bool>(false);
  add_spec_options(*cmd, *paths);
  cmd->add_flag("--explain", *explain, "say which constraint removed which candidates, and how many");
  return {cmd, [paths, explain]() {
            const Arch arch = load_arch(paths->arch);
            const Op op = load_op(paths->op);
            const auto start = std::chrono::steady_clock::now();
            const std::vector<SieveResult> results = run_sieve(arch, op);
            const double ms =
                std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
            fmt::print("sieve: arch {} ({}), op {} ({})\n", arch.name, paths->arch, op.name, paths->op);
            for (const auto& r : results) {
              fmt::print("  compute unit {} ({} inputs), peak {} GFLOP/s\n", to_string(r.unit), to_string(op.a_type),
                         r.peak_gflops);
              fmt::print("    {:<4} {:<16} {:>11} {:>11} {:>11}\n", "lvl", "name", "considered", "candidates",
                         "map edges");
              for (size_t l = 0; l < r.levels.size(); ++l) {
                const SieveLevel& level = r.levels[l];
                fmt::print("    L{:<3} {:<16} {:>11} {:>11} {:>11}\n", l, level.name, level.considered,
                           level.candidates.size(), l == 0 ? std::string("-") : std::to_string(level.map_edges));
                if (*explain) print_explain(level);
              }
              fmt::print("    total candidates: {}\n", r.total_candidates());
            }
            fmt::print("  sieve time: {:.1f} ms\n", ms);
            return 0;
          }};
}

}  // namespace strata::cli
