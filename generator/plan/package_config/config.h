// The configuration the generator compiles a package's planner under (templates/cpu/runtime/dispatch_rules.h to
// dispatch_offers.h, see cpu_planner.cpp). A package's generated config.h and dispatch_config.h give these names as
// constants; here they are variables of the calling thread, which cpu_planner.cpp sets from a CpuPlanConfig before
// it plans, so that the generator prices a call with the package's own code.
#ifndef STRATA_PLAN_PACKAGE_CONFIG_H_
#define STRATA_PLAN_PACKAGE_CONFIG_H_

#include <cstdint>

#define STRATA_PACKAGE_INTERNAL strata_cpu_planner
#define STRATA_MODEL_NAMESPACE strata_model
#define STRATA_CONFIG_CONSTEXPR
// A derived table is filled per configuration (see CpuPlanner::load() in cpu_planner.cpp), not at compile time.
#define STRATA_DERIVED(type, name, value) \
  thread_local type name {}

namespace STRATA_PACKAGE_INTERNAL {

thread_local int kChains = 0;
thread_local int kFmaPipes = 0;
thread_local int kHalfFmaPipes = 0;
thread_local int kVectorRegisters = 0;
thread_local int kDirectRows = 0;

}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_PLAN_PACKAGE_CONFIG_H_
