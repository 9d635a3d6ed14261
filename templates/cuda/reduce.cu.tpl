// Split-K reduction: C = alpha * sum_s partial[s] + beta * C, summing the splits in index order so that results
// do not depend on scheduling (atomics would).
#include "../gemm_kernels.cuh"

namespace {{PACKAGE}}_detail {
namespace {

__global__ void __launch_bounds__(256) splitk_reduce(GemmParams p, int splits) {
  const int64_t count = p.M * p.N;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += p.partial[s * count + i];
    const int64_t r = i / p.N;
    const int64_t c = i - r * p.N;
    float* out = p.C + r * p.ldc + c;
    *out = p.beta == 0.0f ? p.alpha * sum : p.alpha * sum + p.beta * *out;
  }
}

}  // namespace

cudaError_t launch_splitk_reduce(const GemmParams& p, int splits, cudaStream_t stream) {
  // Enough blocks to keep every SM busy ({{SMS}} SMs, 8 blocks of 256 threads each); the loop covers the rest.
  const int64_t blocks = (p.M * p.N + 255) / 256;
  const unsigned grid = static_cast<unsigned>(blocks < {{SMS}} * 8 ? blocks : {{SMS}} * 8);
  splitk_reduce<<<grid, 256, 0, stream>>>(p, splits);
  return cudaGetLastError();
}

}  // namespace {{PACKAGE}}_detail
