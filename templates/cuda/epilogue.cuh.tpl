// Device code that finishes an element of C, shared by every kernel of {{PACKAGE}} and the split-K reduction:
// alpha * sum + beta * C, then the fused epilogue (bias, residual, activation, clamp), and where each product of a
// strided batch lies.
#ifndef {{PACKAGE_UPPER}}_EPILOGUE_CUH_
#define {{PACKAGE_UPPER}}_EPILOGUE_CUH_

#include <stdint.h>

#include "internal.h"

namespace {{PACKAGE}}_detail {

// The product of a strided batch that a block works on: blockIdx.y in every kernel (the dispatcher runs wgmma
// kernels, whose grid is one-dimensional, on single products only).
__device__ __forceinline__ int64_t product() { return blockIdx.y; }

// The product's operands: A and B of element type T.
template <typename T>
__device__ __forceinline__ const T* product_a(const GemmParams& p) {
  return static_cast<const T*>(p.A) + product() * p.stride_a;
}
template <typename T>
__device__ __forceinline__ const T* product_b(const GemmParams& p) {
  return static_cast<const T*>(p.B) + product() * p.stride_b;
}

// Element (r, c) of the product's C, and of its partial sums from split `split` of `splits`.
__device__ __forceinline__ float* c_element(const GemmParams& p, int64_t r, int64_t c) {
  return p.C + product() * p.stride_c + r * p.ldc + c;
}
__device__ __forceinline__ float* partial_element(const GemmParams& p, int64_t split, int64_t splits, int64_t r,
                                                  int64_t c) {
  return p.partial + ((product() * splits + split) * p.M + r) * p.N + c;
}

// The epilogue of one element, in the order the API states: bias, residual, activation, clamp. The activations use
// the CUDA math library's tanhf, erff and expf (a few ulps; this file is never built with --use_fast_math), and
// each keeps a NaN a NaN, as the comparisons of ReLU and the clamp do.
__device__ __forceinline__ float apply_epilogue(const GemmParams& p, int64_t r, int64_t c, float v) {
  const EpilogueParams& e = p.epilogue;
  if (e.bias != nullptr) v += e.bias[product() * p.stride_bias + (e.bias_per_row ? r : c)];
  if (e.residual != nullptr) v += e.residual[product() * p.stride_residual + r * e.ldr + c];
  switch (e.activation) {
    case 1:
      v = v < 0.0f ? 0.0f : v;
      break;
    case 2:  // x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) / 2
      v = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
      break;
    case 3:  // x (1 + erf(x / sqrt(2))) / 2
      v = 0.5f * v * (1.0f + erff(v * 0.7071067812f));
      break;
    case 4:  // x / (1 + e^-x); e^-x overflows to infinity for x < -88, which gives -0
      v = v / (1.0f + expf(-v));
      break;
    default:
      break;
  }
  if (e.clamp) {
    v = v < e.clamp_min ? e.clamp_min : v;
    v = v > e.clamp_max ? e.clamp_max : v;
  }
  return v;
}

// C's final value at (r, c) from the product's sum; `out` is C's element there. beta == 0 must not read C (it may
// hold NaN or uninitialised memory), so `out` is read only otherwise.
__device__ __forceinline__ float finish(const GemmParams& p, int64_t r, int64_t c, float sum, const float* out) {
  const float v = p.beta == 0.0f ? p.alpha * sum : p.alpha * sum + p.beta * *out;
  return p.has_epilogue ? apply_epilogue(p, r, c, v) : v;
}

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_EPILOGUE_CUH_
