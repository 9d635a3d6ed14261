// Hopper's wgmma kernels on the generator's side: the descriptor facts, the candidate family and the model that
// ranks it (generator/analyze/wgmma_family.h), against block timings recorded on a GPU.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>
#include <vector>

#include "analyze/wgmma_family.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"

namespace {

using strata::test::source_path;

strata::Arch h100() { return strata::load_arch(source_path("archs/h100.yaml")); }
strata::Op hgemm() { return strata::load_op(source_path("ops/hgemm_tc.yaml")); }

}  // namespace

TEST_CASE("the wgmma family holds warpgroup tiles, the deepest ring that fits and one persistent block per SM",
          "[model][cuda]") {
  const strata::Arch arch = h100();
  const strata::SieveResult family = strata::wgmma_family(arch, hgemm());
  REQUIRE(family.levels.size() == 3);
  const auto& tiles = family.levels[0].candidates;
  // 64 x n for every n, n x 64 (C^T) for the n below 64.
  CHECK(tiles.size() == 5 + 2);
  for (const strata::Candidate& t : tiles) {
    CHECK(t.tile[2] == 64);
    CHECK((t.swapped ? t.tile[1] : t.tile[0]) == strata::kWgmmaRows);
    CHECK((!t.swapped || t.tile[0] < strata::kWgmmaRows));
  }
  const auto& blocks = family.levels[1].candidates;
  CHECK(blocks.size() == tiles.size() * 2);
  for (const strata::Candidate& b : blocks) {
    INFO(b.tile[0] << "x" << b.tile[1] << " with " << b.stages << " stages");
    const strata::Candidate& t = tiles.at(static_cast<size_t>(b.children.at(0)));
    const int64_t rows_a = b.tile[t.swapped ? 1 : 0];
    const int64_t rows_b = t.swapped ? t.tile[0] : t.tile[1];
    CHECK(b.blocks_per_sm == 1);
    CHECK(b.footprint_bytes == strata::wgmma_shared_bytes(rows_a, rows_b, 64, b.stages));
    CHECK(b.footprint_bytes <= arch.isa.shared_memory_per_block_bytes);
    CHECK((b.stages == arch.isa.wgmma.stages_max ||
           strata::wgmma_shared_bytes(rows_a, rows_b, 64, b.stages + 1) > arch.isa.shared_memory_per_block_bytes));
  }
  // The block of two 64 x 256 warpgroups: 4 stages of 48 KiB, as WgmmaTiles<2, 256, 4, false> lays them out.
  CHECK(strata::wgmma_shared_bytes(128, 256, 64, 4) == 197712);
  // No wgmma on a descriptor without it, nor for f32 inputs.
  const strata::Arch a100 = strata::load_arch(source_path("archs/a100.yaml"));
  CHECK(strata::wgmma_family(a100, hgemm()).levels[0].candidates.empty());
  CHECK(strata::wgmma_family(arch, strata::load_op(source_path("ops/sgemm.yaml"))).levels[0].candidates.empty());
}

TEST_CASE("the wgmma block level reproduces the block timings it was fitted to", "[model][cuda]") {
  const strata::Arch arch = h100();
  const strata::Op op = hgemm();
  const strata::SieveResult family = strata::wgmma_family(arch, op);
  const strata_model::Machine machine = strata::wgmma_machine(arch, op, family);
  const strata_gpu::Sm sm = strata::wgmma_sm(arch);
  REQUIRE(strata_gpu::enabled(sm));
  // tools/cuda_wgmma_variants.cu on an H200, 8192^3 (docs/perf/2026-11-27-hopper-wgmma/run1/variants.csv):
  // consumers, wgmma n, swapped, TFLOP/s.
  struct Measured {
    int consumers, n;
    bool swapped;
    double tflops;
  };
  const Measured runs[] = {{2, 256, false, 710}, {2, 128, false, 675}, {1, 256, false, 639},
                           {1, 128, false, 617}, {1, 64, false, 404},  {1, 16, true, 118},
                           {1, 32, true, 208},   {2, 32, true, 327},   {2, 64, true, 558}};
  const int64_t shape[3] = {8192, 8192, 8192};
  const double peak_sm = 989e12 * arch.isa.wgmma.efficiency / 132;
  double worst = 0;
  for (const Measured& r : runs) {
    strata_model::Tiling t{};
    const int64_t rows_a = 64 * r.consumers;
    t.tile[0][0] = r.swapped ? r.n : 64;
    t.tile[0][1] = r.swapped ? 64 : r.n;
    t.tile[1][0] = r.swapped ? r.n : rows_a;
    t.tile[1][1] = r.swapped ? rows_a : r.n;
    t.tile[0][2] = t.tile[1][2] = 64;
    for (int a = 0; a < 3; ++a) t.tile[2][a] = t.tile[1][a];
    t.l0_measured_s = 2.0 * 64 * r.n * 64 / peak_sm;
    const double seconds = strata::estimate_gpu(machine, sm, t, 1, shape).total_s;
    const double tflops = 2.0 * 8192 * 8192 * 8192 / seconds * 1e-12;
    INFO(r.consumers << " consumer(s) of 64 x " << r.n << (r.swapped ? " (C^T)" : "") << ": model " << tflops
                     << " TFLOP/s, measured " << r.tflops);
    // Within 15% of each timing (archs/h100.yaml's wgmma fit and L2 bandwidth).
    CHECK(tflops == Approx(r.tflops).epsilon(0.15));
    worst = std::max(worst, std::fabs(std::log(tflops / r.tflops)));
  }
  CHECK(worst < std::log(1.15));
}
