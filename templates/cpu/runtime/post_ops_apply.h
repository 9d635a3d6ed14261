// The post-ops (post_ops.h) applied to a block of C: plain loops over blocks of a row that the compiler vectorizes
// with the ISA's flags of the kernel file that includes this (kernel files are built with -O3), and the activations
// written branch-free for that. Fixed text, copied verbatim into every CPU package. The approximations must not be
// compiled with -ffast-math, which folds away the rounding in exp_clamped.
#ifndef STRATA_POST_OPS_APPLY_H_
#define STRATA_POST_OPS_APPLY_H_

#include <cstdint>
#include <cstring>
#include <limits>

#include "post_ops.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

inline float float_of_bits(uint32_t bits) {
  float x;
  std::memcpy(&x, &bits, sizeof x);
  return x;
}
inline uint32_t bits_of(float x) {
  uint32_t bits;
  std::memcpy(&bits, &x, sizeof x);
  return bits;
}

// e^x within 2 ulp for x in [-87.3, 88.3], and x clamped to that range first, so that 2^n below stays a finite
// normal float. x = n ln 2 + r with |r| <= ln(2) / 2, e^x = 2^n e^r, e^r by the degree-7 polynomial of Cephes'
// expf. n is x log2(e) rounded by adding 1.5 * 2^23, where a float's unit is 1: n is then the sum's low mantissa
// bits, and no float-to-integer conversion ever meets a NaN (a NaN x stays NaN).
inline float exp_clamped(float x) {
  x = x < -87.3f ? -87.3f : x;
  x = x > 88.3f ? 88.3f : x;
  constexpr float kShifter = 12582912.0f;  // 1.5 * 2^23
  const float shifted = x * 1.44269504089f + kShifter;
  const float n = shifted - kShifter;
  const float r = (x - n * 0.693359375f) - n * -2.12194440e-4f;  // ln 2 in two parts: n * the first is exact
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  const uint32_t biased = bits_of(shifted) - bits_of(kShifter) + 127u;  // n + 127, in [1, 254]
  return e_r * float_of_bits(biased << 23);
}

// erfc(z) for z >= 0 with a relative error below 1.2e-7: the Chebyshev fit of Numerical Recipes' erfcc.
inline float erfc_nonnegative(float z) {
  const float t = 1.0f / (1.0f + 0.5f * z);
  float p = 0.17087277f;
  p = p * t - 0.82215223f;
  p = p * t + 1.48851587f;
  p = p * t - 1.13520398f;
  p = p * t + 0.27886807f;
  p = p * t - 0.18628806f;
  p = p * t + 0.09678418f;
  p = p * t + 0.37409196f;
  p = p * t + 1.00002368f;
  p = p * t - 1.26551223f;
  return t * exp_clamped(p - z * z);
}

// 1 / (1 + e^-y) from e = e^-|y| <= 1, which never overflows: 1 / (1 + e) for y >= 0, e / (1 + e) below.
inline float sigmoid(float y) {
  const float e = exp_clamped(y < 0.0f ? y : -y);
  const float r = 1.0f / (1.0f + e);
  return y < 0.0f ? e * r : r;
}

template <Activation kActivation>
inline float activate(float x) {
  if constexpr (kActivation == Activation::kRelu) {
    return x < 0.0f ? 0.0f : x;  // a NaN stays NaN
  } else if constexpr (kActivation == Activation::kGeluTanh) {
    // x (1 + tanh(u)) / 2 = x / (1 + e^(-2u)), u = sqrt(2 / pi) (x + 0.044715 x^3)
    return x * sigmoid(1.59576912161f * (x + 0.044715f * x * x * x));
  } else if constexpr (kActivation == Activation::kGeluErf) {
    // x (1 + erf(x / sqrt 2)) / 2 = x erfc(-x / sqrt 2) / 2, with erfc(-w) = 2 - erfc(w): erfc of a non-negative
    // argument where x < 0, so that the small values keep their relative accuracy.
    const float w = x * -0.70710678118f;
    const float e = erfc_nonnegative(w < 0.0f ? -w : w);
    return 0.5f * x * (w < 0.0f ? 2.0f - e : e);
  } else if constexpr (kActivation == Activation::kSilu) {
    return x * sigmoid(x);
  } else {
    return x;
  }
}

// A row is worked in blocks of kPostBlock elements, each by one loop of fixed trip count with no branches, which the
// compiler turns into whole vectors: a loop over the row itself peels and finishes in scalar code, which on C's short
// rows (N = 16 to 128 in graph and convolution layers) is most of its elements. A missing bias or residual adds
// kZeros and a missing clamp is one to +-infinity, so that every block runs the same loop. A row's last, partial
// block runs it on a zero-padded copy.
constexpr int64_t kPostBlock = 16;
alignas(64) const float kZeros[kPostBlock] = {};

template <Activation kActivation>
inline void post_full_block(float* __restrict c, const float* __restrict bias, const float* __restrict residual,
                            float row_bias, float low, float high) {
  for (int64_t t = 0; t < kPostBlock; ++t) {
    const float x = activate<kActivation>(c[t] + row_bias + bias[t] + residual[t]);
    const float y = x < low ? low : x;
    c[t] = y > high ? high : y;
  }
}

// n < kPostBlock floats from src into block, zeros after them.
inline void load_partial(const float* src, int64_t n, float* block) {
  for (int64_t t = 0; t < kPostBlock; ++t) block[t] = 0.0f;
  std::memcpy(block, src, sizeof(float) * static_cast<size_t>(n));
}

// One row of cols elements: adds the column bias (or the row's) and the residual's row, then activates and clamps.
template <Activation kActivation>
inline void post_row(const PostOps& post, float* c, const float* column_bias, float row_bias, const float* residual,
                     int64_t cols) {
  const float low = post.clamp ? post.clamp_min : -std::numeric_limits<float>::infinity();
  const float high = post.clamp ? post.clamp_max : std::numeric_limits<float>::infinity();
  for (int64_t j = 0; j < cols; j += kPostBlock) {
    const float* bias = column_bias != nullptr ? column_bias + j : kZeros;
    const float* addend = residual != nullptr ? residual + j : kZeros;
    if (cols - j >= kPostBlock) {
      post_full_block<kActivation>(c + j, bias, addend, row_bias, low, high);
      continue;
    }
    const int64_t n = cols - j;
    float x[kPostBlock], bias_copy[kPostBlock], addend_copy[kPostBlock];
    load_partial(c + j, n, x);
    load_partial(bias, n, bias_copy);
    load_partial(addend, n, addend_copy);
    post_full_block<kActivation>(x, bias_copy, addend_copy, row_bias, low, high);
    std::memcpy(c + j, x, sizeof(float) * static_cast<size_t>(n));
  }
}

template <Activation kActivation>
void post_block(const PostOps& post, float* c, int64_t rows, int64_t cols) {
  const int64_t offset = c - post.c, row = offset / post.ldc, column = offset - row * post.ldc;
  const float* column_bias = post.bias != nullptr && !post.bias_per_row ? post.bias + column : nullptr;
  for (int64_t i = 0; i < rows; ++i) {
    const float row_bias = post.bias != nullptr && post.bias_per_row ? post.bias[row + i] : 0.0f;
    const float* residual = post.residual == nullptr ? nullptr : post.residual + (row + i) * post.ldr + column;
    post_row<kActivation>(post, c + i * post.ldc, column_bias, row_bias, residual, cols);
  }
}

// Applies `post` to rows x cols of C from c on (see PostFn). A package whose op spec fixes the epilogue
// (kEpilogueFixed) carries its activation's loop alone.
template <bool kFixed = kEpilogueFixed>
inline void apply_post_ops(const PostOps& post, float* c, int64_t rows, int64_t cols) {
  if constexpr (kFixed) {
    post_block<static_cast<Activation>(kFixedActivation)>(post, c, rows, cols);
    return;
  }
  switch (post.activation) {
    case Activation::kRelu: return post_block<Activation::kRelu>(post, c, rows, cols);
    case Activation::kGeluTanh: return post_block<Activation::kGeluTanh>(post, c, rows, cols);
    case Activation::kGeluErf: return post_block<Activation::kGeluErf>(post, c, rows, cols);
    case Activation::kSilu: return post_block<Activation::kSilu>(post, c, rows, cols);
    case Activation::kNone: break;
  }
  post_block<Activation::kNone>(post, c, rows, cols);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_POST_OPS_APPLY_H_
