// Selection: a compact, deterministic kernel set whose tilings are valid chains of the sieve.
#include <catch2/catch.hpp>

#include "emit/cpu_package.h"
#include "emit/package.h"
#include "render/ukernel_dict.h"
#include "select/select.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

TEST_CASE("the shape grid is powers of two and 1.5 times powers of two", "[select]") {
  CHECK(shape_grid_axis(16) == std::vector<int64_t>{1, 2, 3, 4, 6, 8, 12, 16});
  CHECK(shape_grid_axis(1) == std::vector<int64_t>{1});
}

TEST_CASE("selection is compact, deterministic and made of valid chains", "[select]") {
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  const auto machine = make_machine(arch, op, sieve);
  const auto records = load_records(source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml"));
  const auto level0 = level0_seconds_from(arch, op, sieve, records);
  SelectOptions options;
  options.max_kernels = 5;
  const Selection a = select_kernels(sieve, machine, level0, options);
  const Selection b = select_kernels(sieve, machine, level0, options);
  REQUIRE(!a.kernels.empty());
  CHECK(a.kernels.size() <= 5);
  REQUIRE(a.kernels.size() == b.kernels.size());
  int64_t won = 0;
  for (size_t i = 0; i < a.kernels.size(); ++i) {
    const SelectedKernel& k = a.kernels[i];
    CHECK(k.chain == b.kernels[i].chain);
    won += k.shapes_won;
    REQUIRE(k.chain.size() == sieve.levels.size());
    // Each level's candidate is a cross-layer child of the next, and the tiling holds their tiles.
    for (size_t l = 1; l < k.chain.size(); ++l) {
      const auto& children = sieve.levels[l].candidates[static_cast<size_t>(k.chain[l])].children;
      CHECK(std::count(children.begin(), children.end(), k.chain[l - 1]) == 1);
    }
    for (size_t l = 0; l < k.chain.size(); ++l)
      for (int ax = 0; ax < kNumAxes; ++ax)
        CHECK(k.tiling.tile[l][ax] ==
              sieve.levels[l].candidates[static_cast<size_t>(k.chain[l])].tile[static_cast<size_t>(ax)]);
    // Level 0 comes from the pool, and its profiled time is the one the model uses.
    CHECK(std::count(a.level0_pool.begin(), a.level0_pool.end(), k.chain[0]) == 1);
    CHECK(k.tiling.l0_measured_s == level0[static_cast<size_t>(k.chain[0])]);
  }
  CHECK(won == a.grid_shapes);  // every grid shape is credited to exactly one kernel
  CHECK(a.geomean_vs_unrestricted >= 1.0);
}

TEST_CASE("a CPU package keeps blocking variants of its register tiles at a tenth of the gain", "[select]") {
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  const auto machine = make_machine(arch, op, sieve);
  const auto records = load_records(source_path("emitted_examples/strata_sgemm_x86_avx2/profile_records.yaml"));
  const auto level0 = level0_seconds_from(arch, op, sieve, records);
  SelectOptions options = select_options_for(arch, op, sieve, machine);
  // A gain no new register tile reaches after the first (with these records): what joins it are blocking variants
  // of the tile in the set, each worth a tenth of that.
  options.min_gain = 0.05;
  options.variant_gain = 0.005;
  const Selection s = select_kernels(sieve, machine, level0, options);
  REQUIRE(s.kernels.size() >= 2);
  for (const SelectedKernel& k : s.kernels) CHECK(k.chain[0] == s.kernels[0].chain[0]);
  // Without variants, or above any variant's gain, the first kernel stays alone.
  options.variant_gain = 0;
  CHECK(select_kernels(sieve, machine, level0, options).kernels.size() == 1);
  options.variant_gain = 1.0;
  CHECK(select_kernels(sieve, machine, level0, options).kernels.size() == 1);
}

TEST_CASE("the level-0 pool keeps partners for skinny shapes", "[select]") {
  const Arch arch = load_arch(source_path("archs/zen4-avx512.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  const auto machine = make_machine(arch, op, sieve);
  SelectOptions options;
  options.level0_pool = 3;
  const Selection s = select_kernels(sieve, machine, {}, options);
  bool one_row = false;
  for (int i : s.level0_pool) one_row = one_row || sieve.levels[0].candidates[static_cast<size_t>(i)].tile[0] == 1;
  CHECK(one_row);
  CHECK(s.level0_pool.size() > 3);
}

TEST_CASE("tiles the profile cannot tell apart are ranked by loads per FMA, faster ones by speed", "[select]") {
  const Arch arch = load_arch(source_path("archs/zen4-avx512.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  const auto machine = make_machine(arch, op, sieve);
  const auto& cands = sieve.levels[0].candidates;
  auto index_of = [&](int64_t mr, int64_t nr, int64_t ku) {
    for (size_t i = 0; i < cands.size(); ++i)
      if (cands[i].tile == std::array<int64_t, kNumAxes>{mr, nr, ku}) return i;
    FAIL("no candidate " << mr << "x" << nr << " k" << ku);
    return size_t{0};
  };
  const size_t narrow = index_of(15, 16, 4), wide = index_of(8, 48, 4);
  // One broadcast and one B vector per FMA of 15x16 (16 loads / 15 FMAs); 8x48: 11 loads / 24 FMAs.
  CHECK(cpu_loads_per_fma(arch, op, cands[narrow]) == Approx(16.0 / 15.0));
  CHECK(cpu_loads_per_fma(arch, op, cands[wide]) == Approx(11.0 / 24.0));

  // Every tile measured slow except these two; 15x16 measured 0.5% faster than 8x48.
  auto seconds_at = [&](size_t i, double gflops) {
    return 2.0 * cands[i].tile[0] * cands[i].tile[1] * cands[i].tile[2] / (gflops * 1e9);
  };
  std::vector<double> level0(cands.size());
  for (size_t i = 0; i < cands.size(); ++i) level0[i] = seconds_at(i, 50.0);
  level0[narrow] = seconds_at(narrow, 117.3);
  level0[wide] = seconds_at(wide, 116.7);
  SelectOptions options;
  options.level0_pool = 1;
  for (const Candidate& c : cands) options.level0_tie_break.push_back(cpu_loads_per_fma(arch, op, c));
  CHECK(level0_pool(sieve, machine, level0, options).front() == static_cast<int>(wide));
  // Outside the tolerance the faster tile ranks first, whatever its loads.
  level0[wide] = seconds_at(wide, 114.0);
  CHECK(level0_pool(sieve, machine, level0, options).front() == static_cast<int>(narrow));
  // Without a tie-break, throughput alone.
  level0[wide] = seconds_at(wide, 116.7);
  options.level0_tie_break.clear();
  CHECK(level0_pool(sieve, machine, level0, options).front() == static_cast<int>(narrow));
}

TEST_CASE("the one-vector partner is short enough to run in place whole", "[select]") {
  const Arch arch = load_arch(source_path("archs/zen4-avx512.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  const auto machine = make_machine(arch, op, sieve);
  // With loads per FMA as the tie-break, the tallest one-vector tile (30x16) would rank first among those.
  SelectOptions options = select_options_for(arch, op, sieve, machine);
  REQUIRE(options.narrow_partner_rows == direct_tile_rows(arch.isa.vector));
  options.level0_pool = 1;
  const std::vector<int> pool = level0_pool(sieve, machine, {}, options);
  bool short_narrow = false;
  for (int i : pool) {
    const auto& t = sieve.levels[0].candidates[static_cast<size_t>(i)].tile;
    short_narrow = short_narrow || (t[1] == 16 && t[0] <= options.narrow_partner_rows);
  }
  CHECK(short_narrow);
  options.narrow_partner_rows = 0;
  bool tall_narrow = false;
  for (int i : level0_pool(sieve, machine, {}, options)) {
    const auto& t = sieve.levels[0].candidates[static_cast<size_t>(i)].tile;
    tall_narrow = tall_narrow || (t[1] == 16 && t[0] > direct_tile_rows(arch.isa.vector));
  }
  CHECK(tall_narrow);
}
