// Part of the dispatcher (see dispatch_rules.h): the checks of a call's arguments, before it plans or runs anything.
#ifndef STRATA_DISPATCH_CHECKS_H_
#define STRATA_DISPATCH_CHECKS_H_

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// ---- Argument checks ---------------------------------------------------------------------------------------------

bool cpu_supported() {
  static const bool supported = cpu_runs_kernels();
  return supported;
}

// Largest element offset touched in a rows x cols row-major matrix with leading dimension ld, or -1 when it (in
// bytes) overflows. Checked multiplies instead of a division: three 64-bit divisions would cost a tiny GEMM more
// than its arithmetic.
int64_t extent(int64_t rows, int64_t cols, int64_t ld) {
  if (rows == 0 || cols == 0) return 0;
  int64_t elements = 0, bytes = 0;
  if (__builtin_mul_overflow(rows - 1, ld, &elements) || __builtin_add_overflow(elements, cols, &elements) ||
      __builtin_mul_overflow(elements, static_cast<int64_t>(sizeof(float)), &bytes))
    return -1;
  return elements;
}

// Whether a plan can be made for M x N x K: the sizes of some valid call, whose matrices' extents with the
// tightest leading dimensions do not overflow (the planner multiplies two sizes at a time, as a call's check
// allows it to).
STRATA_X(status) plannable(int64_t M, int64_t N, int64_t K) {
  if (M < 0 || N < 0 || K < 0) return STRATA_C(INVALID_SIZE);
  if (extent(M, K, K) < 0 || extent(K, N, N) < 0 || extent(M, N, N) < 0) return STRATA_C(SIZE_OVERFLOW);
  return STRATA_C(OK);
}

// The usual call in a few instructions: every size and leading dimension in [0, 2^30) (so that no extent can
// overflow: 2^60 elements of 4 bytes), leading dimensions long enough, all three matrices given, a supported CPU.
// Anything else takes the full check, which names the first problem but is a visible share of a tiny GEMM
// (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "plainly-valid").
bool plainly_valid(const Gemm& g) {
  const uint64_t any_bits = static_cast<uint64_t>(g.M) | static_cast<uint64_t>(g.N) | static_cast<uint64_t>(g.K) |
                            static_cast<uint64_t>(g.lda) | static_cast<uint64_t>(g.ldb) |
                            static_cast<uint64_t>(g.ldc);
  return any_bits < (uint64_t{1} << 30) && g.lda >= (g.a_transposed() ? g.M : g.K) &&
         g.ldb >= (g.b_transposed() ? g.K : g.N) && g.ldc >= g.N && g.lda > 0 && g.ldb > 0 && g.ldc > 0 &&
         g.A != nullptr && g.B != nullptr && g.C != nullptr && cpu_supported();
}

// The extents (see extent()) of A, B and C as stored: a transposed A is K x M, a transposed B N x K.
struct Extents {
  int64_t of[3];
  bool overflow() const { return of[0] < 0 || of[1] < 0 || of[2] < 0; }
};

Extents stored_extents(const Gemm& g) {
  return Extents{{g.a_transposed() ? extent(g.K, g.M, g.lda) : extent(g.M, g.K, g.lda),
                  g.b_transposed() ? extent(g.N, g.K, g.ldb) : extent(g.K, g.N, g.ldb), extent(g.M, g.N, g.ldc)}};
}

STRATA_X(status) check(const Gemm& g) {
  if (plainly_valid(g)) return STRATA_C(OK);
  if (g.M < 0 || g.N < 0 || g.K < 0) return STRATA_C(INVALID_SIZE);
  const int64_t a_cols = g.a_transposed() ? g.M : g.K, b_cols = g.b_transposed() ? g.K : g.N;
  if (g.lda < std::max<int64_t>(1, a_cols) || g.ldb < std::max<int64_t>(1, b_cols) ||
      g.ldc < std::max<int64_t>(1, g.N))
    return STRATA_C(INVALID_LEADING_DIM);
  const bool touches_c = g.M > 0 && g.N > 0;
  const bool reads_ab = touches_c && g.K > 0 && g.alpha != 0.0f;
  if ((touches_c && g.C == nullptr) || (reads_ab && (g.A == nullptr || g.B == nullptr)))
    return STRATA_C(NULL_POINTER);
  if (stored_extents(g).overflow()) return STRATA_C(SIZE_OVERFLOW);
  if (!cpu_supported()) return STRATA_C(UNSUPPORTED_CPU);
  return STRATA_C(OK);
}

// Whether the float ranges [a, a + a_floats) and [b, b + b_floats) share an element.
bool overlap(const float* a, int64_t a_floats, const float* b, int64_t b_floats) {
  const uintptr_t a0 = reinterpret_cast<uintptr_t>(a), b0 = reinterpret_cast<uintptr_t>(b);
  return a0 < b0 + static_cast<uintptr_t>(b_floats) * sizeof(float) &&
         b0 < a0 + static_cast<uintptr_t>(a_floats) * sizeof(float);
}

// A call's epilogue (the API's epilogue_t) as the post-ops of g's C, for a g that passed check(): the statuses the
// API's gemm_epilogue names. Null (and any epilogue of a call that touches no C) leaves *post without parts. The
// bias and the residual may not overlap C: the post-ops read them after parts of C are written.
STRATA_X(status) post_ops_of(const STRATA_X(epilogue_t) * e, const Gemm& g, PostOps* post) {
  *post = PostOps{};
  post->c = g.C;
  post->ldc = g.ldc;
  if (e == nullptr) return STRATA_C(OK);
  const int32_t activation = static_cast<int32_t>(e->activation);
  if (activation < 0 || activation >= kActivationCount) return STRATA_C(INVALID_ARGUMENT);
  if (e->bias_kind != STRATA_C(BIAS_NONE) && e->bias_kind != STRATA_C(BIAS_PER_COLUMN) &&
      e->bias_kind != STRATA_C(BIAS_PER_ROW))
    return STRATA_C(INVALID_ARGUMENT);
  const bool clamp = e->clamp_min != 0.0f || e->clamp_max != 0.0f;
  if (clamp && !(e->clamp_min < e->clamp_max)) return STRATA_C(INVALID_ARGUMENT);  // NaN bounds too
  if (kEpilogueFixed &&
      (static_cast<int32_t>(e->bias_kind) != kFixedBias || (e->residual != nullptr) != kFixedResidual ||
       activation != kFixedActivation || clamp != kFixedClamp))
    return STRATA_C(INVALID_ARGUMENT);  // the op spec fixes another epilogue
  if (g.M == 0 || g.N == 0) return STRATA_C(OK);
  const int64_t c_floats = extent(g.M, g.N, g.ldc) + 1;
  if (e->bias_kind != STRATA_C(BIAS_NONE)) {
    const bool per_row = e->bias_kind == STRATA_C(BIAS_PER_ROW);
    if (e->bias == nullptr) return STRATA_C(NULL_POINTER);
    if (overlap(e->bias, per_row ? g.M : g.N, g.C, c_floats)) return STRATA_C(INVALID_ARGUMENT);
    post->bias = e->bias;
    post->bias_per_row = per_row;
  }
  if (e->residual != nullptr) {
    if (e->ldr < g.N) return STRATA_C(INVALID_LEADING_DIM);
    const int64_t residual_floats = extent(g.M, g.N, e->ldr);
    if (residual_floats < 0) return STRATA_C(SIZE_OVERFLOW);
    if (overlap(e->residual, residual_floats + 1, g.C, c_floats)) return STRATA_C(INVALID_ARGUMENT);
    post->residual = e->residual;
    post->ldr = e->ldr;
  }
  post->activation = static_cast<Activation>(activation);
  post->clamp = clamp;
  post->clamp_min = e->clamp_min;
  post->clamp_max = e->clamp_max;
  return STRATA_C(OK);
}

// A strided batch's arguments: `count` products of `first`'s shape, product i's operands strides[0..2] * i elements
// past first's A, B and C. Checked in order: the count, the strides, the first product (check()), C's products apart
// from each other, and every operand's last product within reach of 64-bit byte offsets. A batch of 0 is valid.
STRATA_X(status) check_batch(const Gemm& first, int64_t count, const int64_t strides[3]) {
  if (count < 0) return STRATA_C(INVALID_SIZE);
  if (strides[0] < 0 || strides[1] < 0 || strides[2] < 0) return STRATA_C(INVALID_ARGUMENT);
  if (count == 0) return STRATA_C(OK);
  if (const STRATA_X(status) s = check(first); s != STRATA_C(OK)) return s;
  if (count == 1 || first.M == 0 || first.N == 0) return STRATA_C(OK);
  const Extents extents = stored_extents(first);
  if (strides[2] < extents.of[2]) return STRATA_C(INVALID_ARGUMENT);
  for (int i = 0; i < 3; ++i) {
    int64_t last = 0, bytes = 0;
    if (__builtin_mul_overflow(count - 1, strides[i], &last) || __builtin_add_overflow(last, extents.of[i], &last) ||
        __builtin_mul_overflow(last, static_cast<int64_t>(sizeof(float)), &bytes))
      return STRATA_C(SIZE_OVERFLOW);
  }
  return STRATA_C(OK);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_CHECKS_H_
