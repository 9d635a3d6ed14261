// The dispatcher of {{PACKAGE}}: argument checks, the cost-model plan for each shape (Tensor Core or CUDA-core
// kernel, tiles, split-K, grid), the launches on the caller's stream, and CUDA errors turned into statuses.
// Host code only: it compiles with the host C++ compiler and links the CUDA runtime.
#include "{{PACKAGE}}.h"

#include <cuda_runtime_api.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <mutex>
#include <new>

// The model in namespaces of this package's own (see cost_model.h), named as the generator names them.
#define STRATA_MODEL_NAMESPACE {{PACKAGE}}_model
#define STRATA_GPU_NAMESPACE {{PACKAGE}}_gpu_model
#include "cost_model.h"
#include "gpu_model.h"
#include "internal.h"

namespace {

namespace strata_model = ::{{PACKAGE}}_model;
namespace strata_gpu = ::{{PACKAGE}}_gpu_model;
using namespace {{PACKAGE}}_detail;

constexpr int64_t kSms = {{SMS}};        // streaming multiprocessors of the {{ARCH_NAME}} descriptor
constexpr int kMaxSplit = 64;            // split-K never exceeds this (gridDim.z, workspace size)
constexpr int64_t kMaxGridX = 2147483647;  // gridDim.x limit of compute capability 3.0 and later

thread_local int32_t g_last_cuda_error = 0;

// How the package was made, for {{PACKAGE}}_provenance(): the generator, the command and the inputs' sha256.
constexpr const char* kProvenance = {{PROVENANCE_STRING}};

#include "dispatch_plans.h"

// ---- Arguments and errors ------------------------------------------------------------------------------------

{{PACKAGE}}_status check_args(int64_t M, int64_t N, int64_t K, const void* A, int64_t lda, const void* B,
                              int64_t ldb, const float* C, int64_t ldc) {
  if (M < 0 || N < 0 || K < 0) return {{PACKAGE_UPPER}}_INVALID_SIZE;
  // A is M rows of K; B is {{B_ROWS_TEXT}}; C is M rows of N.
  const int64_t b_rows = {{B_ROWS}};
  const int64_t b_cols = {{B_COLS}};
  if (lda < (K > 1 ? K : 1) || ldb < (b_cols > 1 ? b_cols : 1) || ldc < (N > 1 ? N : 1))
    return {{PACKAGE_UPPER}}_INVALID_LEADING_DIM;
  if (M == 0 || N == 0) return {{PACKAGE_UPPER}}_OK;
  if (C == nullptr || (K > 0 && (A == nullptr || B == nullptr))) return {{PACKAGE_UPPER}}_NULL_POINTER;
  // The last element of each operand, in bytes, must be addressable with 64-bit arithmetic.
  const int64_t max = std::numeric_limits<int64_t>::max();
  auto extent_overflows = [&](int64_t rows, int64_t ld, int64_t cols, int64_t bytes) {
    if (rows == 0 || cols == 0) return false;
    if (mul_overflows(rows - 1, ld) || (rows - 1) * ld > max - cols) return true;
    return mul_overflows((rows - 1) * ld + cols, bytes);
  };
  if (extent_overflows(M, lda, K, {{A_BYTES}}) || extent_overflows(b_rows, ldb, b_cols, {{B_BYTES}}) ||
      extent_overflows(M, ldc, N, 4))
    return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  return {{PACKAGE_UPPER}}_OK;
}

// Whether a plan can be made for M x N x K: the arguments of a call with the tightest leading dimensions pass
// check_args, so the planner's products of sizes cannot overflow.
{{PACKAGE}}_status plannable(int64_t M, int64_t N, int64_t K) {
  static const float operand = 0;
  const int64_t b_cols = {{B_COLS}};
  return check_args(M, N, K, &operand, K > 1 ? K : 1, &operand, b_cols > 1 ? b_cols : 1, &operand, N > 1 ? N : 1);
}

{{PACKAGE}}_status from_cuda(cudaError_t e) {
  g_last_cuda_error = static_cast<int32_t>(e);
  switch (e) {
    case cudaSuccess: return {{PACKAGE_UPPER}}_OK;
    case cudaErrorNoDevice:
    case cudaErrorInsufficientDriver: return {{PACKAGE_UPPER}}_NO_DEVICE;
    case cudaErrorNoKernelImageForDevice:
    case cudaErrorInvalidDeviceFunction:
    case cudaErrorUnsupportedPtxVersion: return {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE;
    case cudaErrorMemoryAllocation: return {{PACKAGE_UPPER}}_OUT_OF_MEMORY;
    default: return {{PACKAGE_UPPER}}_CUDA_ERROR;
  }
}

// The wgmma kernels are compiled only where the build targets sm_90a (CMakeLists.txt defines this then); elsewhere
// their bodies are empty and the dispatcher never runs them.
#ifdef {{PACKAGE_UPPER}}_WGMMA_BUILT
constexpr bool kWgmmaBuilt = true;
#else
constexpr bool kWgmmaBuilt = false;
#endif

// What the dispatcher needs to know of a device, read from the runtime once per device and kept.
struct DeviceFacts {
  int compute_capability;  // major * 10 + minor
  int shared_optin;        // bytes of shared memory a block may opt into
  int sms;
};
constexpr int kMaxDevices = 64;  // ordinals beyond this are queried on every call
std::mutex g_device_mutex;
std::atomic<bool> g_device_known[kMaxDevices];
DeviceFacts g_devices[kMaxDevices];

{{PACKAGE}}_status current_device(DeviceFacts* facts) {
  int device = 0;
  cudaError_t e = cudaGetDevice(&device);
  const bool cached = e == cudaSuccess && device >= 0 && device < kMaxDevices;
  if (cached && g_device_known[device].load(std::memory_order_acquire)) {
    *facts = g_devices[device];
    return {{PACKAGE_UPPER}}_OK;
  }
  int major = 0, minor = 0;
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&facts->shared_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (e == cudaSuccess) e = cudaDeviceGetAttribute(&facts->sms, cudaDevAttrMultiProcessorCount, device);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // not sticky: leave no error behind for the caller's next cudaGetLastError()
    return from_cuda(e);
  }
  facts->compute_capability = major * 10 + minor;
  if (cached) {
    // Written once, before the flag is raised: readers that see the flag read a complete, unchanging entry.
    std::lock_guard<std::mutex> lock(g_device_mutex);
    if (!g_device_known[device].load(std::memory_order_relaxed)) {
      g_devices[device] = *facts;
      g_device_known[device].store(true, std::memory_order_release);
    }
  }
  return {{PACKAGE_UPPER}}_OK;
}

// Whether the device can run kernel k: compute capability and opt-in shared memory per block; a wgmma kernel also
// needs compute capability 9.0 exactly (sm_90a code runs nowhere else) and a build for it.
{{PACKAGE}}_status check_device(const KernelInfo& k, const DeviceFacts& device) {
  if (device.compute_capability < 80 || k.shared_bytes > device.shared_optin) return {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE;
  if (k.wgmma && (!kWgmmaBuilt || device.compute_capability != 90)) return {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE;
  return {{PACKAGE_UPPER}}_OK;
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

// Rows of A and B that start on 16-byte boundaries: whole cp.async chunks, and what a tensor map requires.
bool rows_aligned(const void* A, int64_t lda, const void* B, int64_t ldb) {
  return aligned16(A) && aligned16(B) && (lda * {{A_BYTES}}) % 16 == 0 && (ldb * {{B_BYTES}}) % 16 == 0;
}

// Tensor maps take 32-bit coordinates and row strides below 2^40 bytes.
bool tensor_map_sizes(int64_t M, int64_t N, int64_t K, int64_t lda, int64_t ldb) {
  const int64_t coordinate = std::numeric_limits<int32_t>::max();
  const int64_t stride = (int64_t{1} << 40) / 2;
  return M <= coordinate && N <= coordinate && K <= coordinate && lda < stride && ldb < stride;
}

// Runs kernel k on `batch` products of p's shape (p's strides apart), in launches of at most kMaxProducts products
// side by side; under split-K every launch reuses p.partial, in stream order, then reduces its products.
cudaError_t launch_products(const KernelInfo& k, const GemmParams& p, int splits, bool aligned, int64_t batch,
                            cudaStream_t stream) {
  cudaError_t e = cudaSuccess;
  for (int64_t first = 0; first < batch && e == cudaSuccess; first += kMaxProducts) {
    GemmParams q = p;
    q.products = batch - first < kMaxProducts ? batch - first : kMaxProducts;
    if (first > 0) {
      if (q.A != nullptr) q.A = static_cast<const unsigned char*>(p.A) + first * p.stride_a * {{A_BYTES}};
      if (q.B != nullptr) q.B = static_cast<const unsigned char*>(p.B) + first * p.stride_b * {{B_BYTES}};
      q.C = p.C + first * p.stride_c;
      if (q.epilogue.bias != nullptr) q.epilogue.bias += first * p.stride_bias;
      if (q.epilogue.residual != nullptr) q.epilogue.residual += first * p.stride_residual;
    }
    if (k.wgmma && splits > 1) {
      // The tile counters of the same-launch reduction start at zero on the stream, before the kernel.
      q.tile_counters = reinterpret_cast<unsigned int*>(q.partial + q.M * q.N * splits);
      e = cudaMemsetAsync(q.tile_counters, 0, static_cast<size_t>(q.m_tiles * q.n_tiles) * sizeof(unsigned int),
                          stream);
    }
    if (e == cudaSuccess) e = k.launch(q, splits, aligned, stream);
    if (e == cudaSuccess && splits > 1 && !k.wgmma) e = launch_splitk_reduce(q, splits, stream);
  }
  return e;
}

// A call with nothing thrown out of it: the header promises that no entry point throws, and a C caller could not
// catch an exception. The CUDA runtime is a C library and the dispatcher allocates no host memory, so only the C++
// runtime could throw here; whatever it throws becomes a status.
template <typename Body>
{{PACKAGE}}_status guarded(Body body) noexcept {
  try {
    return body();
  } catch (const std::bad_alloc&) {
    return {{PACKAGE_UPPER}}_OUT_OF_MEMORY;
  } catch (...) {
    return {{PACKAGE_UPPER}}_SYSTEM_ERROR;
  }
}

#include "dispatch_calls.h"

// A plan the caller made (or forced), run with the caller's workspace: checked against the call, then launched.
{{PACKAGE}}_status execute(const {{PACKAGE}}_plan_t* plan, int64_t M, int64_t N, int64_t K, float alpha,
                           const void* A, int64_t lda, const void* B, int64_t ldb, float beta, float* C,
                           int64_t ldc, void* workspace, size_t workspace_size, cudaStream_t stream) {
  {{PACKAGE}}_status status = check_args(M, N, K, A, lda, B, ldb, C, ldc);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  if (plan == nullptr || plan->split_k < 1 || plan->split_k > kMaxSplit) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (plan->kernel_id < 0 || plan->kernel_id >= kKernelCount) return {{PACKAGE_UPPER}}_INVALID_KERNEL;
  if (M == 0 || N == 0) return {{PACKAGE_UPPER}}_OK;
  const KernelInfo& k = kKernels[plan->kernel_id];
  int64_t k_per_split = 0;
  const int splits = splits_for(k, K, plan->split_k, &k_per_split);
  const int64_t m_tiles = strata_model::ceil_div(M, k.block[0]);
  const int64_t n_tiles = strata_model::ceil_div(N, k.block[1]);
  if (mul_overflows(m_tiles, n_tiles) || m_tiles * n_tiles > kMaxGridX) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  const int64_t needed = workspace_bytes(k, M, N, splits);
  if (needed < 0) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  if (needed > 0 && (workspace == nullptr || workspace_size < static_cast<size_t>(needed)))
    return {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL;
  if (needed > 0 && reinterpret_cast<uintptr_t>(workspace) % alignof(float) != 0)
    return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  DeviceFacts device{};
  status = current_device(&device);
  if (status == {{PACKAGE_UPPER}}_OK) status = check_device(k, device);
  if (status != {{PACKAGE_UPPER}}_OK) return status;
  const bool aligned = rows_aligned(A, lda, B, ldb);
  if (k.wgmma && !tensor_map_sizes(M, N, K, lda, ldb)) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  if (k.wgmma && K > 0 && !aligned) return {{PACKAGE_UPPER}}_MISALIGNED;

  // The plain call as run_call's launches take it: nothing staged, the caller's workspace for the partial sums.
  const Call c{ {{PACKAGE_UPPER}}_NO_TRANS, kNativeTransB, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
               nullptr, 0, 0};
  return launch_call(c, Staging{}, *plan, aligned, device, static_cast<unsigned char*>(workspace), stream);
}

}  // namespace

// Every entry point that returns a status runs its body through guarded(); the others only read constants, a
// thread-local or the plan, and format with snprintf, none of which throws.
extern "C" {

const char* {{PACKAGE}}_status_string({{PACKAGE}}_status status) {
  switch (status) {
    case {{PACKAGE_UPPER}}_OK: return "ok";
    case {{PACKAGE_UPPER}}_INVALID_SIZE: return "M, N or K is negative";
    case {{PACKAGE_UPPER}}_INVALID_LEADING_DIM: return "a leading dimension is smaller than its row length";
    case {{PACKAGE_UPPER}}_NULL_POINTER: return "a matrix pointer is null";
    case {{PACKAGE_UPPER}}_SIZE_OVERFLOW: return "the sizes overflow 64-bit indexing or the CUDA grid";
    case {{PACKAGE_UPPER}}_INVALID_KERNEL: return "kernel id out of range";
    case {{PACKAGE_UPPER}}_INVALID_ARGUMENT: return "invalid argument";
    case {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL: return "workspace smaller than the plan needs";
    case {{PACKAGE_UPPER}}_OUT_OF_MEMORY: return "out of GPU memory";
    case {{PACKAGE_UPPER}}_NO_DEVICE: return "no CUDA device (or the driver is too old)";
    case {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE: return "this GPU cannot run the package's kernels";
    case {{PACKAGE_UPPER}}_CUDA_ERROR: return "CUDA error (see last_cuda_error)";
    case {{PACKAGE_UPPER}}_SYSTEM_ERROR: return "the system refused a resource the call needed";
    case {{PACKAGE_UPPER}}_MISALIGNED: return "the plan's wgmma kernel needs A and B rows on 16-byte boundaries";
  }
  return "unknown status";
}

int32_t {{PACKAGE}}_last_cuda_error(void) { return g_last_cuda_error; }

int32_t {{PACKAGE}}_kernel_count(void) { return kKernelCount; }

{{PACKAGE}}_status {{PACKAGE}}_plan(int64_t M, int64_t N, int64_t K, {{PACKAGE}}_plan_t* plan) {
  return guarded([&] {
    if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
    if (const {{PACKAGE}}_status s = plannable(M, N, K); s != {{PACKAGE_UPPER}}_OK) return s;
    plan_best(M, N, K, kMaxSplit, kWgmmaBuilt, plan);
    return {{PACKAGE_UPPER}}_OK;
  });
}

{{PACKAGE}}_status {{PACKAGE}}_kernel_plan(int32_t kernel_id, int64_t M, int64_t N, int64_t K,
                                           {{PACKAGE}}_plan_t* plan) {
  return guarded([&] {
    if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
    if (kernel_id < 0 || kernel_id >= kKernelCount) return {{PACKAGE_UPPER}}_INVALID_KERNEL;
    if (const {{PACKAGE}}_status s = plannable(M, N, K); s != {{PACKAGE_UPPER}}_OK) return s;
    plan_kernel(kernel_id, M, N, K, kMaxSplit, 1, plan);
    return {{PACKAGE_UPPER}}_OK;
  });
}

int32_t {{PACKAGE}}_explain(const {{PACKAGE}}_plan_t* plan, char* buffer, size_t size) {
  if (plan == nullptr || plan->kernel_id < 0 || plan->kernel_id >= kKernelCount) return -1;
  const int n = std::snprintf(
      buffer, buffer == nullptr ? 0 : size,
      "kernel %d %s on %s: %s tile %dx%dx%d, block tile %dx%dx%d with %d %s stages, %d threads and %d B "
      "of shared memory; split-K %d (k %lld per split); %lld %s per split in %lld wave(s) on %lld SMs; "
      "predicted %.3g s",
      plan->kernel_id, kKernels[plan->kernel_id].name,
      plan->wgmma ? "Tensor Cores (wgmma)" : plan->tensor_cores ? "Tensor Cores" : "CUDA cores",
      plan->wgmma ? "warpgroup" : "warp",
      plan->warp_m, plan->warp_n, plan->warp_k, plan->block_m, plan->block_n, plan->block_k, plan->stages,
      plan->wgmma ? "TMA" : "cp.async", plan->threads_per_block, plan->shared_bytes, plan->split_k,
      static_cast<long long>(plan->k_per_split), static_cast<long long>(plan->grid_blocks),
      plan->wgmma ? "tiles (persistent blocks)" : "blocks", static_cast<long long>(plan->waves),
      static_cast<long long>(kSms), plan->predicted_seconds);
  return n;
}

{{PACKAGE}}_status {{PACKAGE}}_execute(const {{PACKAGE}}_plan_t* plan, int64_t M, int64_t N, int64_t K, float alpha,
                                       const {{A_CTYPE}}* A, int64_t lda, const {{B_CTYPE}}* B, int64_t ldb,
                                       float beta, float* C, int64_t ldc, void* workspace, size_t workspace_bytes,
                                       {{PACKAGE}}_stream stream) {
  return guarded([&] {
    return execute(plan, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc, workspace, workspace_bytes, stream);
  });
}

{{PACKAGE}}_status {{PACKAGE}}(int64_t M, int64_t N, int64_t K, float alpha, const {{A_CTYPE}}* A, int64_t lda,
                               const {{B_CTYPE}}* B, int64_t ldb, float beta, float* C, int64_t ldc,
                               {{PACKAGE}}_stream stream) {
  return guarded([&] {
    return run_call(Call{ {{PACKAGE_UPPER}}_NO_TRANS, kNativeTransB, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C,
                         ldc, 0, 1, nullptr, 0, 0},
                    stream);
  });
}

{{PACKAGE}}_status {{PACKAGE}}_gemm({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N,
                                    int64_t K, float alpha, const {{A_CTYPE}}* A, int64_t lda, const {{B_CTYPE}}* B,
                                    int64_t ldb, float beta, float* C, int64_t ldc, {{PACKAGE}}_stream stream) {
  return {{PACKAGE}}_gemm_batched_epilogue(trans_a, trans_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                                           nullptr, 0, 0, stream);
}

{{PACKAGE}}_status {{PACKAGE}}_gemm_epilogue({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M,
                                             int64_t N, int64_t K, float alpha, const {{A_CTYPE}}* A, int64_t lda,
                                             const {{B_CTYPE}}* B, int64_t ldb, float beta, float* C, int64_t ldc,
                                             const {{PACKAGE}}_epilogue_t* epilogue, {{PACKAGE}}_stream stream) {
  return {{PACKAGE}}_gemm_batched_epilogue(trans_a, trans_b, M, N, K, alpha, A, lda, 0, B, ldb, 0, beta, C, ldc, 0, 1,
                                           epilogue, 0, 0, stream);
}

{{PACKAGE}}_status {{PACKAGE}}_gemm_batched({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M,
                                            int64_t N, int64_t K, float alpha, const {{A_CTYPE}}* A, int64_t lda,
                                            int64_t stride_a, const {{B_CTYPE}}* B, int64_t ldb, int64_t stride_b,
                                            float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch,
                                            {{PACKAGE}}_stream stream) {
  return {{PACKAGE}}_gemm_batched_epilogue(trans_a, trans_b, M, N, K, alpha, A, lda, stride_a, B, ldb, stride_b, beta,
                                           C, ldc, stride_c, batch, nullptr, 0, 0, stream);
}

{{PACKAGE}}_status {{PACKAGE}}_gemm_batched_epilogue(
    {{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M, int64_t N, int64_t K, float alpha,
    const {{A_CTYPE}}* A, int64_t lda, int64_t stride_a, const {{B_CTYPE}}* B, int64_t ldb, int64_t stride_b,
    float beta, float* C, int64_t ldc, int64_t stride_c, int64_t batch, const {{PACKAGE}}_epilogue_t* epilogue,
    int64_t stride_bias, int64_t stride_residual, {{PACKAGE}}_stream stream) {
  return guarded([&] {
    const Call c{static_cast<int32_t>(trans_a), static_cast<int32_t>(trans_b), M, N, K, alpha, A, lda, stride_a, B,
                 ldb, stride_b, beta, C, ldc, stride_c, batch, epilogue, stride_bias, stride_residual};
    return run_call(c, stream);
  });
}

{{PACKAGE}}_status {{PACKAGE}}_gemm_plan({{PACKAGE}}_transpose trans_a, {{PACKAGE}}_transpose trans_b, int64_t M,
                                         int64_t N, int64_t K, int64_t batch, {{PACKAGE}}_plan_t* plan) {
  return guarded([&] {
    if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
    if (const {{PACKAGE}}_status s = plannable(M, N, K); s != {{PACKAGE_UPPER}}_OK) return s;
    // A call with the tightest leading dimensions, products packed one after another, and no epilogue.
    static const float operand = 0;
    Call c{static_cast<int32_t>(trans_a), static_cast<int32_t>(trans_b), M, N, K, 1.0f, &operand, 0, 0, &operand, 0, 0,
           0.0f, const_cast<float*>(&operand), N > 1 ? N : 1, 0, batch, nullptr, 0, 0};
    int64_t rows, cols;
    stored_a(c, &rows, &cols);
    c.lda = cols > 1 ? cols : 1;
    c.stride_a = rows * c.lda;
    stored_b(c, &rows, &cols);
    c.ldb = cols > 1 ? cols : 1;
    c.stride_b = rows * c.ldb;
    c.stride_c = M * c.ldc;
    {{PACKAGE}}_status status = check_call(c);
    Staging s;
    if (status == {{PACKAGE_UPPER}}_OK) status = staging_of(c, &s);
    if (status != {{PACKAGE_UPPER}}_OK) return status;
    bool aligned = false;
    plan_call(c, s, nullptr, plan, &aligned);
    return {{PACKAGE_UPPER}}_OK;
  });
}

const char* {{PACKAGE}}_version(void) { return {{PACKAGE_UPPER}}_VERSION_STRING; }

const char* {{PACKAGE}}_provenance(void) { return kProvenance; }

}  // extern "C"
{{#CONV}}
#include "dispatch_conv.h"
{{/CONV}}