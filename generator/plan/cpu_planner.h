// The generator's copy of a CPU package's planner: the package's own fixed sources (templates/cpu/runtime/
// dispatch_rules.h, dispatch_blocking.h, dispatch_prices.h, dispatch_layout_prices.h, dispatch_offers.h) compiled
// over a CpuPlanConfig held at run time. The selection ranks kernels with it, and a package's _plan() for a shape is
// what cpu_plan() says for its configuration: one model (tests/test_plan_agreement.cpp checks it).
#pragma once

#include <cstdint>

#include "plan/cpu_plan_config.h"

namespace strata {

// A call's layout bits, as a package's planner takes them: A stored transposed (K x M), B stored transposed (N x K).
constexpr int32_t kCpuTransA = 1;
constexpr int32_t kCpuTransB = 2;

struct CpuPlan {
  int32_t kernel = 0;  // index into the configuration's kernels
  int32_t threads = 1;
  bool packed = false;       // packed blocks (else A and B in place)
  int32_t row_shares = 1;    // a packed plan on several threads: C's rows cut into this many thread blocks
  double seconds = 0;        // the model's estimate
  double alone_seconds = 0;  // the best plan's estimate on one thread
};

// A package's planner for one configuration. plan() may be called from several threads at once; each thread loads
// the configuration into its copy of the planner's tables when it first plans for this planner.
class CpuPlanner {
 public:
  // Throws std::invalid_argument for a configuration the planner's tables cannot hold (no kernels, too many, more
  // FMA chains than they take).
  explicit CpuPlanner(CpuPlanConfig config);

  // The plan the package chooses for M x N x K on at most max_threads threads (kernel `forced` alone where it is not
  // negative), with A and B stored as `layout` says (kCpuTransA, kCpuTransB).
  CpuPlan plan(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced = -1, int32_t layout = 0) const;

  const CpuPlanConfig& config() const { return config_; }

 private:
  void load() const;

  CpuPlanConfig config_;
  uint64_t id_;
};

}  // namespace strata
