// Part of the dispatcher (see dispatch_rules.h): the planner, which offers every kernel a shape and keeps the
// cheapest plan, and the per-thread plan cache in front of it.
#ifndef STRATA_DISPATCH_PLANNER_H_
#define STRATA_DISPATCH_PLANNER_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// Whether a direct call is a single register tile of k in a single k slice (see direct_depth and direct_block_rows):
// then direct_all's loops would run once, and the kernel's direct strip runs the call at once.
bool one_tile(int64_t M, int64_t N, int64_t K, const Kernel& k) {
  return M <= k.mr && N <= k.nr && matrix_bytes(K, N) <= kDirectBytes;
}

// offer_kernel() for one kernel, with every function it calls inlined (GCC's and Clang's flatten), so that the
// kernel's tiles, depths and rates are constants there: divisions by them become multiplies, and the branches on them
// fold, which shortens a cold plan (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "flatten").
#if defined(__GNUC__)
#define STRATA_FLATTEN __attribute__((flatten))
#else
#define STRATA_FLATTEN
#endif
template <int32_t kId>
STRATA_FLATTEN void offer_kernel_of(int64_t M, int64_t N, int64_t K, int32_t layout, const ThreadCounts& counts,
                                    bool skip_twins, Plan* best, Plan::Alone* alone) {
  offer_kernel(kId, M, N, K, layout, counts, skip_twins, best, alone);
}

// A plan's key besides its shape and threads: the forced kernel (-1 for none) and the layout in one number, equal to
// the forced kernel for NN calls. One field, not two: the entry keeps its size and offsets, and a tiny NN call's
// check of the front entry stays one comparison (measurements: docs/perf/2026-11-27-layouts/, "plan-key").
constexpr int32_t kLayoutKeyStride = int32_t{1} << 24;  // above any kernel id
constexpr int32_t plan_key(int32_t forced, int32_t layout) { return forced + layout * kLayoutKeyStride; }

using KernelPlanner = void (*)(int64_t, int64_t, int64_t, int32_t, const ThreadCounts&, bool, Plan*, Plan::Alone*);
struct Planners {
  KernelPlanner of[kKernelCount];
};
template <int32_t... kIds>
constexpr Planners planners(std::integer_sequence<int32_t, kIds...>) {
  return Planners{{&offer_kernel_of<kIds>...}};
}
constexpr Planners kPlanners = planners(std::make_integer_sequence<int32_t, kKernelCount>());

// Remembers the last plans per calling thread: repeated shapes (the common case in a model's layers) skip the
// model entirely. A copy of the entry that answered last is tried first, inline (see choose_plan).
struct PlanCache {
  struct Entry {
    int64_t m, n, k;
    int32_t threads, forced;  // forced: the forced kernel and the layout, see plan_key
    Plan plan;
    // Whether a call the entry answers skips execute() (see ran_at_once): where the plan runs it in place on one
    // thread, the CPU runs the kernels and M, N and K are positive and below 2^30 (as plainly_valid() asks). Where
    // it is one register tile of the plan's kernel, `single` is that kernel's direct strip, which runs it
    // (single_fetch_a: the strip's TileArgs::fetch_a_ahead, see a_from_beyond); else direct_all runs it.
    bool at_once;
    TileFn single;
    bool single_fetch_a;
    bool matches(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t key) const {
      return m == M && n == N && k == K && threads == max_threads && forced == key;
    }
  };
  static constexpr int kEntries = 16;
  // The entry that answered last, copied to a fixed place: its fields are then a constant offset from the thread's
  // storage, one load each, where entries[last] needs the index and the storage's address loaded first, a chain that
  // is a visible share of a tiny call (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "plan-front").
  Entry front;
  Entry entries[kEntries];
  int used, next;
};
// No initialisers: a thread_local that is all zeros at first needs no guard on every access. The front entry, tried
// first, matches no call while the cache is empty: its thread count is 0, and a call asks for at least 1.
thread_local PlanCache t_plans;

bool cpu_supported();  // see the argument checks below

// The cheapest plan through the per-kernel planners (see kPlanners), uncached.
Plan planned(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced, int32_t layout) {
  return cheapest_plan(
      M, N, K, layout, max_threads, forced,
      [](int32_t id, int64_t m, int64_t n, int64_t k, int32_t bits, const ThreadCounts& counts, bool skip_twins,
         Plan* plan, Plan::Alone* alone) { kPlanners.of[id](m, n, k, bits, counts, skip_twins, plan, alone); });
}

const Plan& choose_plan_slow(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced, int32_t layout) {
  PlanCache& cache = t_plans;
  for (int i = 0; i < cache.used; ++i) {
    const PlanCache::Entry& e = cache.entries[i];
    if (e.matches(M, N, K, max_threads, plan_key(forced, layout))) {
      cache.front = e;
      return cache.front.plan;
    }
  }
  const Plan best = planned(M, N, K, max_threads, forced, layout);
  // Whether a call the entry answers skips execute(), and how (see PlanCache::Entry).
  const Kernel& k = kKernels[best.kernel];
  const int64_t limit = int64_t{1} << 30;
  bool at_once = false, single_fetch_a = false;
  TileFn single = nullptr;
  if (layout == 0 && best.threads == 1 && !best.packed && M > 0 && N > 0 && K > 0 && M < limit && N < limit &&
      K < limit && cpu_supported()) {
    at_once = true;
    if (one_tile(M, N, K, k)) {
      single = k.direct;
      single_fetch_a = matrix_bytes(M, K) > kStreamABytes;
    }
  }
  // Both copies built from the values, not one copied from the other: the copy's wide loads of the entry's narrow
  // stores stall on store forwarding.
  cache.entries[cache.next] =
      PlanCache::Entry{M, N, K, max_threads, plan_key(forced, layout), best, at_once, single, single_fetch_a};
  cache.front =
      PlanCache::Entry{M, N, K, max_threads, plan_key(forced, layout), best, at_once, single, single_fetch_a};
  cache.next = (cache.next + 1) % PlanCache::kEntries;
  cache.used = std::min(cache.used + 1, PlanCache::kEntries);
  return cache.front.plan;
}

// The plan for a convolution's call (see kGatherA), not cached: it depends on the gather's run of channels, which the
// cache's key does not hold. A cold plan is a small share of a convolution.
const Plan& gathered_plan(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced, int32_t layout) {
  thread_local Plan plan;
  plan = planned(M, N, K, max_threads, forced, layout);
  return plan;
}

// The plan for a call, as a reference into the calling thread's cache: valid until the thread plans again, so a call
// must be done with it before it runs anything (a host's parallel_for may run other GEMMs on this thread). A
// reference rather than a copy: GCC copies the entry out of thread-local storage with `rep movs`, a visible share of
// a tiny call (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "plan-reference").
inline const Plan& choose_plan(int64_t M, int64_t N, int64_t K, int32_t max_threads, int32_t forced,
                               int32_t layout = 0) {
  if ((layout & kGatherA) != 0) return gathered_plan(M, N, K, max_threads, forced, layout);
  const PlanCache::Entry& front = t_plans.front;
  if (front.matches(M, N, K, max_threads, plan_key(forced, layout))) return front.plan;
  return choose_plan_slow(M, N, K, max_threads, forced, layout);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_PLANNER_H_
