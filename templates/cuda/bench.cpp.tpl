// Benchmark of {{PACKAGE}} against cuBLAS ({{CUBLAS_CALL}}), the only file of the package that uses cuBLAS.
// Usage: {{PACKAGE}}_bench [--reps R] [--warmup W] [--kernel ID] [--oracle] [--layout XY] [--batch B] [--csv FILE]
//                          [M,N,K ...]
// Prints CSV: per shape the plan, the median time of each library over R single calls (CUDA events on one stream),
// TFLOP/s, the speedup of {{PACKAGE}} over cuBLAS, the model's prediction, the largest difference between the two
// results relative to the largest |C| (a check that both computed the same thing), then the time per call of R
// calls back to back and of a CUDA graph of R calls replayed, for both libraries, and with --oracle the fastest
// kernel forced by id (its split-K from the model) and the dispatcher's pick over it. With --layout or --batch it
// times {{PACKAGE}}_gemm_batched against cublasGemmStridedBatchedEx with the same transposes, products packed one
// after another.
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <initializer_list>
#include <random>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "{{PACKAGE}}.h"

namespace {

using AElem = {{A_CTYPE}};
using BElem = {{B_CTYPE}};
constexpr bool kBRowMajor = {{B_ROW_MAJOR}};

struct Shape {
  std::string category;
  int64_t M, N, K;
};

struct Options {
  int reps = 20, warmup = 3, kernel = -1;
  bool oracle = false;
  std::string layout;  // "" (the plain call), or op(A) op(B) as N / T, e.g. "NT"
  int64_t batch = 0;   // 0: the plain call; else products per call
  std::vector<Shape> shapes;
  bool calls() const { return !layout.empty() || batch > 0; }
};

bool parse_shape(const std::string& text, const std::string& category, Shape* s) {
  long long m = 0, n = 0, k = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%lld,%lld,%lld%c", &m, &n, &k, &tail) != 3 || m < 0 || n < 0 || k < 0) return false;
  *s = Shape{category, m, n, k};
  return true;
}

bool read_csv(const std::string& path, std::vector<Shape>* shapes) {
  std::ifstream in(path);
  if (!in) return false;
  std::string line;
  std::getline(in, line);  // header: category,M,N,K
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const size_t comma = line.find(',');
    Shape s;
    if (comma == std::string::npos || !parse_shape(line.substr(comma + 1), line.substr(0, comma), &s)) return false;
    shapes->push_back(s);
  }
  return true;
}

int usage() {
  std::fprintf(stderr,
               "usage: {{PACKAGE}}_bench [--reps R] [--warmup W] [--kernel ID] [--oracle] [--layout XY] [--batch B]\n"
               "       [--csv FILE] [M,N,K ...]\n"
               "  --csv FILE   read shapes from FILE, header category,M,N,K\n"
               "  --kernel ID  force kernel ID (split-K still from the model) instead of the dispatcher\n"
               "  --oracle     also time every kernel forced by id and report the fastest\n"
               "  --layout XY  op(A) and op(B), N or T each (NT: B stored N x K), through gemm_batched\n"
               "  --batch B    B products per call, strided one after another, through gemm_batched\n"
               "  without shapes: M in 1..8192 at N = K = 4096 (where the dispatcher moves from CUDA cores to\n"
               "  Tensor Cores, when the package has both), then square sizes\n");
  return 2;
}

bool parse(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--oracle") {
      o->oracle = true;
      continue;
    }
    if (arg == "--reps" || arg == "--warmup" || arg == "--kernel" || arg == "--csv" || arg == "--layout" ||
        arg == "--batch") {
      if (i + 1 >= argc) return false;
      const std::string value = argv[++i];
      if (arg == "--csv") {
        if (!read_csv(value, &o->shapes)) return false;
        continue;
      }
      if (arg == "--layout") {
        if (value.size() != 2 || (value[0] != 'N' && value[0] != 'T') || (value[1] != 'N' && value[1] != 'T'))
          return false;
        o->layout = value;
        continue;
      }
      if (arg == "--batch") {
        char* end = nullptr;
        o->batch = std::strtoll(value.c_str(), &end, 10);
        if (*end != '\0' || o->batch < 1) return false;
        continue;
      }
      char* end = nullptr;
      const long v = std::strtol(value.c_str(), &end, 10);
      if (*end != '\0' || v < (arg == "--kernel" ? 0 : 1)) return false;
      (arg == "--reps" ? o->reps : arg == "--warmup" ? o->warmup : o->kernel) = static_cast<int>(v);
      continue;
    }
    Shape s;
    if (!parse_shape(arg, "cli", &s)) return false;
    o->shapes.push_back(s);
  }
  if (o->shapes.empty()) {
    for (int64_t m : {1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192})
      o->shapes.push_back(Shape{"m_sweep", m, 4096, 4096});
    for (int64_t n : {256, 512, 1024, 2048, 4096, 8192}) o->shapes.push_back(Shape{"square", n, n, n});
  }
  return true;
}

template <typename T>
void fill(std::mt19937& rng, T* x) {
  if constexpr (std::is_same_v<T, float>) {
    *x = std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng);
  } else {
    // Uniform-ish in (-1, 1) in binary16: a random sign and mantissa, exponent 2^-1 .. 2^-4.
    const uint32_t r = rng();
    *x = static_cast<uint16_t>(((r & 1) << 15) | (((r >> 1) % 4 + 11) << 10) | ((r >> 3) & 0x3ff));
  }
}

template <typename T>
T* device_random(std::mt19937& rng, size_t count) {
  std::vector<T> host(count);
  for (auto& x : host) fill(rng, &x);
  T* d = nullptr;
  if (cudaMalloc(reinterpret_cast<void**>(&d), count * sizeof(T)) != cudaSuccess) return nullptr;
  if (cudaMemcpy(d, host.data(), count * sizeof(T), cudaMemcpyHostToDevice) != cudaSuccess) {
    cudaFree(d);
    return nullptr;
  }
  return d;
}

void release(std::initializer_list<void*> buffers) {
  for (void* p : buffers) (void)cudaFree(p);
}

// Median milliseconds of `reps` calls of f, each timed with its own pair of events.
template <typename F>
double median_ms(F f, int warmup, int reps, cudaStream_t stream, bool* ok) {
  for (int i = 0; i < warmup; ++i) *ok = f() && *ok;
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  std::vector<float> ms;
  for (int i = 0; i < reps; ++i) {
    cudaEventRecord(start, stream);
    *ok = f() && *ok;
    cudaEventRecord(stop, stream);
    cudaEventSynchronize(stop);
    float t = 0;
    cudaEventElapsedTime(&t, start, stop);
    ms.push_back(t);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  std::sort(ms.begin(), ms.end());
  return ms.empty() ? 0.0 : ms[ms.size() / 2];
}

// Milliseconds per call of `reps` calls of f issued back to back between one pair of events (launch gaps included
// as a caller's loop sees them), and of the same calls captured once into a CUDA graph and replayed; -1 where the
// capture fails.
template <typename F>
void per_call_ms(F f, int reps, cudaStream_t stream, bool* ok, double* back_to_back, double* graph) {
  cudaEvent_t start, stop;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  float t = 0;
  cudaEventRecord(start, stream);
  for (int i = 0; i < reps; ++i) *ok = f() && *ok;
  cudaEventRecord(stop, stream);
  cudaEventSynchronize(stop);
  cudaEventElapsedTime(&t, start, stop);
  *back_to_back = static_cast<double>(t) / reps;
  *graph = -1;
  cudaGraph_t g = nullptr;
  cudaGraphExec_t exec = nullptr;
  bool captured = cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) == cudaSuccess;
  if (captured) {
    for (int i = 0; i < reps; ++i) captured = f() && captured;
    captured = cudaStreamEndCapture(stream, &g) == cudaSuccess && captured;
  }
  if (captured && cudaGraphInstantiate(&exec, g, 0) == cudaSuccess) {
    cudaGraphLaunch(exec, stream);  // warm-up replay
    cudaEventRecord(start, stream);
    cudaGraphLaunch(exec, stream);
    cudaEventRecord(stop, stream);
    if (cudaEventSynchronize(stop) == cudaSuccess && cudaEventElapsedTime(&t, start, stop) == cudaSuccess)
      *graph = static_cast<double>(t) / reps;
  }
  (void)cudaGetLastError();
  if (exec) cudaGraphExecDestroy(exec);
  if (g) cudaGraphDestroy(g);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!parse(argc, argv, &o)) return usage();
  if (o.calls() && (o.kernel >= 0 || o.oracle)) {
    std::fprintf(stderr, "--layout and --batch time the dispatcher's own plan: no --kernel or --oracle\n");
    return 2;
  }
  if (o.kernel >= {{PACKAGE}}_kernel_count()) {
    std::fprintf(stderr, "--kernel %d: the package has %d kernels\n", o.kernel, {{PACKAGE}}_kernel_count());
    return 2;
  }
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "{{PACKAGE}}_bench: no CUDA device\n");
    return 1;
  }
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  std::fprintf(stderr, "device 0: %s (sm_%d%d, %d SMs)\n", prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) {
    std::fprintf(stderr, "{{PACKAGE}}_bench: cublasCreate failed\n");
    return 1;
  }
  cublasSetStream(handle, stream);
  std::mt19937 rng(2024);
  std::printf("category,M,N,K,kernel,tensor_cores,split_k,strata_ms,strata_tflops,cublas_ms,cublas_tflops,"
              "speedup_vs_cublas,predicted_ms,max_rel_diff,strata_b2b_ms,cublas_b2b_ms,strata_graph_ms,"
              "cublas_graph_ms,oracle_kernel,oracle_ms,pick_over_oracle,layout,batch\n");
  int failures = 0;
  for (const Shape& s : o.shapes) {
    const int64_t M = s.M, N = s.N, K = s.K;
    if (M == 0 || N == 0 || K == 0) continue;
    // The operands as stored: the package's own layout, or --layout's (a transposed A is K x M, a transposed B N x K).
    const bool trans_a = o.layout.size() == 2 && o.layout[0] == 'T';
    const bool trans_b = o.layout.size() == 2 ? o.layout[1] == 'T' : !kBRowMajor;
    const int64_t batch = o.batch > 0 ? o.batch : 1;
    const int64_t lda = trans_a ? M : K, ldb = trans_b ? K : N, ldc = N;
    AElem* a = device_random<AElem>(rng, static_cast<size_t>(M * K * batch));
    BElem* b = device_random<BElem>(rng, static_cast<size_t>(K * N * batch));
    float *c = nullptr, *c_ref = nullptr, *workspace = nullptr;
    cudaMalloc(reinterpret_cast<void**>(&c), static_cast<size_t>(M * N * batch) * sizeof(float));
    cudaMalloc(reinterpret_cast<void**>(&c_ref), static_cast<size_t>(M * N * batch) * sizeof(float));
    // Forced kernels run through execute() with a workspace of their own; the dispatcher's pick is the plain call,
    // which plans (through its cache) and allocates split-K's workspace itself, as a caller's call does.
    {{PACKAGE}}_plan_t plan;
    const auto op_a = trans_a ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS;
    const auto op_b = trans_b ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS;
    if (o.kernel >= 0)
      {{PACKAGE}}_kernel_plan(o.kernel, M, N, K, &plan);
    else if (o.calls())
      {{PACKAGE}}_gemm_plan(op_a, op_b, M, N, K, batch, &plan);
    else
      {{PACKAGE}}_plan(M, N, K, &plan);
    if (o.kernel >= 0 && plan.workspace_bytes > 0)
      cudaMalloc(reinterpret_cast<void**>(&workspace), plan.workspace_bytes);
    if (!a || !b || !c || !c_ref || (o.kernel >= 0 && plan.workspace_bytes > 0 && !workspace)) {
      std::fprintf(stderr, "%lldx%lldx%lld: out of device memory, skipped\n", static_cast<long long>(M),
                   static_cast<long long>(N), static_cast<long long>(K));
      release({a, b, c, c_ref, workspace});
      (void)cudaGetLastError();
      continue;
    }
    const float alpha = 1.0f, beta = 0.0f;
    bool ok = true;
    auto strata_call = [&] {
      const {{PACKAGE}}_status status =
          o.kernel >= 0 ? {{PACKAGE}}_execute(&plan, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, workspace,
                                              plan.workspace_bytes, stream)
          : o.calls()   ? {{PACKAGE}}_gemm_batched(op_a, op_b, M, N, K, alpha, a, lda, M * K, b, ldb, K * N, beta, c,
                                                   ldc, M * N, batch, stream)
                        : {{PACKAGE}}(M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, stream);
      return status == {{PACKAGE_UPPER}}_OK;
    };
    // Row-major C = op(A) * op(B) is column-major C^T = op(B)^T * op(A)^T: cuBLAS sees B first, each operand
    // transposed in cuBLAS's terms where it is stored transposed in ours.
    auto cublas_call = [&] {
      if (!o.calls()) return {{CUBLAS_CALL}}(handle, {{CUBLAS_ARGS}}) == CUBLAS_STATUS_SUCCESS;
      return cublasGemmStridedBatchedEx(handle, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
                                        static_cast<int>(N), static_cast<int>(M), static_cast<int>(K), &alpha, b,
                                        {{CUDA_AB_TYPE}}, static_cast<int>(ldb), K * N, a, {{CUDA_AB_TYPE}},
                                        static_cast<int>(lda), M * K, &beta, c_ref, CUDA_R_32F, static_cast<int>(ldc),
                                        M * N, static_cast<int>(batch), CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS;
    };
    const double strata_ms = median_ms(strata_call, o.warmup, o.reps, stream, &ok);
    const double cublas_ms = median_ms(cublas_call, o.warmup, o.reps, stream, &ok);
    std::vector<float> x(static_cast<size_t>(M * N * batch)), y(x.size());
    cudaMemcpy(x.data(), c, x.size() * sizeof(float), cudaMemcpyDeviceToHost);
    cudaMemcpy(y.data(), c_ref, y.size() * sizeof(float), cudaMemcpyDeviceToHost);
    double diff = 0, scale = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      diff = std::max(diff, static_cast<double>(std::fabs(x[i] - y[i])));
      scale = std::max(scale, static_cast<double>(std::fabs(y[i])));
    }
    const double rel = scale > 0 ? diff / scale : diff;
    // fp32 accumulation of K products in different orders: a relative difference above this is a wrong result.
    if (!ok || !(rel <= 1e-3)) ++failures;
    double strata_b2b = 0, cublas_b2b = 0, strata_graph = 0, cublas_graph = 0;
    per_call_ms(strata_call, o.reps, stream, &ok, &strata_b2b, &strata_graph);
    per_call_ms(cublas_call, o.reps, stream, &ok, &cublas_b2b, &cublas_graph);
    // The oracle: every kernel forced by id with the model's split-K for it; kernels that refuse the call (a
    // wgmma kernel on another device) are left out.
    int oracle_id = -1;
    double oracle_ms = 0;
    for (int32_t id = 0; o.oracle && id < {{PACKAGE}}_kernel_count(); ++id) {
      {{PACKAGE}}_plan_t forced;
      float* forced_workspace = nullptr;
      if ({{PACKAGE}}_kernel_plan(id, M, N, K, &forced) != {{PACKAGE_UPPER}}_OK ||
          (forced.workspace_bytes > 0 &&
           cudaMalloc(reinterpret_cast<void**>(&forced_workspace), forced.workspace_bytes) != cudaSuccess)) {
        (void)cudaGetLastError();
        continue;
      }
      bool runs = true;
      const double t = median_ms(
          [&] {
            return {{PACKAGE}}_execute(&forced, M, N, K, alpha, a, lda, b, ldb, beta, c, ldc, forced_workspace,
                                       forced.workspace_bytes, stream) == {{PACKAGE_UPPER}}_OK;
          },
          2, o.reps / 2 > 3 ? o.reps / 2 : 3, stream, &runs);
      release({forced_workspace});
      if (runs && (oracle_id < 0 || t < oracle_ms)) {
        oracle_id = id;
        oracle_ms = t;
      }
    }
    const double flops =
        2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K) * static_cast<double>(batch);
    std::printf("%s,%lld,%lld,%lld,%d,%d,%d,%.4f,%.2f,%.4f,%.2f,%.3f,%.4f,%.2e,%.4f,%.4f,%.4f,%.4f,%d,%.4f,%.3f,%s,%lld%s\n",
                s.category.c_str(), static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                plan.kernel_id, plan.tensor_cores, plan.split_k, strata_ms, flops / (strata_ms * 1e9), cublas_ms,
                flops / (cublas_ms * 1e9), cublas_ms / strata_ms, plan.predicted_seconds * 1e3, rel, strata_b2b,
                cublas_b2b, strata_graph, cublas_graph, oracle_id, oracle_ms,
                oracle_id >= 0 ? strata_ms / oracle_ms : 0.0, o.layout.empty() ? "-" : o.layout.c_str(),
                static_cast<long long>(o.batch), ok ? "" : ",CALL_FAILED");
    std::fflush(stdout);
    release({a, b, c, c_ref, workspace});
  }
  cublasDestroy(handle);
  cudaStreamDestroy(stream);
  if (failures) std::fprintf(stderr, "{{PACKAGE}}_bench: %d shape(s) failed or disagreed with cuBLAS\n", failures);
  return failures ? 1 : 0;
}
