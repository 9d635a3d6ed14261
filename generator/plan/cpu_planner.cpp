#include "plan/cpu_planner.h"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

// The package's planner, verbatim, over the run-time configuration of package_config/ (see config.h there).
// clang-format off
#include "dispatch_kernel.h"
#include "dispatch_config.h"
#include "dispatch_rules.h"
#include "dispatch_blocking.h"
#include "dispatch_prices.h"
#include "dispatch_layout_prices.h"
#include "dispatch_offers.h"
// clang-format on

namespace strata {
namespace {

namespace planner = ::strata_cpu_planner;

static_assert(planner::kMaxThreads == kCpuMaxThreads, "the planner's thread cap is a package's");
static_assert(planner::kTransA == kCpuTransA && planner::kTransB == kCpuTransB, "the layout bits are a package's");

std::atomic<uint64_t> g_next_planner_id{1};

// The planner whose configuration this thread's tables hold (0: none), and its kernel table.
thread_local uint64_t t_loaded = 0;
thread_local std::vector<planner::Kernel> t_kernels;

}  // namespace

CpuPlanner::CpuPlanner(CpuPlanConfig config) : config_(std::move(config)), id_(g_next_planner_id++) {
  if (config_.kernels.empty()) throw std::invalid_argument("a CPU plan needs at least one kernel");
  if (config_.kernels.size() > static_cast<size_t>(planner::kKernelSlots))
    throw std::invalid_argument("a CPU plan weighs at most " + std::to_string(planner::kKernelSlots) + " kernels");
  if (config_.fma_chains < 1 || config_.fma_chains / 2 + 1 > planner::kChainSlots)
    throw std::invalid_argument("the planner takes 1 to " + std::to_string(2 * planner::kChainSlots - 1) +
                                " FMA chains");
  if (config_.top_level < 1 || config_.top_level >= config_.machine.num_levels)
    throw std::invalid_argument("the planner's top level is not a level of its machine");
}

void CpuPlanner::load() const {
  if (t_loaded == id_) return;
  t_kernels.clear();
  // The planner reads a kernel's name and tiles; its entry points stay null, as nothing runs here.
  for (const CpuPlanKernel& k : config_.kernels) {
    planner::Kernel kernel{};
    kernel.name = k.name.c_str();
    kernel.mr = k.mr;
    kernel.nr = k.nr;
    kernel.ku = k.ku;
    kernel.m1 = k.m1;
    kernel.n1 = k.n1;
    kernel.k1 = k.k1;
    kernel.m2 = k.m2;
    kernel.n2 = k.n2;
    kernel.k2 = k.k2;
    kernel.level0_seconds = k.level0_seconds;
    kernel.level1 = k.level1;
    t_kernels.push_back(kernel);
  }
  planner::kChains = config_.fma_chains;
  planner::kFmaPipes = config_.fma_pipes;
  planner::kHalfFmaPipes = config_.half_fma_pipes;
  planner::kVectorRegisters = config_.vector_registers;
  planner::kDirectRows = config_.direct_rows;
  planner::kKernels = t_kernels.data();
  planner::kKernelCount = static_cast<int32_t>(t_kernels.size());
  planner::kMachine = config_.machine;
  planner::kDirectBytes = config_.direct_bytes;
  planner::kTileCacheBytes = config_.tile_cache_bytes;
  planner::kVectorFloats = config_.vector_floats;
  planner::kOuterBytes = config_.outer_bytes;
  planner::kStreamABytes = config_.stream_a_bytes;
  planner::kTileCacheWayBytes = config_.tile_cache_way_bytes;
  planner::kLineBytes = config_.line_bytes;
  planner::kTopLevel = config_.top_level;
  // The tables a package works out at compile time (STRATA_DERIVED in dispatch_prices.h), in its order.
  planner::kDirect = planner::direct_table();
  planner::kChainSteps = planner::chain_steps();
  planner::kDirectCElementSeconds = planner::direct_c_element_seconds();
  planner::kWorkFloors = planner::work_floors();
  t_loaded = id_;
}

CpuPlan CpuPlanner::plan(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced, int32_t layout) const {
  load();
  const int32_t threads = std::clamp(max_threads, 1, kCpuMaxThreads);
  const planner::Plan p = planner::cheapest_plan(
      M, N, K, layout, threads, forced,
      [](int32_t id, int64_t m, int64_t n, int64_t k, int32_t bits, const planner::ThreadCounts& counts,
         bool skip_twins, planner::Plan* best,
         planner::Plan::Alone* alone) { planner::offer_kernel(id, m, n, k, bits, counts, skip_twins, best, alone); });
  return CpuPlan{p.kernel, p.threads, p.packed, p.row_shares, p.seconds, p.alone.seconds};
}

}  // namespace strata
