// The performance model (templates/cost_model.h) against hand-computed values, and its monotonicity.
#include <array>
#include <catch2/catch.hpp>
#include <limits>
#include <utility>
#include <vector>

#include "analyze/model.h"
#include "cost_model.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "spec_fixtures.h"
#include "test_util.h"

using namespace strata_model;

namespace {

// Two levels plus the problem: a register tile in "registers" (1 ns, 1 GB/s) and a block over 2 units
// (10 ns, 1 GB/s), problem from DRAM (100 ns, 1 GB/s). 1 GFLOP/s per unit; 4-byte elements; 1 us launch.
Machine toy_machine() {
  Machine m{};
  m.num_levels = 2;
  m.level[0] = {1e-9, 1e9, 1, {kTemporal, kTemporal, kReduction}, false};
  m.level[1] = {10e-9, 1e9, 2, {kParallel, kParallel, kReduction}, false};
  m.problem = {100e-9, 1e9, 1, {kTemporal, kTemporal, kReduction}, false};
  m.unit_flops = 1e9;
  m.fma_latency_s = 0;
  m.launch_s = 1e-6;
  m.a_bytes = m.b_bytes = m.c_bytes = 4;
  return m;
}

Tiling toy_tiling() {
  Tiling t{};
  const int64_t l0[3] = {2, 2, 1}, l1[3] = {4, 2, 4};
  for (int a = 0; a < 3; ++a) {
    t.tile[0][a] = l0[a];
    t.tile[1][a] = l1[a];
  }
  return t;
}

}  // namespace

TEST_CASE("model matches hand-computed values", "[model]") {
  const Machine m = toy_machine();
  const Tiling t = toy_tiling();
  const int64_t shape[3] = {8, 2, 8};
  const Estimate e = estimate(m, t, shape);
  // L0 tile 2x2x1: FLOPs 8 -> 8 ns; load (2*1 + 1*2)*4 = 16 B -> 1 + 16 = 17 ns; store 2*2*4 = 16 B -> 17 ns.
  CHECK(e.level[0].compute_s == Approx(8e-9));
  CHECK(e.level[0].load_s == Approx(17e-9));
  CHECK(e.level[0].exec_s == Approx(42e-9));
  // L1 tile 4x2x4 over 2x2x1: m parallel 2, n parallel 1, k temporal 4 -> N_temp 4, N_par 2, one wave.
  // Register sub-tiles keep partial sums in registers: a step moves 16 B (16 ns). load 10 + 16 = 26 ns,
  // compute 42 ns; a register tile drains to C where C lives, reading and writing its 16 B at the problem
  // level's bandwidth: 2 * 16 B / 1 GB/s = 32 ns. 26 + 3 * max(16, 42) + 42 + 32 = 226 ns.
  CHECK(e.level[1].n_temporal == 4);
  CHECK(e.level[1].n_parallel == 2);
  CHECK(e.level[1].waves == 1);
  CHECK(e.level[1].exec_s == Approx(226e-9));
  // Problem 8x2x8 over 4x2x4: 2 * 1 * 2 = 4 temporal steps. Each step moves the inputs (4*4 + 4*2)*4 = 96 B plus,
  // since the 4x2x4 sub-tile keeps partial sums in memory and k splits in 2, 2 * 32 B * 1/2 = 32 B: 128 ns.
  // load = 100 + 128 = 228 ns (latency in the fill only); store 100 + 32 = 132 ns;
  // 228 + 3 * max(128, 226) + 226 + 132 = 1264 ns; plus 1 us launch.
  CHECK(e.level[2].n_temporal == 4);
  CHECK(e.level[2].load_s == Approx(228e-9));
  CHECK(e.level[2].exec_s == Approx(1264e-9));
  CHECK(e.total_s == Approx(2264e-9));
  // The shape covers every tile, so clamping changes nothing.
  CHECK(estimate_padded(m, t, shape).total_s == Approx(e.total_s));
}

TEST_CASE("clamped tiles cost what the edge needs, padded ones the whole tile", "[model]") {
  const Machine m = toy_machine();
  Tiling t = toy_tiling();
  t.l0_measured_s = 10e-9;
  const int64_t shape[3] = {1, 1, 1};
  const Estimate clamped = estimate(m, t, shape), padded = estimate_padded(m, t, shape);
  CHECK(clamped.total_s < padded.total_s);
  // 1x1x1 of a profiled 2x2x1 register tile: a quarter of its time.
  CHECK(clamped.level[0].exec_s == Approx(2.5e-9));
  CHECK(padded.level[0].exec_s == Approx(10e-9));
  // But never below the FMA latency chain of its one k step.
  Machine slow_fma = m;
  slow_fma.fma_latency_s = 4e-9;
  CHECK(estimate(slow_fma, t, shape).level[0].exec_s == Approx(4e-9));
}

TEST_CASE("serial loads do not overlap compute", "[model]") {
  Machine m = toy_machine();
  m.problem.serial_load = true;
  const int64_t shape[3] = {8, 2, 8};
  // As in the hand-computed case, but each of the 3 steady iterations costs 128 + 226 ns instead of 226 ns.
  CHECK(estimate(m, toy_tiling(), shape).level[2].exec_s == Approx((228 + 3 * 354 + 226 + 132) * 1e-9));
}

TEST_CASE("waves are a ceiling, not the paper's floor", "[model]") {
  Machine m = toy_machine();
  m.level[1].parallel_units = 3;  // 2 parallel sub-tiles on 3 units: one wave, not zero
  const int64_t shape[3] = {4, 2, 4};
  const Estimate e = estimate(m, toy_tiling(), shape);
  CHECK(e.level[1].waves == 1);
  CHECK(e.total_s > m.launch_s);
}

TEST_CASE("empty problems cost the launch only", "[model]") {
  const Machine m = toy_machine();
  for (const auto& shape : {std::array<int64_t, 3>{0, 5, 5}, {5, 0, 5}, {5, 5, 0}})
    CHECK(estimate(m, toy_tiling(), shape.data()).total_s == Approx(m.launch_s));
}

TEST_CASE("profiled level 0 replaces the modelled time", "[model]") {
  Tiling t = toy_tiling();
  t.l0_measured_s = 5e-9;
  const int64_t shape[3] = {4, 2, 4};
  const Estimate e = estimate(toy_machine(), t, shape);
  CHECK(e.level[0].exec_s == Approx(5e-9));
  CHECK(e.level[1].compute_s == Approx(5e-9));
}

TEST_CASE("a profiled level 1 replaces the modelled level 1 and carries its own data movement", "[model]") {
  const Machine m = toy_machine();
  Tiling t = toy_tiling();
  t.l1 = {10e-9, 20e-9, 70e-9};  // the full 4x2x4 block: pack A 10 ns, pack B 20 ns, tiles 70 ns
  // 8x2x8: four full blocks, all temporal at the problem level. The measured block already packed its inputs and
  // wrote C, so the problem level adds nothing but its latency once: 100 + 3 * 100 + 100 = 500 ns.
  const int64_t full[3] = {8, 2, 8};
  const Estimate e = estimate(m, t, full);
  CHECK(e.level[1].exec_s == Approx(100e-9));
  CHECK(e.level[2].n_temporal == 4);
  CHECK(e.level[2].store_s == 0);
  CHECK(e.level[2].exec_s == Approx(500e-9));
  CHECK(e.total_s == Approx(1.5e-6));
  // A block clamped to 2x2x4: packing A scales with m x k (half), B with k x n (all), the tiles with m x n x k.
  const int64_t half[3] = {2, 2, 4};
  CHECK(estimate(m, t, half).level[1].exec_s == Approx((5 + 20 + 35) * 1e-9));
  CHECK(estimate(m, t, half).total_s == Approx(1e-6 + 160e-9));
  // Padded, Helix's model as printed, charges the whole block.
  CHECK(estimate_padded(m, t, half).total_s == Approx(1e-6 + 200e-9));
  // Never below the FMA latency chains of its register tiles: one 2x2 tile, 4 dependent k steps of 10 ns.
  Machine slow_fma = m;
  slow_fma.fma_latency_s = 10e-9;
  CHECK(estimate(slow_fma, t, half).level[1].exec_s == Approx((5 + 20 + 40) * 1e-9));
  // A packed A block serves every block to its right: 4x6x4 is three blocks along N sharing one A block.
  const int64_t wide[3] = {4, 6, 4};
  const Estimate shared = estimate(m, t, wide);
  CHECK(shared.level[1].exec_s == Approx((10.0 / 3 + 20 + 70) * 1e-9));
  CHECK(shared.level[2].exec_s == Approx((100 + 3 * (10.0 / 3 + 20 + 70)) * 1e-9));
}

TEST_CASE("a partial tile costs its share of a full one, in register tiles", "[model]") {
  Machine m = toy_machine();
  // A 2x2x1 register tile's k step takes 8 ns at the peak; an FMA's latency of 6.4 ns makes a partial register tile
  // cost at least 0.8 of a full one.
  m.fma_latency_s = 6.4e-9;
  Tiling t = toy_tiling();
  t.l1 = {10e-9, 20e-9, 70e-9};  // the full 4x2x4 block of 2x2x1 register tiles, as above
  // 6x2x4: a full block and one of 2 rows, half of one: the problem level's 1.5 iterations cost
  // 100 + 0.5 * 100 + 100 = 250 ns, where padded blocks would cost 300.
  const int64_t six[3] = {6, 2, 4};
  CHECK(estimate(m, t, six).level[2].exec_s == Approx(250e-9));
  CHECK(estimate_padded(m, t, six).level[2].exec_s == Approx(300e-9));
  // 5x2x4: the second block's one row is a partial register tile at 0.8 of a full one: 1.4 iterations.
  const int64_t five[3] = {5, 2, 4};
  CHECK(estimate(m, t, five).level[2].exec_s == Approx(240e-9));
  // A block clamped to 3 rows runs a full register tile and a partial one: its tiles cost 1.8 of the block's 2,
  // packing A its 3 rows of 4.
  const int64_t three[3] = {3, 2, 4};
  CHECK(estimate(m, t, three).level[1].exec_s == Approx((7.5 + 20 + 63) * 1e-9));
}

TEST_CASE("a partial sub-tile lengthens the last wave only where it runs alone in it", "[model]") {
  LevelParams p{0, 1e9, 2, {kParallel, kParallel, kReduction}, false};
  const Machine m = toy_machine();
  const EdgeRule rows{{1, 1, 1}, 0.0};
  const int64_t sub[3] = {4, 2, 4};
  // 9 rows over 4-row sub-tiles on 2 units: 4, 4 and 1 rows; the 1-row one runs alone in the second wave.
  const int64_t nine[3] = {9, 2, 4}, thirteen[3] = {13, 2, 4};
  const LevelCost alone = level_cost(m, p, nine, sub, 1e-6, false, true, &rows);
  CHECK(alone.waves == 2);
  CHECK(alone.exec_s == Approx(1.25 * alone.temporal_s));
  // 13 rows: 4, 4, 4 and 1; the second wave runs a full sub-tile beside the partial one.
  const LevelCost beside = level_cost(m, p, thirteen, sub, 1e-6, false, true, &rows);
  CHECK(beside.exec_s == Approx(2.0 * beside.temporal_s));
  // One unit runs them one after another: 3.25 sub-tiles.
  p.parallel_units = 1;
  const LevelCost one = level_cost(m, p, thirteen, sub, 1e-6, false, true, &rows);
  CHECK(one.exec_s == Approx(3.25 * one.temporal_s));
  // Without an edge rule, Eq. 6 as the padded model reads it: whole waves.
  const LevelCost whole = level_cost(m, p, thirteen, sub, 1e-6, false, true);
  CHECK(whole.exec_s == Approx(4.0 * whole.temporal_s));
}

TEST_CASE("more K is never cheaper and more parallel units are never slower", "[model]") {
  const strata::Arch arch = strata::load_arch(strata::test::source_path("archs/zen4-avx512.yaml"));
  const strata::Op op = strata::load_op(strata::test::source_path("ops/sgemm.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  const Machine base = strata::make_machine(arch, op, sieve);
  const auto best = strata::rank_tilings(base, sieve, {256, 256, 256}, 3);
  REQUIRE(best.size() == 3);
  for (const auto& ranked : best) {
    double previous = 0;
    for (int64_t k = 0; k <= 4096; k += 37) {
      const int64_t shape[3] = {300, 200, k};
      const double t = estimate(base, ranked.tiling, shape).total_s;
      CHECK(t >= previous);
      previous = t;
    }
    for (int l = 0; l < base.num_levels; ++l) {
      Machine more = base;
      more.level[l].parallel_units *= 2;
      for (int64_t mn : {1, 17, 64, 333, 1000, 4099}) {
        const int64_t shape[3] = {mn, mn, 512};
        CHECK(estimate(more, ranked.tiling, shape).total_s <= estimate(base, ranked.tiling, shape).total_s);
      }
    }
  }
}

TEST_CASE("ranking returns the cheapest tilings in order", "[model]") {
  const strata::Arch arch = strata::load_arch(strata::test::source_path("archs/x86-avx2.yaml"));
  const strata::Op op = strata::load_op(strata::test::source_path("ops/sgemm.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  const Machine m = strata::make_machine(arch, op, sieve);
  const std::array<int64_t, 3> shape{512, 768, 768};
  const auto ranked = strata::rank_tilings(m, sieve, shape, 10);
  REQUIRE(ranked.size() == 10);
  for (size_t i = 1; i < ranked.size(); ++i) CHECK(ranked[i - 1].estimate.total_s <= ranked[i].estimate.total_s);
  // The dynamic programme's score must agree with evaluating the chosen chain directly.
  for (const auto& r : ranked) CHECK(estimate_padded(m, r.tiling, shape.data()).total_s == Approx(r.score_s));
  // And no modelled time beats the machine's peak.
  const double flops = 2.0 * 512 * 768 * 768;
  CHECK(flops / ranked[0].estimate.total_s <= arch.compute[0].peak_gflops * 1e9 * 1.0001);
}

TEST_CASE("the dynamic programme finds the same optimum as brute force", "[model]") {
  strata::test::ScratchDir dir;
  const strata::Arch arch = strata::load_arch(dir.write("a.yaml", strata::test::kValidCpuArch));
  const strata::Op op = strata::load_op(strata::test::source_path("ops/sgemm.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  const Machine m = strata::make_machine(arch, op, sieve);
  for (const auto& shape : {std::array<int64_t, 3>{1, 1, 1}, {37, 129, 64}, {1000, 1000, 1000}, {3, 4096, 700}}) {
    double brute = std::numeric_limits<double>::infinity();
    const auto& l2 = sieve.levels[2].candidates;
    for (const auto& c2 : l2)
      for (int i1 : c2.children)
        for (int i0 : sieve.levels[1].candidates[static_cast<size_t>(i1)].children) {
          Tiling t{};
          const auto& c1 = sieve.levels[1].candidates[static_cast<size_t>(i1)];
          const auto& c0 = sieve.levels[0].candidates[static_cast<size_t>(i0)];
          for (int a = 0; a < 3; ++a) {
            t.tile[0][a] = c0.tile[static_cast<size_t>(a)];
            t.tile[1][a] = c1.tile[static_cast<size_t>(a)];
            t.tile[2][a] = c2.tile[static_cast<size_t>(a)];
          }
          brute = std::min(brute, estimate_padded(m, t, shape.data()).total_s);
        }
    const auto best = strata::best_sub_tilings(m, sieve);
    double dp = std::numeric_limits<double>::infinity();
    for (size_t i = 0; i < l2.size(); ++i)
      dp = std::min(
          dp,
          m.launch_s + level_cost(m, m.problem, shape.data(), l2[i].tile.data(), best.exec_s[2][i], false).exec_s);
    CHECK(dp == Approx(brute));
  }
}

TEST_CASE("estimate_units gives estimate()'s total for each unit count", "[model]") {
  const strata::Arch arch = strata::load_arch(strata::test::source_path("archs/zen4-avx512.yaml"));
  const strata::Op op = strata::load_op(strata::test::source_path("ops/sgemm.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  const Machine zen4 = strata::make_machine(arch, op, sieve);
  const auto best = strata::rank_tilings(zen4, sieve, {256, 256, 256}, 2);
  REQUIRE(best.size() == 2);
  Tiling profiled = toy_tiling();
  profiled.l0_measured_s = 5e-9;
  profiled.l1 = {10e-9, 20e-9, 70e-9};
  const std::pair<Machine, Tiling> cases[] = {
      {zen4, best[0].tiling}, {zen4, best[1].tiling}, {toy_machine(), toy_tiling()}, {toy_machine(), profiled}};
  const int64_t units[] = {1, 2, 3, 4, 7, 64};
  for (const auto& [machine, tiling] : cases) {
    for (int level = 0; level < machine.num_levels; ++level) {
      for (const auto& shape : std::vector<std::array<int64_t, 3>>{
               {0, 5, 5}, {1, 1, 1}, {3, 7, 2}, {8, 2, 8}, {17, 1000, 3}, {300, 200, 512}, {4099, 4099, 64}}) {
        double totals[6];
        estimate_units(machine, tiling, shape.data(), level, units, 6, totals);
        for (int i = 0; i < 6; ++i) {
          Machine varied = machine;
          varied.level[level].parallel_units = units[i];
          CAPTURE(level, shape[0], shape[1], shape[2], units[i]);
          CHECK(totals[i] == estimate(varied, tiling, shape.data()).total_s);  // exactly: the same arithmetic
        }
      }
    }
  }
}

namespace {

// The level-1 candidate with this block tile and stages whose child is the warp tile wm x wn (the deepest such), as
// {block, warp} indices; {-1, -1} when the sieve has none.
std::pair<int, int> find_block(const strata::SieveResult& sieve, int bm, int bn, int bk, int wm, int wn, int stages) {
  const auto& blocks = sieve.levels[1].candidates;
  const auto& warps = sieve.levels[0].candidates;
  std::pair<int, int> found{-1, -1};
  for (size_t i = 0; i < blocks.size(); ++i) {
    const auto& b = blocks[i];
    if (b.tile[0] != bm || b.tile[1] != bn || b.tile[2] != bk || b.stages != stages) continue;
    for (int w : b.children) {
      const auto& c = warps[static_cast<size_t>(w)];
      if (c.tile[0] == wm && c.tile[1] == wn && c.mma_index == 0 &&
          (found.second < 0 || c.tile[2] > warps[static_cast<size_t>(found.second)].tile[2]))
        found = {static_cast<int>(i), w};
    }
  }
  return found;
}

}  // namespace

TEST_CASE("the GPU block level counts blocks per SM and ranks Tensor Core blocks as the H100 ran them", "[model]") {
  const strata::Arch arch = strata::load_arch(strata::test::source_path("archs/h100.yaml"));
  const strata::Op op = strata::load_op(strata::test::source_path("ops/hgemm_tc.yaml"));
  const strata::SieveResult sieve = strata::run_sieve(arch, op).at(0);
  REQUIRE(sieve.unit == strata::ComputeUnit::tensor_core);
  const Machine machine = strata::make_machine(arch, op, sieve);
  const strata_gpu::Sm sm = strata::gpu_sm(arch);
  REQUIRE(strata_gpu::enabled(sm));
  const std::vector<double> l0 = strata::gpu_level0_seconds(arch, op, sieve);
  // blocks_per_sm: the tightest of registers, shared memory, threads and block slots.
  CHECK(strata_gpu::blocks_per_sm(sm, 128, 208, 110592) == 2);  // shared memory: 2 x 111616 B of 233472
  CHECK(strata_gpu::blocks_per_sm(sm, 128, 142, 202752) == 1);  // shared memory
  CHECK(strata_gpu::blocks_per_sm(sm, 256, 208, 61440) == 1);   // registers: 8 warps x 6656
  CHECK(strata_gpu::blocks_per_sm(sm, 1024, 32, 1024) == 2);    // threads
  CHECK(strata_gpu::blocks_per_sm(sm, 32, 32, 1024) == 32);     // block slots
  CHECK(strata_gpu::blocks_per_sm(sm, 128, 255, 300000) == 0);  // does not fit
  // tools/cuda_tile_variants.cu on an H100, 4096^3 (TFLOP/s): 64x128x256 of 32x64 warp tiles, 2 stages: 133;
  // 128x128x32 of 64x64, 3 stages: 197; 128x128x64 of 64x64, 3 stages: 233. The model must order them so.
  const int64_t shape[3] = {4096, 4096, 4096};
  auto seconds = [&](int bm, int bn, int bk, int wm, int wn, int stages) {
    const auto [b, w] = find_block(sieve, bm, bn, bk, wm, wn, stages);
    REQUIRE(b >= 0);
    const int64_t occupancy = strata::gpu_occupancy(sm, sieve, b, w);
    REQUIRE(occupancy >= 1);
    double best = std::numeric_limits<double>::infinity();
    for (int fm : {1, 2, 4, 8, 16})
      for (int fn : {1, 2, 4, 8, 16}) {
        Tiling t{};
        for (int a = 0; a < 3; ++a) {
          t.tile[0][a] = sieve.levels[0].candidates[static_cast<size_t>(w)].tile[static_cast<size_t>(a)];
          t.tile[1][a] = sieve.levels[1].candidates[static_cast<size_t>(b)].tile[static_cast<size_t>(a)];
        }
        t.tile[2][0] = bm * fm;
        t.tile[2][1] = bn * fn;
        t.tile[2][2] = 4096;
        t.l0_measured_s = l0[static_cast<size_t>(w)];
        best = std::min(best, strata::estimate_gpu(machine, sm, t, occupancy, shape).total_s);
      }
    return best;
  };
  const double one_warp_per_sub_partition = seconds(64, 128, 256, 32, 64, 2);
  const double shallow = seconds(128, 128, 32, 64, 64, 3);
  const double deep = seconds(128, 128, 64, 64, 64, 3);
  CHECK(deep < shallow);
  CHECK(shallow < one_warp_per_sub_partition);
  // Within 15% of what ran (the fit of archs/h100.yaml's block_sync_cycles and warp_step_latency_cycles).
  const double flops = 2.0 * 4096 * 4096 * 4096;
  CHECK(flops / deep * 1e-12 == Approx(233).epsilon(0.15));
  CHECK(flops / one_warp_per_sub_partition * 1e-12 == Approx(133).epsilon(0.15));
}
