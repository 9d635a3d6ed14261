// What dispatch.cpp and the kernel files share: the launch parameters and one launcher per kernel. Plain C++ (no
// device code), so the dispatcher compiles with the host compiler.
#ifndef {{PACKAGE_UPPER}}_INTERNAL_H_
#define {{PACKAGE_UPPER}}_INTERNAL_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

namespace {{PACKAGE}}_detail {

// A fused epilogue, applied to each element of C after alpha * sum + beta * C (the API's epilogue_t, checked):
// the bias, the residual, the activation, then the clamp.
struct EpilogueParams {
  const float* bias;      // null: none
  int32_t bias_per_row;   // 1: bias[r] to row r; 0: bias[c] to column c
  const float* residual;  // null: none; else M x N row-major with leading dimension ldr
  int64_t ldr;
  int32_t activation;  // the API's activation values: 0 none, 1 ReLU, 2 GELU (tanh), 3 GELU (erf), 4 SiLU
  int32_t clamp;       // 1: clamp to [clamp_min, clamp_max]
  float clamp_min, clamp_max;
};

// A convolution's implicit A (the conv2d calls): row m of A is output pixel m of batch x out_h x out_w, column k is
// filter tap k / in_c (row-major over kernel_h x kernel_w) at input channel k % in_c, and A holds the input pixel
// the tap covers, or zero in the padding. The dispatcher checks that every extent, the padded input's included, and
// K fit in 32 bits, so the kernels index within an image in 32-bit arithmetic.
struct ConvParams {
  int32_t in_h, in_w, in_c;  // the input, NHWC
  int32_t out_h, out_w;
  int32_t kernel_w;  // kernel_h only bounds k
  int32_t stride_h, stride_w, pad_h, pad_w, dilation_h, dilation_w;
};

// Everything a block needs, passed by value as the kernel argument. Index arithmetic is 64-bit throughout.
struct GemmParams {
  int64_t M, N, K;
  const void* A;  // device pointers; element types are fixed by the operator ({{A_TYPE}} A, {{B_TYPE}} B)
  int64_t lda;
  const void* B;
  int64_t ldb;
  float* C;
  int64_t ldc;
  float alpha, beta;
  float* partial;        // split-K: M x N partial sums per split, or null to write C directly
  int64_t k_per_split;   // a multiple of the block's k tile (K itself without split-K)
  int64_t m_tiles, n_tiles;  // block tiles along M and N; gridDim.x = m_tiles * n_tiles, gridDim.z = splits
  int64_t persistent_blocks;  // wgmma kernels: blocks to launch at most (SMs x blocks per SM), each looping over tiles
  unsigned int* tile_counters;  // wgmma kernels under split-K: one zeroed counter per tile (same-launch reduction)
  int32_t has_epilogue;         // 0: C = alpha * sum + beta * C alone, and `epilogue` is not read
  EpilogueParams epilogue;
  // A strided batch: product i (blockIdx.y) reads A + i * stride_a and B + i * stride_b and writes C + i * stride_c
  // (elements), with bias + i * stride_bias and residual + i * stride_residual, and under split-K its own
  // splits * M * N partial sums. products = gridDim.y: 1 for a single GEMM (and always for a wgmma kernel).
  int64_t products;
  int64_t stride_a, stride_b, stride_c, stride_bias, stride_residual;
  // 1: A is a convolution's, gathered from the input at p.A (lda and stride_a unused); only convolution packages
  // build the gathering kernels.
  int32_t gather;
  ConvParams conv;
};

// Launches kernel `id` on `stream`: mma.sync and CUDA-core kernels with gridDim (m_tiles * n_tiles, products,
// splits), wgmma kernels with p.persistent_blocks blocks over every tile and split. `aligned`: A and B rows start on
// 16-byte boundaries (cp.async of whole chunks; tensor maps); otherwise the element-wise variant runs, and a wgmma
// kernel, which has none, is never asked to.
{{#KERNEL}}cudaError_t launch_{{NAME}}(const GemmParams& p, int splits, bool aligned, cudaStream_t stream);
{{/KERNEL}}
// C = alpha * (sum of the splits' partial sums, in split order) + beta * C, then the epilogue, for each of the
// launch's products: deterministic, unlike atomics.
cudaError_t launch_splitk_reduce(const GemmParams& p, int splits, cudaStream_t stream);

// The transpose of `count` matrices of `element_bytes` (2 or 4) each: matrix i, `rows` x `cols` at
// src + i * src_stride elements (leading dimension ld_src), to dst + i * dst_stride as `cols` x `rows` with leading
// dimension ld_dst. It turns an operand stored the other way into the layout the GEMM kernels read.
cudaError_t launch_transpose(const void* src, int64_t ld_src, int64_t src_stride, int64_t rows, int64_t cols,
                             void* dst, int64_t ld_dst, int64_t dst_stride, int64_t count, int element_bytes,
                             cudaStream_t stream);

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_INTERNAL_H_
