// The dispatcher and driver: the per-call plan (kernel, blocking, threads) from the cost model in cost_model.h,
// packing, the loops around the micro-kernels, the thread pool, strided batches and the C API.
//
// The packed path runs the tile hierarchy the model ranks (see manifest.yaml for each kernel's tiles):
//   in parallel, each thread on its own block of C (see "Thread shares"):    (level 2, "cores": m, n parallel)
//     for each level-2 tile (M2 x N2 x K2) of the block, n innermost      (problem level: temporal)
//       for each level-1 tile (M1 x N1) of it, m innermost:              (level 2 over level-1 tiles)
//         for each K1 slice of the level-2 tile's depth:                 (level 2: k temporal reduction)
//           pack B (K1 x N1) into NR-wide micro-panels, unless the thread holds it from the last tile or the
//           level-2 row above (see b_slots),
//           and A (M1 x K1) into MR-tall ones, unless it holds that from a level-2 tile to the left
//           for jr in N1 step NR, ir in M1 step MR: micro-kernel         (level 1 over register tiles)
// All threads share one parallel region per call (see packed_task).
// Edge tiles run exact-size micro-kernel instantiations: no padding work anywhere.
// The direct path (small problems) runs the same micro-kernels on A and B in place.
//
// Fixed text, copied verbatim into every package: the numbers come from config.h and dispatch_config.h, and the C
// API's names from config.h's STRATA_X and STRATA_C. The dispatcher is one translation unit, in parts included in
// order.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <limits>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <time.h>  // clock_gettime: POSIX, not in <ctime>

#if defined(__linux__)
#include <sched.h>
#endif

#include "config.h"
#include STRATA_PUBLIC_HEADER
// The parts, in the order they build on each other.
// clang-format off
#include "dispatch_config.h"
#include "dispatch_rules.h"
#include "dispatch_blocking.h"
#include "dispatch_prices.h"
#include "dispatch_layout_prices.h"
#include "dispatch_offers.h"
#include "dispatch_planner.h"
#include "dispatch_threads.h"
#include "dispatch_direct.h"
#include "dispatch_packed.h"
#include "dispatch_checks.h"
// clang-format on

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// Memory that grows and is kept, so that repeated calls do not pay for allocation and page faults.
struct GrowingBuffer {
  void* data = nullptr;
  size_t size = 0;
  ~GrowingBuffer() { std::free(data); }
  // At least `bytes`, or null where they cannot be had.
  void* reserve(size_t bytes) {
    if (size < bytes) {
      void* grown = std::malloc(bytes);
      if (grown == nullptr) return nullptr;
      std::free(data);
      data = grown;
      size = bytes;
    }
    return data;
  }
};

// A per-thread workspace.
void* cached_workspace(size_t bytes) {
  thread_local GrowingBuffer buffer;
  return buffer.reserve(bytes);
}

// The call with its transposed operands copied row-major into a per-thread buffer of their own (the workspace may
// be needed besides), by kernel k's transposing copy; A null where the buffer cannot grow.
Gemm row_major_copies(const Gemm& g, const Kernel& k) {
  thread_local GrowingBuffer buffer;
  const int64_t a_floats = g.a_transposed() ? g.M * g.K : 0, b_floats = g.b_transposed() ? g.K * g.N : 0;
  float* const copies = static_cast<float*>(buffer.reserve(static_cast<size_t>(a_floats + b_floats) * sizeof(float)));
  Gemm out = g;
  out.layout = 0;
  if (copies == nullptr) {
    out.A = nullptr;
    return out;
  }
  if (g.a_transposed()) {  // stored K x M
    k.copy_transposed(g.A, g.lda, g.K, g.M, copies);
    out.A = copies;
    out.lda = g.K;
  }
  if (g.b_transposed()) {  // stored N x K
    k.copy_transposed(g.B, g.ldb, g.N, g.K, copies + a_floats);
    out.B = copies + a_floats;
    out.ldb = g.N;
  }
  return out;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

// A convolution package's path that reads its input in place (config.h says whether this is one).
#if STRATA_CONV_PACKAGE
#include "dispatch_conv_direct.h"
#endif

namespace STRATA_PACKAGE_INTERNAL {
namespace {

STRATA_X(status)
run_planned(const Gemm& g, const Plan& plan, void* workspace, bool caller_workspace,
            bool wanted_threads);  // below

// When the last call that wanted several threads ended (steady clock, ns; 0: none yet).
std::atomic<int64_t> g_last_parallel_end_ns{0};

// A plan on several threads counts on workers that start at once. When the internal pool's workers are asleep (or
// not started yet), waking them costs the caller the pool's measured waking time. If the plan's best one-thread
// alternative is slower than the plan by less than that, the call runs alone and lets them sleep, unless calls that
// want threads come back to back (the last ended less than the pool's spin time ago): then this call wakes them, and
// the calls after it find them spinning. A host's parallel_for is taken as ready: its threads are not ours to
// inspect.
Plan ready_plan(Plan plan) {
  if (plan.threads <= 1 || g_host_parallel_for.load() != nullptr) return plan;
  const ThreadPool& pool = ThreadPool::instance();
  if (pool.awake(plan.threads - 1) || plan.alone.seconds > plan.seconds + pool.wake_seconds()) return plan;
  const int64_t last = g_last_parallel_end_ns.load(std::memory_order_relaxed);
  if (last != 0 && static_cast<double>(steady_ns() - last) * 1e-9 < ThreadPool::kSpinSeconds) return plan;
  return alone_plan(plan);
}

// max_threads: the most threads the call may use; 0 for current_threads().
STRATA_X(status)
run_call(const Gemm& g, int32_t forced, void* workspace, size_t workspace_size, bool caller_workspace,
         int32_t max_threads) {
  const STRATA_X(status) status = check(g);
  if (status != STRATA_C(OK)) return status;
  if (g.M == 0 || g.N == 0) return STRATA_C(OK);
  if (g.K == 0 || g.alpha == 0.0f) {
    scale_c(g);
    finish(g, kKernels[0], g.C, g.M, g.N);
    return STRATA_C(OK);
  }
  // Used only before the call runs anything (see choose_plan).
  const int32_t threads = max_threads > 0 ? max_threads : current_threads();
  const Plan* planned = &choose_plan(g.M, g.N, g.K, threads, forced, g.layout);
  // A caller's workspace must hold what workspace_size() promised, for the configured threads, whichever of the two
  // plans runs. The plan for the threads the CPUs have room for runs when the workspace holds it too.
  if (caller_workspace) {
    if (threads != configured_threads() && call_workspace_bytes(*planned, g.M, g.N, g.K) > workspace_size)
      planned = &choose_plan(g.M, g.N, g.K, configured_threads(), forced, g.layout);
    const size_t promised = call_workspace_bytes(*planned, g.M, g.N, g.K);
    if (promised > 0 && (workspace == nullptr || workspace_size < promised)) return STRATA_C(WORKSPACE_TOO_SMALL);
  }
  const Plan& wanted = *planned;
  // A call that is one register tile of its plan's kernel on one thread runs it at once: the thread decision and the
  // path's set-up that follow are a large share of such a call (measurements:
  // docs/perf/2026-11-27-cpu-runtime-evidence.md, "one-tile-call").
  if (g.layout == 0 && wanted.threads == 1 && !wanted.packed && one_tile(g.M, g.N, g.K, kKernels[wanted.kernel])) {
    direct_single_tile(g, kKernels[wanted.kernel]);
    return STRATA_C(OK);
  }
  const Plan plan = ready_plan(wanted);
#if STRATA_CONV_PACKAGE
  if (g.a_gathered() && !plan.packed) return run_direct_conv(g, plan, kKernels[plan.kernel]);
#endif
  if (g.b_packed() && !plan.packed) {  // A in place over B's panels, a transposed A from a row-major copy
    Gemm call = g;
    if (g.a_transposed()) {
      Gemm a_only = g;
      a_only.layout = kTransA;
      call = row_major_copies(a_only, kKernels[plan.kernel]);
      if (call.A == nullptr) return STRATA_C(OUT_OF_MEMORY);
      call.layout = kPackedB;
    }
    run_packed_b_in_place(call, plan);
    return STRATA_C(OK);
  }
  if (plan.dots) {
    const Kernel& k = kKernels[plan.kernel];
    Gemm call = g;
    if (g.a_transposed()) {  // the dot products read A's rows: a row-major copy of A, B as stored
      Gemm a_only = g;
      a_only.layout = kTransA;
      call = row_major_copies(a_only, k);
      if (call.A == nullptr) return STRATA_C(OUT_OF_MEMORY);
      call.layout = kTransB;
    }
    dot_rows(call, k, plan.threads);
    return STRATA_C(OK);
  }
  // In place, a transposed operand is otherwise read from a row-major copy (see kTransA).
  if (g.layout != 0 && !plan.packed) {
    const Gemm copied = row_major_copies(g, kKernels[plan.kernel]);
    if (copied.A == nullptr) return STRATA_C(OUT_OF_MEMORY);
    return run_planned(copied, plan, workspace, caller_workspace, wanted.threads > 1);
  }
  return run_planned(g, plan, workspace, caller_workspace, wanted.threads > 1);
}

// Runs `plan` for a call that passed its checks and is not empty. wanted_threads: the plan the call wanted, before
// ready_plan, ran on several threads (see EndStamp).
STRATA_X(status)
run_planned(const Gemm& g, const Plan& plan, void* workspace, bool caller_workspace, bool wanted_threads) {
  // Stamps the end of a call that wanted threads, for ready_plan's next decision.
  struct EndStamp {
    bool parallel;
    ~EndStamp() {
      if (parallel) g_last_parallel_end_ns.store(steady_ns(), std::memory_order_relaxed);
    }
  } end_stamp{wanted_threads};
  const bool split = !plan.packed && split_k(g.M, g.N, g.K, kKernels[plan.kernel], plan.threads);
  if (!plan.packed && !split) {
    run_direct(g, plan);
    return STRATA_C(OK);
  }
  if (!caller_workspace) {
    workspace = cached_workspace(workspace_bytes(plan, g.M, g.N, g.K));
    if (workspace == nullptr) return STRATA_C(OUT_OF_MEMORY);
  }
  if (split)
    run_split_k(g, kKernels[plan.kernel], plan.threads, workspace);
  else
    run_packed(g, plan, workspace);
  return STRATA_C(OK);
}

// A call, with nothing thrown out of it: the header promises that no entry point throws. The pool makes do with the
// threads it gets; what else could throw (an allocation in the standard library, a mutex the system refuses, a
// host's parallel_for) becomes a status.
STRATA_X(status)
execute(const Gemm& g, int32_t forced, void* workspace, size_t workspace_size, bool caller_workspace,
        int32_t max_threads = 0) noexcept {
  try {
    return run_call(g, forced, workspace, workspace_size, caller_workspace, max_threads);
  } catch (const std::bad_alloc&) {
    return STRATA_C(OUT_OF_MEMORY);
  } catch (...) {
    return STRATA_C(SYSTEM_ERROR);
  }
}

// A call with an epilogue (see post_ops_of), or the plain call where it is null: the call's checks first, then the
// epilogue's, which reads C's extent. forced: the kernel the call must run, or -1.
STRATA_X(status) execute_with_epilogue(Gemm g, const STRATA_X(epilogue_t) * epilogue, int32_t forced = -1) noexcept {
  if (epilogue == nullptr) return execute(g, forced, nullptr, 0, false);
  if (const STRATA_X(status) s = check(g); s != STRATA_C(OK)) return s;
  PostOps post;
  if (const STRATA_X(status) s = post_ops_of(epilogue, g, &post); s != STRATA_C(OK)) return s;
  g.post = &post;
  return execute(g, forced, nullptr, 0, false);
}

// ran_at_once's direct_all, out of line, so that its Gemm on the stack and the registers it saves are no cost to a
// one-tile call.
__attribute__((noinline)) void direct_at_once(int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                                              int64_t lda, const float* B, int64_t ldb, float beta, float* C,
                                              int64_t ldc, int32_t kernel) {
  direct_all(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, kKernels[kernel], true);
}

// A call that the calling thread's last plan answers and runs in place on one thread (PlanCache::Entry::at_once), run
// at once: false, having done nothing, for any other call, which execute() then takes. The entry vouches for the CPU
// and that M, N and K are positive; the rest of plainly_valid() is checked here, and alpha = 0, which execute() runs
// as a scaling of C. execute()'s checks and set-up are a visible share of a direct call, the more so of a one-tile
// call, whose check of `single` comes before that of at_once (measurements:
// docs/perf/2026-11-27-cpu-runtime-evidence.md, "at-once").
inline bool ran_at_once(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
                        int64_t ldb, float beta, float* C, int64_t ldc, int32_t forced) {
  const PlanCache::Entry& front = t_plans.front;
  const auto valid = [&] {
    const uint64_t ld_bits = static_cast<uint64_t>(lda) | static_cast<uint64_t>(ldb) | static_cast<uint64_t>(ldc);
    return ld_bits < (uint64_t{1} << 30) && lda >= K && ldb >= N && ldc >= N && A != nullptr && B != nullptr &&
           C != nullptr && alpha != 0.0f;
  };
  // The one-tile calls first, with nothing else on their way: they are the shortest.
  if (front.single != nullptr) {
    if (!front.matches(M, N, K, current_threads(), forced) || !valid()) return false;
    TileArgs args{K, A, lda, B, ldb, C, ldc, alpha, beta, M, static_cast<int32_t>(N)};
    args.fetch_a_ahead = front.single_fetch_a;
    front.single(args);
    return true;
  }
  if (!front.at_once || !front.matches(M, N, K, current_threads(), forced) || !valid()) return false;
  direct_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, front.plan.kernel);
  return true;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

// Strided batches, on the calls above.
#include "dispatch_batches.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// The layout bits of a call's transposes (see kTransA), or -1 where either is not a transpose value.
int32_t layout_of(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b) {
  const auto bit = [](STRATA_X(transpose) t, int32_t set) {
    return t == STRATA_C(NO_TRANS) ? 0 : t == STRATA_C(TRANS) ? set : -1;
  };
  const int32_t a = bit(trans_a, kTransA), b = bit(trans_b, kTransB);
  return a < 0 || b < 0 ? -1 : a | b;
}

// cblas_sgemm's arguments, checked in CBLAS's order and numbered as netlib's cblas_xerbla numbers them (1: order,
// 2 and 3: the transposes, 4 to 6: M, N, K, 9, 11 and 14: the leading dimensions; 8, 10 and 13 for a null A, B or C
// the call needs), then the call in row-major terms: a column-major C is a row-major C transposed, C^T = op(B)^T
// op(A)^T, so the operands trade places and each keeps its storage. Returns 0, the first invalid argument's number,
// or minus a status for any other failure.
int cblas_sgemm_call(int order, int trans_a, int trans_b, int M, int N, int K, float alpha, const float* A, int lda,
                     const float* B, int ldb, float beta, float* C, int ldc) {
  constexpr int kRowMajor = 101, kColMajor = 102, kNoTrans = 111, kTrans = 112, kConjTrans = 113;
  const auto transpose_value = [&](int t) { return t == kNoTrans || t == kTrans || t == kConjTrans; };
  if (order != kRowMajor && order != kColMajor) return 1;
  if (!transpose_value(trans_a)) return 2;
  if (!transpose_value(trans_b)) return 3;
  if (M < 0) return 4;
  if (N < 0) return 5;
  if (K < 0) return 6;
  const bool ta = trans_a != kNoTrans, tb = trans_b != kNoTrans, row = order == kRowMajor;
  // The rows each operand's leading dimension spans, as CBLAS states them.
  const int a_span = row ? (ta ? M : K) : (ta ? K : M);
  const int b_span = row ? (tb ? K : N) : (tb ? N : K);
  const int c_span = row ? N : M;
  if (lda < std::max(1, a_span)) return 9;
  if (ldb < std::max(1, b_span)) return 11;
  if (ldc < std::max(1, c_span)) return 14;
  const bool touches_c = M > 0 && N > 0, reads_ab = touches_c && K > 0 && alpha != 0.0f;
  if (reads_ab && A == nullptr) return 8;
  if (reads_ab && B == nullptr) return 10;
  if (touches_c && C == nullptr) return 13;
  const Gemm g = row ? Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, (ta ? kTransA : 0) | (tb ? kTransB : 0)}
                     : Gemm{N, M, K, alpha, beta, B, ldb, A, lda, C, ldc, (tb ? kTransA : 0) | (ta ? kTransB : 0)};
  const STRATA_X(status) status = execute(g, -1, nullptr, 0, false);
  return status == STRATA_C(OK) ? 0 : -static_cast<int>(status);
}

void fill_plan(const Plan& p, STRATA_X(plan_t) * out) {
  const Kernel& k = kKernels[p.kernel];
  *out = STRATA_X(plan_t){};
  out->kernel_id = p.kernel;
  out->mr = k.mr, out->nr = k.nr, out->k_unroll = k.ku;
  out->mc = k.m1, out->nc = k.n1, out->kc = k.k1;
  out->threads = p.threads;
  out->packed = p.packed ? 1 : 0;
  out->predicted_seconds = p.seconds;
  out->row_shares = p.row_shares;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

using namespace STRATA_PACKAGE_INTERNAL;

extern "C" {

const char* STRATA_X(status_string)(STRATA_X(status) status) {
  switch (status) {
    case STRATA_C(OK): return "ok";
    case STRATA_C(INVALID_SIZE): return "M, N or K is negative";
    case STRATA_C(INVALID_LEADING_DIM): return "a leading dimension is smaller than its row length";
    case STRATA_C(NULL_POINTER): return "A, B or C is null but the call needs it";
    case STRATA_C(SIZE_OVERFLOW): return "a matrix extent overflows 64-bit indexing";
    case STRATA_C(INVALID_KERNEL): return "kernel id out of range";
    case STRATA_C(INVALID_ARGUMENT): return "invalid argument";
    case STRATA_C(WORKSPACE_TOO_SMALL): return "workspace smaller than " STRATA_NAME_STRING "_workspace_size()";
    case STRATA_C(OUT_OF_MEMORY): return "out of memory";
    case STRATA_C(UNSUPPORTED_CPU): return "this CPU lacks " STRATA_ISA_NAME;
    case STRATA_C(SYSTEM_ERROR): return "the system refused a resource the call needed";
    case STRATA_C(PACKED_B_MISMATCH): return "the packed B was packed by another package or for another N or K";
  }
  return "unknown status";
}

STRATA_X(status)
STRATA_GEMM(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
            float beta, float* C, int64_t ldc) {
  if (ran_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, -1)) return STRATA_C(OK);
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, -1, nullptr, 0, false);
}

STRATA_X(status)
STRATA_X(with_kernel)
(int32_t kernel_id, int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B,
 int64_t ldb, float beta, float* C, int64_t ldc) {
  if (kernel_id < 0 || kernel_id >= kKernelCount) return STRATA_C(INVALID_KERNEL);
  if (ran_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, kernel_id)) return STRATA_C(OK);
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, kernel_id, nullptr, 0, false);
}

STRATA_X(status)
STRATA_X(with_workspace)
(int64_t M, int64_t N, int64_t K, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
 float* C, int64_t ldc, void* workspace, size_t workspace_bytes) {
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc}, -1, workspace, workspace_bytes, true);
}

STRATA_X(status)
STRATA_X(gemm)
(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b, int64_t M, int64_t N, int64_t K, float alpha,
 const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
  const int32_t layout = layout_of(trans_a, trans_b);
  if (layout < 0) return STRATA_C(INVALID_ARGUMENT);
  if (layout == 0 && ran_at_once(M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, -1)) return STRATA_C(OK);
  return execute(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, layout}, -1, nullptr, 0, false);
}

STRATA_X(status)
STRATA_X(gemm_epilogue)
(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b, int64_t M, int64_t N, int64_t K, float alpha,
 const float* A, int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc,
 const STRATA_X(epilogue_t) * epilogue) {
  const int32_t layout = layout_of(trans_a, trans_b);
  if (layout < 0) return STRATA_C(INVALID_ARGUMENT);
  return execute_with_epilogue(Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, layout}, epilogue);
}

STRATA_X(status)
STRATA_X(gemm_batched)
(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b, int64_t M, int64_t N, int64_t K, float alpha,
 const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb, int64_t stride_b, float beta, float* C,
 int64_t ldc, int64_t stride_c, int64_t batch) {
  const int32_t layout = layout_of(trans_a, trans_b);
  if (layout < 0) return STRATA_C(INVALID_ARGUMENT);
  BatchJob job;
  job.first = Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, layout};
  job.stride_a = stride_a;
  job.stride_b = stride_b;
  job.stride_c = stride_c;
  job.count = batch;
  return run_batch(job, nullptr);
}

STRATA_X(status)
STRATA_X(gemm_batched_epilogue)
(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b, int64_t M, int64_t N, int64_t K, float alpha,
 const float* A, int64_t lda, int64_t stride_a, const float* B, int64_t ldb, int64_t stride_b, float beta, float* C,
 int64_t ldc, int64_t stride_c, int64_t batch, const STRATA_X(epilogue_t) * epilogue, int64_t stride_bias,
 int64_t stride_residual) {
  const int32_t layout = layout_of(trans_a, trans_b);
  if (layout < 0) return STRATA_C(INVALID_ARGUMENT);
  BatchJob job;
  job.first = Gemm{M, N, K, alpha, beta, A, lda, B, ldb, C, ldc, layout};
  job.stride_a = stride_a;
  job.stride_b = stride_b;
  job.stride_c = stride_c;
  job.count = batch;
  job.stride_bias = stride_bias;
  job.stride_residual = stride_residual;
  return run_batch(job, epilogue);
}

int STRATA_X(cblas_sgemm)(int order, int trans_a, int trans_b, int M, int N, int K, float alpha, const float* A,
                          int lda, const float* B, int ldb, float beta, float* C, int ldc) {
  return cblas_sgemm_call(order, trans_a, trans_b, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
}

size_t STRATA_X(workspace_size)(int64_t M, int64_t N, int64_t K) {
  if (M <= 0 || N <= 0 || K <= 0) return 0;
  return call_workspace_bytes(choose_plan(M, N, K, configured_threads(), -1), M, N, K);
}

STRATA_X(status) STRATA_X(plan)(int64_t M, int64_t N, int64_t K, STRATA_X(plan_t) * plan) {
  if (plan == nullptr) return STRATA_C(INVALID_ARGUMENT);
  if (const STRATA_X(status) s = plannable(M, N, K); s != STRATA_C(OK)) return s;
  fill_plan(choose_plan(M, N, K, current_threads(), -1), plan);
  return STRATA_C(OK);
}

STRATA_X(status) STRATA_X(kernel_plan)(int32_t kernel_id, int64_t M, int64_t N, int64_t K, STRATA_X(plan_t) * plan) {
  if (plan == nullptr) return STRATA_C(INVALID_ARGUMENT);
  if (kernel_id < 0 || kernel_id >= kKernelCount) return STRATA_C(INVALID_KERNEL);
  if (const STRATA_X(status) s = plannable(M, N, K); s != STRATA_C(OK)) return s;
  fill_plan(choose_plan(M, N, K, current_threads(), kernel_id), plan);
  return STRATA_C(OK);
}

STRATA_X(status)
STRATA_X(gemm_plan)
(STRATA_X(transpose) trans_a, STRATA_X(transpose) trans_b, int64_t M, int64_t N, int64_t K, STRATA_X(plan_t) * plan) {
  const int32_t layout = layout_of(trans_a, trans_b);
  if (plan == nullptr || layout < 0) return STRATA_C(INVALID_ARGUMENT);
  if (const STRATA_X(status) s = plannable(M, N, K); s != STRATA_C(OK)) return s;
  fill_plan(choose_plan(M, N, K, current_threads(), -1, layout), plan);
  return STRATA_C(OK);
}

int32_t STRATA_X(kernel_count)(void) { return kKernelCount; }

STRATA_X(status) STRATA_X(set_num_threads)(int32_t threads) {
  if (threads < 1) return STRATA_C(INVALID_ARGUMENT);
  g_threads.store(std::min(threads, kMaxThreads));
  return STRATA_C(OK);
}

int32_t STRATA_X(get_num_threads)(void) { return configured_threads(); }

STRATA_X(status) STRATA_X(set_parallel_for)(STRATA_X(parallel_for_fn) parallel_for, void* host_context) {
  try {
    std::lock_guard<std::mutex> lock(g_host_mutex);
    g_host_fn = parallel_for;
    g_host_context = host_context;
    g_host_parallel_for.store(parallel_for);
  } catch (...) {  // the system refused the mutex: nothing changed
    return STRATA_C(SYSTEM_ERROR);
  }
  return STRATA_C(OK);
}

void STRATA_X(parallel_for)(void* host_context, int64_t count, STRATA_X(task_fn) task, void* task_context) {
  (void)host_context;
  if (count <= 0 || task == nullptr) return;
  try {
    ThreadPool::instance().run(count, task, task_context, g_threads.load(std::memory_order_relaxed) == 0);
  } catch (...) {
    // The pool throws only before any task has run (a mutex the system refused): the calling thread runs them all.
    for (int64_t i = 0; i < count; ++i) task(task_context, i);
  }
}

const char* STRATA_X(version)(void) { return STRATA_C(VERSION_STRING); }

const char* STRATA_X(provenance)(void) { return kProvenance; }

}  // extern "C"

// Weights packed once (pack_b) and the calls that read them.
#include "dispatch_packed_b.h"

// A convolution package's entry points (config.h says whether this is one).
#if STRATA_CONV_PACKAGE
#include "dispatch_conv.h"
#endif
