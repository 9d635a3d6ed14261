// The CPU planner's prices (the generator's copy of a package's dispatcher) on calls whose pricing rule is not
// visible in the committed examples' plans.
#include <catch2/catch.hpp>

#include "analyze/model.h"
#include "plan/cpu_plan_config.h"
#include "plan/cpu_planner.h"
#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"

using namespace strata;
using namespace strata::test;

TEST_CASE("a packed plan pays for C's lines once per column of blocks, however fast its profiled blocks", "[plan]") {
  const Arch arch = load_arch(source_path("archs/zen4-avx512.yaml"));
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  const auto sieve = run_sieve(arch, op).at(0);
  CpuPlanConfig config = cpu_plan_machine(arch, make_machine(arch, op, sieve));
  // A 12x16 register tile in 192x16x128 blocks, profiled at level 1 as nearly free: the blocks' own times price the
  // call at almost nothing.
  CpuPlanKernel k;
  k.name = "k0_ukernel_avx512_12x16_k4";
  k.mr = 12, k.nr = 16, k.ku = 4;
  k.m1 = 192, k.n1 = 16, k.k1 = 128;
  k.m2 = 384, k.n2 = 16, k.k2 = 128;
  k.level0_seconds = 1e-12;
  k.level1 = {1e-12, 1e-12, 1e-12};
  config.kernels.push_back(k);
  // Memory as fast as the registers: the model's own charge for moving C once from memory is then negligible.
  config.machine.problem.bandwidth_Bps = config.machine.level[0].bandwidth_Bps;
  const strata_model::Machine machine = config.machine;
  const int64_t line = config.line_bytes;
  REQUIRE(line == 64);
  const CpuPlanner planner(std::move(config));

  // 169343 x 121 x 16: A (10.8 MB) is too large to run in place, so the plan packs; C (82 MB) lies beyond every
  // cache, and its 121 columns are 8 columns of 16-wide blocks, each part of a row a line more than its 64 bytes.
  const int64_t M = 169343, N = 121, K = 16;
  const CpuPlan plan = planner.plan(M, N, K, 1);
  REQUIRE(plan.packed);
  const double columns = 8;
  const double bytes = 4.0 * static_cast<double>(M * K + K * N) +
                       2.0 * static_cast<double>(M) * columns * (16 * 4 + static_cast<double>(line) - 4);
  // One thread streams what lies beyond the outer cache at the outer cache's bandwidth (direct_seconds' rule).
  const double outer_Bps = machine.level[machine.num_levels - 1].bandwidth_Bps;
  // (C's bytes counted once, without its columns and lines, come to about half of `bytes`.)
  CHECK(plan.seconds >= machine.launch_s + bytes / outer_Bps);
}
