// What dispatch.cpp and the kernel files share: the launch parameters and one launcher per kernel. Plain C++ (no
// device code), so the dispatcher compiles with the host compiler.
#ifndef {{PACKAGE_UPPER}}_INTERNAL_H_
#define {{PACKAGE_UPPER}}_INTERNAL_H_

#include <cuda_runtime_api.h>
#include <stdint.h>

namespace {{PACKAGE}}_detail {

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
};

// Launches kernel `id` on `stream`: mma.sync and CUDA-core kernels with gridDim (m_tiles * n_tiles, 1, splits), wgmma
// kernels with p.persistent_blocks blocks over every tile and split. `aligned`: A and B rows start on 16-byte
// boundaries (cp.async of whole chunks; tensor maps); otherwise the element-wise variant runs, and a wgmma kernel,
// which has none, is never asked to.
{{#KERNEL}}cudaError_t launch_{{NAME}}(const GemmParams& p, int splits, bool aligned, cudaStream_t stream);
{{/KERNEL}}
// C = alpha * (sum of the splits' partial sums, in split order) + beta * C: deterministic, unlike atomics.
cudaError_t launch_splitk_reduce(const GemmParams& p, int splits, cudaStream_t stream);

}  // namespace {{PACKAGE}}_detail

#endif  // {{PACKAGE_UPPER}}_INTERNAL_H_
