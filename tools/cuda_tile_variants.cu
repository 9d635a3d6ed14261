// Tile experiments on a GPU: instantiates the CUDA examples' kernel templates with tiles and pipeline depths the
// model may not pick and times each (median of 10 CUDA-event timings after 3 warm-ups, zero inputs) on three shapes.
// A calibration aid for the GPU model, not part of any package. Build and run from the repository root:
//   nvcc -std=c++17 -O3 -gencode arch=compute_90,code=sm_90 tools/cuda_tile_variants.cu -o /tmp/v && /tmp/v
// `/tmp/v --tc` times only Tensor Core tiles, more of them and on more shapes (the occupancy model's calibration:
// blocks per SM, warps per sub-partition, k tile depth).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "../emitted_examples/strata_hgemm_tc_h100/src/gemm_kernels.cuh"
#include "../emitted_examples/strata_sgemm_h100/src/gemm_kernels.cuh"

namespace S = strata_sgemm_h100_detail;
namespace H = strata_hgemm_tc_h100_detail;

template <class P, class K>
float time_kernel(K kernel, P p, int bm, int bn, int threads, int smem) {
  if (smem > 48 * 1024) cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem);
  p.m_tiles = (p.M + bm - 1) / bm;
  p.n_tiles = (p.N + bn - 1) / bn;
  dim3 grid(p.m_tiles * p.n_tiles, 1, 1);
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  std::vector<float> ms;
  for (int r = 0; r < 13; ++r) {
    cudaEventRecord(a);
    kernel<<<grid, threads, smem>>>(p);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float t;
    cudaEventElapsedTime(&t, a, b);
    if (r >= 3) ms.push_back(t);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    std::printf("error %s\n", cudaGetErrorString(e));
    return -1;
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

template <int BM, int BN, int BK, int TM, int TN, int WR, int ST>
void sgemm(const char* label, S::GemmParams p) {
  using T = S::CudaCoreTiles<float, true, BM, BN, BK, TM, TN, WR, ST>;
  float ms = time_kernel(S::gemm_cuda_core<float, true, BM, BN, BK, TM, TN, WR, ST, 8, true>, p, BM, BN, T::kThreads,
                         T::kSharedBytes);
  std::printf("sgemm,%s,%lld,%lld,%lld,%d,%.4f,%.2f\n", label, (long long)p.M, (long long)p.N, (long long)p.K,
              T::kThreads, ms, 2.0 * p.M * p.N * p.K / (ms * 1e9));
}

template <int BM, int BN, int BK, int WM, int WN, int ST>
void hgemm(const char* label, H::GemmParams p) {
  using T = H::TensorCoreTiles<BM, BN, BK, WM, WN, ST>;
  float ms =
      time_kernel(H::gemm_tensor_core<BM, BN, BK, WM, WN, ST, 8, true>, p, BM, BN, T::kThreads, T::kSharedBytes);
  std::printf("hgemm,%s,%lld,%lld,%lld,%d,%.4f,%.2f\n", label, (long long)p.M, (long long)p.N, (long long)p.K,
              T::kThreads, ms, 2.0 * p.M * p.N * p.K / (ms * 1e9));
}

H::GemmParams half_params(const long long* s, void* a, void* b, void* c) {
  H::GemmParams q{};
  q.M = s[0];
  q.N = s[1];
  q.K = s[2];
  q.A = a;
  q.lda = q.K;
  q.B = b;
  q.ldb = q.K;
  q.C = static_cast<float*>(c);
  q.ldc = q.N;
  q.alpha = 1;
  q.beta = 0;
  q.partial = nullptr;
  q.k_per_split = q.K;
  return q;
}

// Tensor Core tiles over shapes from a full machine to a fraction of one wave.
void tensor_core_set(void* a, void* b, void* c) {
  const long long shapes[][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}, {2000, 3072, 768},
                                 {1000, 3072, 768},  {512, 768, 768},    {2000, 768, 3072}};
  for (auto& s : shapes) {
    const H::GemmParams q = half_params(s, a, b, c);
    hgemm<64, 128, 256, 32, 64, 2>("64x128x256_w32x64_s2", q);
    hgemm<128, 128, 32, 64, 64, 3>("128x128x32_w64x64_s3", q);
    hgemm<128, 128, 64, 64, 64, 3>("128x128x64_w64x64_s3", q);
    hgemm<128, 128, 64, 64, 64, 2>("128x128x64_w64x64_s2", q);
    hgemm<128, 128, 128, 64, 64, 2>("128x128x128_w64x64_s2", q);
    hgemm<128, 256, 32, 64, 64, 3>("128x256x32_w64x64_s3", q);
    hgemm<128, 256, 64, 64, 64, 2>("128x256x64_w64x64_s2", q);
    hgemm<128, 256, 64, 64, 64, 3>("128x256x64_w64x64_s3", q);
    hgemm<256, 128, 64, 64, 64, 2>("256x128x64_w64x64_s2", q);
    hgemm<64, 128, 64, 32, 64, 3>("64x128x64_w32x64_s3", q);
    hgemm<64, 64, 64, 32, 32, 3>("64x64x64_w32x32_s3", q);
    hgemm<128, 64, 64, 64, 32, 3>("128x64x64_w64x32_s3", q);
    hgemm<48, 256, 128, 48, 64, 2>("48x256x128_w48x64_s2", q);
    hgemm<256, 96, 16, 64, 48, 2>("256x96x16_w64x48_s2", q);
    hgemm<512, 32, 64, 128, 32, 2>("512x32x64_w128x32_s2", q);
    hgemm<48, 64, 256, 48, 64, 2>("48x64x256_w48x64_s2", q);
  }
}

int main(int argc, char** argv) {
  const long long shapes[][3] = {{4096, 4096, 4096}, {2000, 3072, 768}, {512, 768, 768}};
  void *a, *b, *c;
  const long long bytes = 8192ll * 8192 * 4;
  cudaMalloc(&a, bytes);
  cudaMalloc(&b, bytes);
  cudaMalloc(&c, bytes);
  cudaMemset(a, 0, bytes);
  cudaMemset(b, 0, bytes);
  std::printf("kind,variant,M,N,K,threads,ms,tflops\n");
  if (argc > 1 && std::string(argv[1]) == "--tc") {
    tensor_core_set(a, b, c);
    return 0;
  }
  for (auto& s : shapes) {
    S::GemmParams p{};
    p.M = s[0];
    p.N = s[1];
    p.K = s[2];
    p.A = a;
    p.lda = p.K;
    p.B = b;
    p.ldb = p.N;
    p.C = static_cast<float*>(c);
    p.ldc = p.N;
    p.alpha = 1;
    p.beta = 0;
    p.partial = nullptr;
    p.k_per_split = p.K;
    sgemm<128, 128, 32, 8, 16, 8, 2>("128x128x32_t8x16_w8_s2", p);
    sgemm<128, 128, 32, 8, 16, 8, 3>("128x128x32_t8x16_w8_s3", p);
    sgemm<128, 128, 16, 8, 16, 8, 3>("128x128x16_t8x16_w8_s3", p);
    sgemm<128, 128, 16, 8, 16, 8, 4>("128x128x16_t8x16_w8_s4", p);
    sgemm<128, 128, 32, 8, 8, 4, 2>("128x128x32_t8x8_w4_s2", p);
    sgemm<128, 128, 32, 8, 8, 4, 3>("128x128x32_t8x8_w4_s3", p);
    sgemm<128, 128, 16, 8, 8, 4, 4>("128x128x16_t8x8_w4_s4", p);
    sgemm<128, 256, 16, 8, 16, 8, 3>("128x256x16_t8x16_w8_s3", p);
    sgemm<64, 128, 32, 8, 16, 8, 3>("64x128x32_t8x16_w8_s3", p);
    sgemm<128, 64, 32, 8, 8, 8, 3>("128x64x32_t8x8_w8_s3", p);
    H::GemmParams q{};
    q.M = s[0];
    q.N = s[1];
    q.K = s[2];
    q.A = a;
    q.lda = q.K;
    q.B = b;
    q.ldb = q.K;
    q.C = static_cast<float*>(c);
    q.ldc = q.N;
    q.alpha = 1;
    q.beta = 0;
    q.partial = nullptr;
    q.k_per_split = q.K;
    hgemm<64, 128, 256, 32, 64, 2>("64x128x256_w32x64_s2", q);
    hgemm<128, 128, 32, 64, 64, 3>("128x128x32_w64x64_s3", q);
    hgemm<128, 128, 32, 64, 64, 4>("128x128x32_w64x64_s4", q);
    hgemm<128, 128, 64, 64, 64, 3>("128x128x64_w64x64_s3", q);
    hgemm<128, 256, 32, 64, 64, 3>("128x256x32_w64x64_s3", q);
    hgemm<128, 256, 32, 64, 64, 4>("128x256x32_w64x64_s4", q);
    hgemm<256, 128, 32, 64, 64, 4>("256x128x32_w64x64_s4", q);
    hgemm<128, 128, 32, 32, 64, 4>("128x128x32_w32x64_s4", q);
  }
  return 0;
}
