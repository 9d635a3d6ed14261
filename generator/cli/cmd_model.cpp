// strata model --arch A --op O --shape M,N,K [--top N]: the best tilings for one shape under the performance
// model (templates/cost_model.h), with the modelled time broken down by level.
#include <fmt/format.h>

#include "analyze/model.h"
#include "analyze/wgmma_family.h"
#include "cli/commands.h"
#include "cli/spec_options.h"
#include "emit/cpu_package.h"
#include "emit/package.h"
#include "profile/records.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"

namespace strata::cli {
namespace {

std::string seconds(double s) {
  if (s >= 1e-3) return fmt::format("{:.3f} ms", s * 1e3);
  if (s >= 1e-6) return fmt::format("{:.3f} us", s * 1e6);
  return fmt::format("{:.1f} ns", s * 1e9);
}

// Tiling t's tile at `level` (the shape past the last level). Under the occupancy model the grid is every block of
// the call (see gpu_model.h), not the sieve's level-2 tile, which only names the chain.
std::array<int64_t, kNumAxes> level_tile(const SieveResult& sieve, const RankedTiling& t,
                                         const std::array<int64_t, kNumAxes>& shape, size_t level) {
  if (level >= sieve.levels.size()) return shape;
  std::array<int64_t, kNumAxes> tile = sieve.levels[level].candidates[static_cast<size_t>(t.chain[level])].tile;
  if (t.occupancy > 0 && level == 2)
    for (int a = 0; a < kNumAxes; ++a)
      tile[a] = std::max<int64_t>(1, strata_model::ceil_div(shape[a], t.tiling.tile[1][a])) * t.tiling.tile[1][a];
  return tile;
}

void print_breakdown(const Arch& arch, const SieveResult& sieve, const RankedTiling& t,
                     const std::array<int64_t, kNumAxes>& shape) {
  fmt::print("      {:<14} {:>14} {:>8} {:>6} {:>6} {:>11} {:>11} {:>11} {:>11}\n", "level", "tile", "n_temp",
             "n_par", "waves", "load", "compute", "store", "exec");
  const size_t levels = sieve.levels.size();
  for (size_t l = 0; l <= levels; ++l) {
    const auto& c = t.estimate.level[l];
    const std::string name = l < levels ? fmt::format("L{} {}", l, arch.levels[l].name) : "problem";
    const auto tile = level_tile(sieve, t, shape, l);
    fmt::print("      {:<14} {:>14} {:>8} {:>6} {:>6} {:>11} {:>11} {:>11} {:>11}\n", name, tile_string(tile),
               c.n_temporal, c.n_parallel, c.waves, seconds(c.load_s), seconds(c.compute_s), seconds(c.store_s),
               seconds(c.exec_s));
  }
}

}  // namespace

Command add_model_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("model", "Rank tilings for one shape with the performance model");
  auto paths = std::make_shared<SpecPaths>();
  auto shape_text = std::make_shared<std::string>();
  auto top = std::make_shared<size_t>(5);
  add_spec_options(*cmd, *paths);
  cmd->add_option("--shape", *shape_text, "problem shape M,N,K (the implicit-GEMM axes for convolutions)")
      ->required();
  cmd->add_option("--top", *top, "how many tilings to print")->check(CLI::Range(1, 1000));
  auto profile = std::make_shared<std::string>();
  cmd->add_option("--profile", *profile, "use level-0 profile records from FILE instead of modelling level 0");
  return {cmd, [paths, shape_text, top, profile]() {
            const auto shape = parse_shape(*shape_text);
            const Arch arch = load_arch(paths->arch);
            const Op op = load_op(paths->op);
            const std::vector<SieveResult> results = run_sieve(arch, op);
            for (const SieveResult& r : results) require_candidates(r, arch);
            const double flops =
                2.0 * static_cast<double>(shape[0]) * static_cast<double>(shape[1]) * static_cast<double>(shape[2]);
            fmt::print("model: arch {}, op {}, shape m={} n={} k={} ({:.3g} GFLOP)\n", arch.name, op.name, shape[0],
                       shape[1], shape[2], flops * 1e-9);
            ProfileRecords records;
            if (!profile->empty()) {
              records = load_records(*profile);
              check_records_match(records, arch, op.name, *profile);
              fmt::print("  level 0 from profile records {} ({} records)\n", *profile, records.records.size());
            } else {
              fmt::print("  level 0 is modelled (Eq. 3); pass --profile FILE to use measured records\n");
            }
            // The ranking of one unit's candidates, as the selection ranks them (gpu: the block level's SM).
            auto print_ranked = [&](const SieveResult& sieve, const strata_model::Machine& machine,
                                    const std::vector<double>& level0_seconds, const strata_gpu::Sm& gpu,
                                    const std::string& unit) {
              const auto ranked = rank_tilings(machine, sieve, shape, *top, level0_seconds, &gpu);
              fmt::print("  compute unit {}: {} candidates, launch {}\n", unit, sieve.total_candidates(),
                         seconds(machine.launch_s));
              for (size_t r = 0; r < ranked.size(); ++r) {
                const RankedTiling& t = ranked[r];
                std::string tiles;
                for (size_t l = 0; l < t.chain.size(); ++l)
                  tiles += (l ? " / " : "") + tile_string(level_tile(sieve, t, shape, l));
                const double gflops = t.estimate.total_s > 0 ? flops / t.estimate.total_s * 1e-9 : 0;
                const std::string blocks =
                    t.occupancy > 0 ? fmt::format(", {} block{} per SM", t.occupancy, t.occupancy == 1 ? "" : "s")
                                    : "";
                fmt::print("    #{} {}  predicted {} ({:.1f} GFLOP/s{})\n", r + 1, tiles, seconds(t.estimate.total_s),
                           gflops, blocks);
                print_breakdown(arch, sieve, t, shape);
              }
            };
            for (const auto& sieve : results) {
              const auto machine = make_machine(arch, op, sieve);
              // As generate does: records where given (CPU tiles), else the model (CUDA-core tiles; flops elsewhere).
              const std::vector<double> level0_seconds = !profile->empty() && sieve.unit == ComputeUnit::cpu_fma
                                                             ? level0_seconds_from(arch, op, sieve, records)
                                                             : gpu_level0_seconds(arch, op, sieve);
              // As the selection ranks them: Tensor Core blocks by occupancy and their k loop where the descriptor
              // models those (select_options_for), the rest by Eqs. 5-7.
              const strata_gpu::Sm gpu = select_options_for(arch, op, sieve, machine).gpu;
              print_ranked(sieve, machine, level0_seconds, gpu, to_string(sieve.unit));
            }
            // Hopper: the wgmma family, ranked by its own SM parameters as generate selects from it.
            if (wgmma_applies(arch, op)) {
              const SieveResult family = wgmma_family(arch, op);
              print_ranked(family, wgmma_machine(arch, op, family), wgmma_level0_seconds(arch, family),
                           wgmma_sm(arch), "tensor_core (wgmma)");
            }
            return 0;
          }};
}

}  // namespace strata::cli
