// wgmma kernel experiments on a Hopper GPU: instantiates the H100 fp16 example's wgmma kernel template
// (src/wgmma_kernels.cuh) with several block shapes, checks each against cuBLAS on edge shapes (beta 0 over NaN,
// beta != 0, ldc > N, split-K reduced in the same launch), then times each against cuBLAS (cublasGemmEx, fp16 in, fp32
// accumulate and out), interleaved per shape, medians of CUDA-event timings on random data. A calibration aid for
// the model, not part of any package. Build and run from the repository root on an sm_90 GPU:
//   nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a tools/cuda_wgmma_variants.cu -lcublas -o /tmp/w
//   /tmp/w [--reps R] [--csv FILE] [M,N,K ...]
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../emitted_examples/strata_hgemm_tc_h100/src/wgmma_kernels.cuh"

namespace W = strata_hgemm_tc_h100_detail;

namespace {

#define CHECK_CUDA(x)                                                                       \
  do {                                                                                      \
    cudaError_t e_ = (x);                                                                   \
    if (e_ != cudaSuccess) {                                                                \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                         \
    }                                                                                       \
  } while (0)

struct Variant {
  const char* name;
  int block_m, block_n;
  cudaError_t (*launch)(const W::GemmParams&, int, int64_t, cudaStream_t);
};

template <int C, int BN, int S, bool SW>
Variant make(const char* name) {
  using T = W::WgmmaTiles<C, BN, S, SW>;
  return Variant{name, T::kBlockM, T::kBlockN, W::launch_wgmma<C, BN, S, 8, SW>};
}

const Variant kVariants[] = {
    make<2, 256, 4, false>("c2_n256_s4"),  make<2, 128, 6, false>("c2_n128_s6"),
    make<1, 256, 4, false>("c1_n256_s4"),  make<1, 128, 7, false>("c1_n128_s7"),
    make<1, 64, 8, false>("c1_n64_s8"),    make<1, 16, 8, true>("sw_c1_n16_s8"),
    make<1, 32, 8, true>("sw_c1_n32_s8"), make<2, 32, 6, true>("sw_c2_n32_s6"),
    make<2, 64, 6, true>("sw_c2_n64_s6"),
};

struct Buffers {
  __half *a = nullptr, *b = nullptr;
  float *c = nullptr, *ref = nullptr, *partial = nullptr;
  size_t c_elems = 0, partial_elems = 0;
};

int g_sms = 132;
cublasHandle_t g_cublas;

void fill_random(__half* dst, size_t n, unsigned seed) {
  std::vector<__half> h(n);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : h) x = __float2half(u(rng));
  CHECK_CUDA(cudaMemcpy(dst, h.data(), n * sizeof(__half), cudaMemcpyHostToDevice));
}

W::GemmParams params(int64_t M, int64_t N, int64_t K, const Buffers& buf, int64_t ldc, float alpha, float beta,
                     const Variant& v, int64_t k_per_split, float* partial) {
  W::GemmParams p{};
  p.M = M;
  p.N = N;
  p.K = K;
  p.A = buf.a;
  p.lda = K;
  p.B = buf.b;
  p.ldb = K;
  p.C = buf.c;
  p.ldc = ldc;
  p.alpha = alpha;
  p.beta = beta;
  p.partial = partial;
  p.k_per_split = k_per_split;
  p.m_tiles = (M + v.block_m - 1) / v.block_m;
  p.n_tiles = (N + v.block_n - 1) / v.block_n;
  return p;
}

void cublas_ref(int64_t M, int64_t N, int64_t K, const Buffers& buf, float* c, int64_t ldc, float alpha, float beta) {
  const cublasStatus_t s =
      cublasGemmEx(g_cublas, CUBLAS_OP_T, CUBLAS_OP_N, (int)N, (int)M, (int)K, &alpha, buf.b, CUDA_R_16F, (int)K,
                   buf.a, CUDA_R_16F, (int)K, &beta, c, CUDA_R_32F, (int)ldc, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "cublasGemmEx failed: %d\n", (int)s);
    std::exit(1);
  }
}

// Max |got - want| over the M x N window, relative to max |want|; NaN counts as failure (returns 1e30).
double compare(const std::vector<float>& got, const std::vector<float>& want, int64_t M, int64_t N, int64_t ld) {
  double err = 0, scale = 0;
  for (int64_t r = 0; r < M; ++r)
    for (int64_t c = 0; c < N; ++c) {
      const double g = got[r * ld + c], w = want[r * ld + c];
      if (!std::isfinite(g)) return 1e30;
      err = std::max(err, std::fabs(g - w));
      scale = std::max(scale, std::fabs(w));
    }
  return scale > 0 ? err / scale : err;
}

int g_failures = 0, g_checks = 0;

void check(const Variant& v, int64_t M, int64_t N, int64_t K, int64_t ldc, float beta, int splits) {
  Buffers buf;
  CHECK_CUDA(cudaMalloc(&buf.a, std::max<int64_t>(M * K, 1) * 2));
  CHECK_CUDA(cudaMalloc(&buf.b, std::max<int64_t>(N * K, 1) * 2));
  const size_t c_elems = static_cast<size_t>(std::max<int64_t>(M * ldc, 1));
  CHECK_CUDA(cudaMalloc(&buf.c, c_elems * 4));
  CHECK_CUDA(cudaMalloc(&buf.ref, c_elems * 4));
  fill_random(buf.a, M * K, 1);
  fill_random(buf.b, N * K, 2);
  std::vector<float> c0(c_elems);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.0f, 1.0f);
  for (auto& x : c0) x = beta == 0.0f ? NAN : u(rng);
  // Padding columns past N hold a marker that must survive.
  for (int64_t r = 0; r < M; ++r)
    for (int64_t c = N; c < ldc; ++c) c0[r * ldc + c] = 12345.0f;
  CHECK_CUDA(cudaMemcpy(buf.c, c0.data(), c_elems * 4, cudaMemcpyHostToDevice));
  std::vector<float> ref0 = c0;
  for (auto& x : ref0)
    if (std::isnan(x)) x = 0.0f;
  CHECK_CUDA(cudaMemcpy(buf.ref, ref0.data(), c_elems * 4, cudaMemcpyHostToDevice));
  const float alpha = 1.5f;
  cublas_ref(M, N, K, buf, buf.ref, ldc, alpha, beta);

  std::vector<float> got(c_elems), want(c_elems);
  CHECK_CUDA(cudaMemcpy(want.data(), buf.ref, c_elems * 4, cudaMemcpyDeviceToHost));
  double err = 0;
  if (splits <= 1) {
    W::GemmParams p = params(M, N, K, buf, ldc, alpha, beta, v, K, nullptr);
    CHECK_CUDA(v.launch(p, 1, g_sms, nullptr));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.data(), buf.c, c_elems * 4, cudaMemcpyDeviceToHost));
    err = compare(got, want, M, N, ldc);
    for (int64_t r = 0; r < M && err < 1; ++r)
      for (int64_t c = N; c < ldc; ++c)
        if (got[r * ldc + c] != 12345.0f) err = 1e30;
  } else {
    // Split-K in the same launch: partial sums in a workspace, a zeroed counter per tile, C written by the split
    // of each tile that finishes last.
    const int64_t k_tiles = (K + 63) / 64;
    const int64_t kps = (k_tiles + splits - 1) / splits * 64;
    const int real = static_cast<int>((K + kps - 1) / kps);
    float* partial = nullptr;
    W::GemmParams p = params(M, N, K, buf, ldc, alpha, beta, v, kps, nullptr);
    const size_t tiles = static_cast<size_t>(p.m_tiles * p.n_tiles);
    CHECK_CUDA(cudaMalloc(&partial, static_cast<size_t>(real) * M * N * 4 + tiles * 4));
    p.partial = partial;
    p.tile_counters = reinterpret_cast<unsigned int*>(partial + static_cast<size_t>(real) * M * N);
    CHECK_CUDA(cudaMemset(p.tile_counters, 0, tiles * 4));
    CHECK_CUDA(v.launch(p, real, g_sms, nullptr));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaMemcpy(got.data(), buf.c, c_elems * 4, cudaMemcpyDeviceToHost));
    err = compare(got, want, M, N, ldc);
    CHECK_CUDA(cudaFree(partial));
  }
  ++g_checks;
  const bool ok = err < 1e-4;
  if (!ok) ++g_failures;
  if (!ok || M * N * K > 1e8)
    std::printf("check %-14s %6lld x %6lld x %6lld ldc %6lld beta %.1f splits %d: err %.3g %s\n", v.name,
                (long long)M, (long long)N, (long long)K, (long long)ldc, beta, splits, err, ok ? "ok" : "FAIL");
  cudaFree(buf.a);
  cudaFree(buf.b);
  cudaFree(buf.c);
  cudaFree(buf.ref);
}

struct Shape {
  std::string category;
  int64_t M, N, K;
};

// Times every variant and cuBLAS on one shape, interleaved: round r runs each once; medians in ms.
void time_shape(const Shape& s, int reps, std::FILE* csv) {
  const int64_t M = s.M, N = s.N, K = s.K;
  Buffers buf;
  CHECK_CUDA(cudaMalloc(&buf.a, M * K * 2));
  CHECK_CUDA(cudaMalloc(&buf.b, N * K * 2));
  CHECK_CUDA(cudaMalloc(&buf.c, M * N * 4));
  CHECK_CUDA(cudaMalloc(&buf.ref, M * N * 4));
  fill_random(buf.a, M * K, 4);
  fill_random(buf.b, N * K, 5);
  const int count = static_cast<int>(sizeof(kVariants) / sizeof(kVariants[0]));
  std::vector<std::vector<float>> ms(count + 1);
  cudaEvent_t e0, e1;
  CHECK_CUDA(cudaEventCreate(&e0));
  CHECK_CUDA(cudaEventCreate(&e1));
  std::vector<double> errs(count, 0);
  for (int r = -2; r < reps; ++r) {
    for (int v = 0; v <= count; ++v) {
      CHECK_CUDA(cudaEventRecord(e0));
      if (v == count) {
        cublas_ref(M, N, K, buf, buf.ref, N, 1.0f, 0.0f);
      } else {
        W::GemmParams p = params(M, N, K, buf, N, 1.0f, 0.0f, kVariants[v], K, nullptr);
        CHECK_CUDA(kVariants[v].launch(p, 1, g_sms, nullptr));
      }
      CHECK_CUDA(cudaEventRecord(e1));
      CHECK_CUDA(cudaEventSynchronize(e1));
      float t = 0;
      CHECK_CUDA(cudaEventElapsedTime(&t, e0, e1));
      if (r >= 0) ms[v].push_back(t);
      if (r == -1 && v < count) {
        std::vector<float> got(M * N), want(M * N);
        CHECK_CUDA(cudaMemcpy(got.data(), buf.c, M * N * 4, cudaMemcpyDeviceToHost));
        cublas_ref(M, N, K, buf, buf.ref, N, 1.0f, 0.0f);
        CHECK_CUDA(cudaMemcpy(want.data(), buf.ref, M * N * 4, cudaMemcpyDeviceToHost));
        errs[v] = compare(got, want, M, N, N);
      }
    }
  }
  auto median = [](std::vector<float> x) {
    std::sort(x.begin(), x.end());
    return x[x.size() / 2];
  };
  const double flops = 2.0 * M * N * K;
  const double cublas_ms = median(ms[count]);
  std::printf("%-12s %5lld x %5lld x %5lld  cuBLAS %7.1f TF |", s.category.c_str(), (long long)M, (long long)N,
              (long long)K, flops / cublas_ms / 1e9);
  double best = 1e30;
  for (int v = 0; v < count; ++v) {
    const double t = median(ms[v]);
    best = std::min(best, t);
    std::printf(" %s %.0f%s", kVariants[v].name, flops / t / 1e9, errs[v] < 1e-4 ? "" : "!");
    if (csv)
      std::fprintf(csv, "%s,%lld,%lld,%lld,%s,%.6f,%.6f,%.4f,%.3g\n", s.category.c_str(), (long long)M, (long long)N,
                   (long long)K, kVariants[v].name, t, cublas_ms, cublas_ms / t, errs[v]);
  }
  std::printf(" | best/cuBLAS %.3f\n", cublas_ms / best);
  if (csv) std::fflush(csv);
  cudaFree(buf.a);
  cudaFree(buf.b);
  cudaFree(buf.c);
  cudaFree(buf.ref);
  cudaEventDestroy(e0);
  cudaEventDestroy(e1);
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 15;
  std::FILE* csv = nullptr;
  std::vector<Shape> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--csv" && i + 1 < argc) {
      csv = std::fopen(argv[++i], "w");
    } else if (a == "--shapes" && i + 1 < argc) {
      std::ifstream in(argv[++i]);
      std::string line;
      std::getline(in, line);
      while (std::getline(in, line)) {
        std::stringstream ss(line);
        Shape s;
        std::string f;
        std::getline(ss, s.category, ',');
        std::getline(ss, f, ',');
        s.M = std::atoll(f.c_str());
        std::getline(ss, f, ',');
        s.N = std::atoll(f.c_str());
        std::getline(ss, f, ',');
        s.K = std::atoll(f.c_str());
        if (s.K % 8 == 0 && s.M > 0 && s.N > 0) shapes.push_back(s);
      }
    } else {
      Shape s{"cli", 0, 0, 0};
      if (std::sscanf(a.c_str(), "%lld,%lld,%lld", (long long*)&s.M, (long long*)&s.N, (long long*)&s.K) == 3)
        shapes.push_back(s);
    }
  }
  CHECK_CUDA(cudaDeviceGetAttribute(&g_sms, cudaDevAttrMultiProcessorCount, 0));
  if (cublasCreate(&g_cublas) != CUBLAS_STATUS_SUCCESS) return 1;
  if (csv) std::fprintf(csv, "category,M,N,K,variant,ms,cublas_ms,speedup_vs_cublas,rel_err\n");
  const int64_t edge[][3] = {{1, 1, 8},       {1, 8, 64},      {3, 5, 8},        {65, 129, 72},
                             {127, 255, 136}, {129, 257, 200}, {200, 17, 200},   {333, 1000, 520},
                             {1024, 96, 4096}, {16, 4096, 1024}, {777, 1, 64},    {64, 64, 8}};
  for (const Variant& v : kVariants) {
    for (const auto& e : edge) check(v, e[0], e[1], e[2], e[1], 0.0f, 1);
    check(v, 130, 300, 264, 311, 0.5f, 1);
    check(v, 257, 385, 1000, 385, 0.0f, 3);
    check(v, 31, 200, 4096, 200, 1.0f, 5);
  }
  std::printf("checks: %d, failures: %d\n", g_checks, g_failures);
  for (const Shape& s : shapes) time_shape(s, reps, csv);
  if (csv) std::fclose(csv);
  return g_failures == 0 ? 0 : 1;
}
