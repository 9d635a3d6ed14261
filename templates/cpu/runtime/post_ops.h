// A call's fused epilogue, the post-ops: what is applied to each element of C after alpha op(A) op(B) + beta C,
//   C[i][j] = clamp(activation(C[i][j] + bias + residual[i][j])),
// bias being bias[j] (per column, a linear layer's) or bias[i] (per row). The dispatcher applies them to each tile
// or strip of C right after the k slice that finishes it, while it is still in the cache (see finish in
// dispatch_direct.h); the kernel files compile them with their ISA's flags (post_ops_apply.h). Fixed text, copied
// verbatim into every CPU package; shared by the dispatcher and the kernel files.
#ifndef STRATA_POST_OPS_H_
#define STRATA_POST_OPS_H_

#include <cstdint>

#include "config.h"

namespace STRATA_PACKAGE_INTERNAL {

// The activations, numbered as the C API numbers them (its <name>_activation).
enum class Activation : int32_t { kNone = 0, kRelu = 1, kGeluTanh = 2, kGeluErf = 3, kSilu = 4 };
constexpr int32_t kActivationCount = 5;

struct PostOps {
  // C's first element and row stride: a tile's row and column are its offset from here.
  const float* c = nullptr;
  int64_t ldc = 0;
  const float* bias = nullptr;      // none where null
  bool bias_per_row = false;        // bias[i] for row i; else bias[j] for column j
  const float* residual = nullptr;  // M x N, ldr apart; none where null
  int64_t ldr = 0;
  Activation activation = Activation::kNone;
  bool clamp = false;  // then min(max(x, clamp_min), clamp_max), last
  float clamp_min = 0.0f, clamp_max = 0.0f;
};

// Applies `post` to rows x cols of C from c on (row stride post.ldc).
using PostFn = void (*)(const PostOps& post, float* c, int64_t rows, int64_t cols);

}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_POST_OPS_H_
