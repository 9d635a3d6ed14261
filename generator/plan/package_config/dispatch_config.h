// The dispatcher's configuration as the generator's copy of the planner sees it (see config.h here): the kernel
// table, the machine and the thresholds a package's dispatch_config.h gives as constants, as variables of the
// calling thread.
#ifndef STRATA_PLAN_PACKAGE_DISPATCH_CONFIG_H_
#define STRATA_PLAN_PACKAGE_DISPATCH_CONFIG_H_

#include "dispatch_kernel.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

thread_local const Kernel* kKernels = nullptr;
thread_local int32_t kKernelCount = 0;
// The per-kernel tables' entries: at least the kernels a selection weighs at once (SelectOptions::max_winners).
constexpr int32_t kKernelSlots = 256;
// The chain-step table's entries: kChains / 2 + 1 for any core with up to 64 FMA chains.
constexpr int kChainSlots = 33;
thread_local strata_model::Machine kMachine{};
thread_local int64_t kDirectBytes = 0;
thread_local int64_t kTileCacheBytes = 0;
thread_local int64_t kVectorFloats = 0;
thread_local int64_t kOuterBytes = 0;
thread_local int64_t kStreamABytes = 0;
thread_local int64_t kTileCacheWayBytes = 0;
thread_local int64_t kLineBytes = 0;
thread_local int kTopLevel = 0;
constexpr int32_t kMaxThreads = 256;  // strata::kCpuMaxThreads, a package's cap

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_PLAN_PACKAGE_DISPATCH_CONFIG_H_
