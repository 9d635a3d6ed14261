// Split-K reduction: C = alpha * sum_s partial[s] + beta * C and the epilogue, summing the splits in index order so
// that results do not depend on scheduling (atomics would). gridDim.y runs over the launch's products.
#include "../gemm_kernels.cuh"

namespace {{PACKAGE}}_detail {
namespace {

__global__ void __launch_bounds__(256) splitk_reduce(GemmParams p, int splits) {
  const int64_t count = p.M * p.N;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count; i += stride) {
    const int64_t r = i / p.N;
    const int64_t c = i - r * p.N;
    float sum = 0.0f;
    for (int s = 0; s < splits; ++s) sum += *partial_element(p, s, splits, r, c);
    float* out = c_element(p, r, c);
    *out = finish(p, r, c, sum, out);
  }
}

}  // namespace

cudaError_t launch_splitk_reduce(const GemmParams& p, int splits, cudaStream_t stream) {
  // Enough blocks to keep every SM busy ({{SMS}} SMs, 8 blocks of 256 threads each, over all the products); the
  // loop covers the rest.
  const int64_t per_product = (p.M * p.N + 255) / 256;
  const int64_t cap = ({{SMS}} * 8 + p.products - 1) / p.products;
  const unsigned grid_x = static_cast<unsigned>(per_product < cap ? per_product : cap);
  splitk_reduce<<<dim3(grid_x, static_cast<unsigned>(p.products), 1), 256, 0, stream>>>(p, splits);
  return cudaGetLastError();
}

}  // namespace {{PACKAGE}}_detail
