// Self-test of {{PACKAGE}}: argument checks, plans and the version (no GPU needed), then every kernel, forced by
// id, with and without split-K, and the dispatcher, against a double-precision host reference on edge-case shapes:
// 0, 1, primes, K not a multiple of any k tile, leading dimensions that break 16-byte alignment, beta = 0 over NaN,
// and padding columns of C that must stay untouched; then the calls with transposes, epilogues and batches
// (selftest_calls.h).
// Exit status 0: passed (or skipped with "selftest: skipped" when no usable GPU is present); 1: a check failed.
#include "{{PACKAGE}}.h"

#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace {

using AElem = {{A_CTYPE}};
using BElem = {{B_CTYPE}};
constexpr bool kBRowMajor = {{B_ROW_MAJOR}};

int g_failures = 0;
int g_checks = 0;

void expect(bool ok, const std::string& what) {
  ++g_checks;
  if (ok) return;
  if (++g_failures <= 20) std::printf("FAIL %s\n", what.c_str());
}

std::string status_text({{PACKAGE}}_status s) { return {{PACKAGE}}_status_string(s); }

// ---- Host values -------------------------------------------------------------------------------------------
// Inputs are drawn from values the element type represents exactly, so the reference sees what the GPU sees, and
// coarse enough that every partial sum is exact in fp32: products are multiples of 2^-10 (fp16) or 2^-6 (fp32)
// of at most 4 in magnitude, so sums of up to a few thousand of them need at most 22 significant bits. The order of
// accumulation (k tiles, MMA internals, split-K) then cannot change the sum, and the only rounding left is the
// epilogue's alpha * sum + beta * C: results must match the reference to a few ulps, and a single missing or
// extra nonzero product (at least 2^-6) is far outside that.

// binary16 bits to float (the generated values are normal numbers or zero), or a float as it is.
template <typename T>
float to_float(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return x;
  } else {
    const int sign = x >> 15, exponent = (x >> 10) & 0x1f, mantissa = x & 0x3ff;
    if (exponent == 0 && mantissa == 0) return sign ? -0.0f : 0.0f;
    const float value = std::ldexp(1.0f + static_cast<float>(mantissa) / 1024.0f, exponent - 15);
    return sign ? -value : value;
  }
}

template <typename T>
void random_value(std::mt19937& rng, T* out) {
  if constexpr (std::is_same_v<T, float>) {
    *out = static_cast<float>(static_cast<int>(rng() % 33) - 16) / 8.0f;  // -2 to 2 in steps of 1/8
  } else {
    // +-(1 + m/8) * 2^e with e in [-2, 0]: multiples of 2^-5 up to 1.875 (see kExact below).
    const uint32_t r = static_cast<uint32_t>(rng());
    const uint16_t sign = static_cast<uint16_t>((r & 1) << 15);
    const uint16_t exponent = static_cast<uint16_t>(((r >> 1) % 3 + 13) << 10);
    const uint16_t mantissa = static_cast<uint16_t>(((r >> 4) % 8) << 7);
    *out = static_cast<uint16_t>(sign | exponent | mantissa);
  }
}

template <typename T>
std::vector<T> random_matrix(std::mt19937& rng, int64_t rows, int64_t ld) {
  std::vector<T> m(static_cast<size_t>(rows * ld + 1));  // +1: never an empty allocation
  for (auto& x : m) random_value(rng, &x);
  return m;
}

// ---- Device buffers ----------------------------------------------------------------------------------------

template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(size_t count) {
    if (cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T) + 16) != cudaSuccess) ptr_ = nullptr;
  }
  ~DeviceBuffer() { cudaFree(ptr_); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  T* get() const { return ptr_; }

 private:
  T* ptr_ = nullptr;
};

bool upload(void* dst, const void* src, size_t bytes) { return cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice) == cudaSuccess; }
bool download(void* dst, const void* src, size_t bytes) { return cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost) == cudaSuccess; }

struct Shape {
  int64_t M, N, K;
};

// Whether this build and device run the wgmma kernels (sm_90a code, compute capability 9.0); set in main().
bool g_wgmma_runs = false;
int g_wgmma_skipped = 0;

// How one case is run: the dispatcher, or a kernel forced by id with a forced split-K.
struct Mode {
  int32_t kernel_id;  // -1: the plain call, which plans for itself
  int32_t split_k;
};

// Runs one case and compares all of C (including ldc padding) with the reference.
void run_case(const Shape& s, const Mode& mode, int64_t lda_pad, int64_t ldb_pad, float alpha, float beta,
              std::mt19937& rng) {
  const int64_t M = s.M, N = s.N, K = s.K;
  const int64_t lda = (K > 1 ? K : 1) + lda_pad;
  const int64_t b_rows = kBRowMajor ? K : N, b_cols = kBRowMajor ? N : K;
  const int64_t ldb = (b_cols > 1 ? b_cols : 1) + ldb_pad;
  const int64_t ldc = (N > 1 ? N : 1) + 3;  // three padding columns that must survive
  const std::vector<AElem> a = random_matrix<AElem>(rng, M, lda);
  const std::vector<BElem> b = random_matrix<BElem>(rng, b_rows, ldb);
  std::vector<float> c0(static_cast<size_t>(M * ldc + 1));
  for (auto& x : c0) random_value(rng, &x);
  if (beta == 0.0f)  // beta = 0 must not read C: poison the visible part with NaN
    for (int64_t i = 0; i < M; ++i)
      for (int64_t j = 0; j < N; ++j) c0[static_cast<size_t>(i * ldc + j)] = std::numeric_limits<float>::quiet_NaN();

  DeviceBuffer<AElem> da(a.size());
  DeviceBuffer<BElem> db(b.size());
  DeviceBuffer<float> dc(c0.size());
  if (!da.get() || !db.get() || !dc.get() || !upload(da.get(), a.data(), a.size() * sizeof(AElem)) ||
      !upload(db.get(), b.data(), b.size() * sizeof(BElem)) ||
      !upload(dc.get(), c0.data(), c0.size() * sizeof(float))) {
    expect(false, "device allocation or copy failed");
    return;
  }
  char label[256];
  std::snprintf(label, sizeof label, "M=%lld N=%lld K=%lld lda=%lld ldb=%lld alpha=%g beta=%g kernel=%d split=%d",
                static_cast<long long>(M), static_cast<long long>(N), static_cast<long long>(K),
                static_cast<long long>(lda), static_cast<long long>(ldb), alpha, beta, mode.kernel_id, mode.split_k);

  {{PACKAGE}}_status status;
  if (mode.kernel_id < 0) {
    status = {{PACKAGE}}(M, N, K, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(), ldc, nullptr);
  } else {
    {{PACKAGE}}_plan_t plan{};
    status = {{PACKAGE}}_kernel_plan(mode.kernel_id, M, N, K, &plan);
    plan.split_k = mode.split_k;
    // A forced wgmma kernel refuses a device or build without sm_90a code, and rows off 16-byte boundaries, before
    // anything runs: C must come back untouched.
    const bool misaligned = K > 0 && (lda % 8 != 0 || ldb % 8 != 0);
    if (status == {{PACKAGE_UPPER}}_OK && plan.wgmma && (!g_wgmma_runs || misaligned)) {
      plan.split_k = 1;
      const {{PACKAGE}}_status expected = !g_wgmma_runs ? {{PACKAGE_UPPER}}_UNSUPPORTED_DEVICE : {{PACKAGE_UPPER}}_MISALIGNED;
      status = {{PACKAGE}}_execute(&plan, M, N, K, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(), ldc, nullptr,
                                   0, nullptr);
      expect(status == expected, std::string("wgmma refusal: ") + status_text(status) + ": " + label);
      std::vector<float> c(c0.size());
      expect(download(c.data(), dc.get(), c.size() * sizeof(float)) &&
                 std::memcmp(c.data(), c0.data(), c.size() * sizeof(float)) == 0,
             std::string("C changed by a refused call: ") + label);
      if (!g_wgmma_runs) ++g_wgmma_skipped;
      return;
    }
    // The header's size for a forced split: the partial sums, and a counter per block tile for a wgmma plan.
    const int64_t tiles = plan.block_m > 0 && plan.block_n > 0
                              ? ((M + plan.block_m - 1) / plan.block_m) * ((N + plan.block_n - 1) / plan.block_n)
                              : 0;
    const size_t workspace = (static_cast<size_t>(mode.split_k) * static_cast<size_t>(M * N) +
                              (plan.wgmma ? static_cast<size_t>(tiles) : 0)) *
                             sizeof(float);
    DeviceBuffer<unsigned char> dw(workspace);
    if (status == {{PACKAGE_UPPER}}_OK)
      status = {{PACKAGE}}_execute(&plan, M, N, K, alpha, da.get(), lda, db.get(), ldb, beta, dc.get(), ldc,
                                   dw.get(), workspace, nullptr);
    // The workspace is freed when dw goes out of scope; finish the work that reads it first.
    if (cudaDeviceSynchronize() != cudaSuccess) expect(false, std::string("kernel failed: ") + label);
  }
  expect(status == {{PACKAGE_UPPER}}_OK, std::string("status ") + status_text(status) + ": " + label);
  std::vector<float> c(c0.size());
  if (cudaDeviceSynchronize() != cudaSuccess || !download(c.data(), dc.get(), c.size() * sizeof(float))) {
    expect(false, std::string("kernel or copy failed: ") + label);
    return;
  }
  int64_t bad = 0;
  for (int64_t i = 0; i < M; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (j >= N) {  // padding: bit-identical
        if (std::memcmp(&c[at], &c0[at], sizeof(float)) != 0) ++bad;
        continue;
      }
      double sum = 0;
      for (int64_t k = 0; k < K; ++k) {
        const double x = to_float(a[static_cast<size_t>(i * lda + k)]);
        const double y = to_float(kBRowMajor ? b[static_cast<size_t>(k * ldb + j)] : b[static_cast<size_t>(j * ldb + k)]);
        sum += x * y;
      }
      // beta = 0 ignores C (which holds NaN then): leave it out of the reference and the tolerance alike.
      const double c_term = beta == 0.0f ? 0.0 : beta * static_cast<double>(c0[at]);
      const double ref = alpha * sum + c_term;
      // Exact sums (see above): only the epilogue rounds, by at most an ulp or two of its terms.
      const double tolerance = std::ldexp(1.0, -22) * (std::fabs(alpha * sum) + std::fabs(c_term)) + 1e-30;
      if (!(std::fabs(c[at] - ref) <= tolerance)) {
        if (bad == 0)
          expect(false, std::string(label) + ": C[" + std::to_string(i) + "][" + std::to_string(j) + "] = " +
                            std::to_string(c[at]) + ", expected " + std::to_string(ref));
        ++bad;
      }
    }
  expect(bad == 0, std::string(label) + ": " + std::to_string(bad) + " wrong elements");
}

void check_arguments() {
  float dummy = 0;
  const AElem* a = reinterpret_cast<const AElem*>(&dummy);
  const BElem* b = reinterpret_cast<const BElem*>(&dummy);
  float* c = &dummy;
  const int64_t b_ld = 8;  // B rows are N (row-major) or K (column-major) long; both are 8 here
  expect({{PACKAGE}}(-1, 8, 8, 1, a, 8, b, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_SIZE, "M < 0");
  expect({{PACKAGE}}(8, -1, 8, 1, a, 8, b, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_SIZE, "N < 0");
  expect({{PACKAGE}}(8, 8, -1, 1, a, 8, b, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_SIZE, "K < 0");
  expect({{PACKAGE}}(8, 8, 8, 1, a, 7, b, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "lda < K");
  expect({{PACKAGE}}(8, 8, 8, 1, a, 8, b, 7, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "ldb short");
  expect({{PACKAGE}}(8, 8, 8, 1, a, 8, b, b_ld, 0, c, 7, nullptr) == {{PACKAGE_UPPER}}_INVALID_LEADING_DIM, "ldc < N");
  expect({{PACKAGE}}(8, 8, 8, 1, a, 8, b, b_ld, 0, nullptr, 8, nullptr) == {{PACKAGE_UPPER}}_NULL_POINTER, "C null");
  expect({{PACKAGE}}(8, 8, 8, 1, nullptr, 8, b, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_NULL_POINTER, "A null");
  expect({{PACKAGE}}(8, 8, 8, 1, a, 8, nullptr, b_ld, 0, c, 8, nullptr) == {{PACKAGE_UPPER}}_NULL_POINTER, "B null");
  // Nothing to touch: valid without pointers, and without a GPU.
  expect({{PACKAGE}}(0, 8, 8, 1, nullptr, 8, nullptr, b_ld, 0, nullptr, 8, nullptr) == {{PACKAGE_UPPER}}_OK, "M = 0");
  expect({{PACKAGE}}(8, 0, 8, 1, nullptr, 8, nullptr, 8, 0, nullptr, 1, nullptr) == {{PACKAGE_UPPER}}_OK, "N = 0");
  const int64_t big = int64_t{1} << 62;
  expect({{PACKAGE}}(big, 8, 8, 1, a, 8, b, b_ld, 0, c, big, nullptr) == {{PACKAGE_UPPER}}_SIZE_OVERFLOW, "overflow");

  {{PACKAGE}}_plan_t plan;
  expect({{PACKAGE}}_plan(8, 8, 8, nullptr) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "plan: null plan");
  expect({{PACKAGE}}_plan(-1, 8, 8, &plan) == {{PACKAGE_UPPER}}_INVALID_SIZE, "plan: M < 0");
  expect({{PACKAGE}}_kernel_plan(-1, 8, 8, 8, &plan) == {{PACKAGE_UPPER}}_INVALID_KERNEL, "kernel_plan: id -1");
  expect({{PACKAGE}}_kernel_plan({{PACKAGE}}_kernel_count(), 8, 8, 8, &plan) == {{PACKAGE_UPPER}}_INVALID_KERNEL,
         "kernel_plan: id = count");
  expect({{PACKAGE}}_explain(nullptr, nullptr, 0) == -1, "explain: null plan");
  const Shape shapes[] = {
      {1, 1, 1}, {1, 4096, 4096}, {16, 4096, 4096}, {4096, 4096, 4096}, {64, 64, 65536}, {5, 7, 0},
  };
  for (const Shape& s : shapes) {
    expect({{PACKAGE}}_plan(s.M, s.N, s.K, &plan) == {{PACKAGE_UPPER}}_OK, "plan");
    char text[512];
    const int32_t length = {{PACKAGE}}_explain(&plan, text, sizeof text);
    expect(length > 0 && plan.split_k >= 1 && plan.predicted_seconds > 0 && plan.threads_per_block > 0,
           "plan fields for " + std::to_string(s.M) + "x" + std::to_string(s.N) + "x" + std::to_string(s.K));
    std::printf("plan %lldx%lldx%lld: %s\n", static_cast<long long>(s.M), static_cast<long long>(s.N),
                static_cast<long long>(s.K), text);
  }
  // A forced plan is validated before anything runs.
  expect({{PACKAGE}}_plan(8, 8, 8, &plan) == {{PACKAGE_UPPER}}_OK, "plan 8x8x8");
  plan.split_k = 0;
  expect({{PACKAGE}}_execute(&plan, 8, 8, 8, 1, a, 8, b, b_ld, 0, c, 8, nullptr, 0, nullptr) ==
             {{PACKAGE_UPPER}}_INVALID_ARGUMENT,
         "execute: split_k 0");
  plan.split_k = 1;
  plan.kernel_id = {{PACKAGE}}_kernel_count();
  expect({{PACKAGE}}_execute(&plan, 8, 8, 8, 1, a, 8, b, b_ld, 0, c, 8, nullptr, 0, nullptr) ==
             {{PACKAGE_UPPER}}_INVALID_KERNEL,
         "execute: bad kernel id");
  plan.kernel_id = 0;
  plan.split_k = 2;
  expect({{PACKAGE}}_execute(&plan, 8, 8, 4096, 1, a, 4096, b, kBRowMajor ? 8 : 4096, 0, c, 8, nullptr, 0, nullptr) ==
             {{PACKAGE_UPPER}}_WORKSPACE_TOO_SMALL,
         "execute: split-K without workspace");

  // The library's identity: the version the header was generated with, and how it was made.
  expect(std::strcmp({{PACKAGE}}_version(), {{PACKAGE_UPPER}}_VERSION_STRING) == 0,
         std::string("version() is ") + {{PACKAGE}}_version() + ", the header's " + {{PACKAGE_UPPER}}_VERSION_STRING);
  expect(std::strstr({{PACKAGE}}_provenance(), "Generated by Strata") != nullptr,
         "provenance() does not name the generator");
}

bool usable_device(std::string* why) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    (void)cudaGetLastError();
    *why = "no CUDA device";
    return false;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  if (major < 8) {
    *why = "device 0 is sm_" + std::to_string(major * 10 + minor) + "; the kernels need sm_80 or newer";
    return false;
  }
  return true;
}

}  // namespace

#include "selftest_calls.h"
{{#CONV}}#include "selftest_conv.h"
{{/CONV}}
int main() {
  check_arguments();
  check_call_arguments();
{{#CONV}}  check_conv_arguments();
{{/CONV}}
  std::string why;
  if (!usable_device(&why)) {
    if (g_failures) {
      std::printf("selftest: %d passed, %d failed (argument and plan checks; %s)\n", g_checks - g_failures,
                  g_failures, why.c_str());
      return 1;
    }
    std::printf("selftest: skipped: %s, so no kernel ran (%d argument and plan checks passed)\n", why.c_str(),
                g_checks);
    return 0;
  }
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
#ifdef {{PACKAGE_UPPER}}_WGMMA_BUILT
  g_wgmma_runs = major == 9 && minor == 0;
#endif
  std::mt19937 rng(12345);
  // Edge shapes: zero, one, primes, sizes just past powers of two, K that is no multiple of any k tile, and a
  // K deep enough for many pipeline iterations.
  const Shape shapes[] = {
      {1, 1, 1},     {1, 1, 16},     {2, 3, 5},       {7, 13, 24},    {17, 31, 40},
      {16, 16, 0},   {0, 9, 9},      {9, 0, 9},       {64, 64, 64},   {65, 129, 67},
      {127, 33, 256}, {3, 200, 1031}, {131, 97, 1000}, {257, 263, 40}, {200, 136, 520},
      {520, 700, 72},  // more tiles than SMs for the small blocks: persistent blocks take several
  };
  const float alphas[] = {1.0f, -1.5f};
  const float betas[] = {0.0f, 0.5f};
  for (const Shape& s : shapes) {
    int variant = 0;
    for (int32_t id = -1; id < {{PACKAGE}}_kernel_count(); ++id) {
      // Each kernel without split-K and with a forced split of 3; the plain call plans its own.
      for (int32_t split : {1, 3}) {
        if (id < 0 && split != 1) continue;
        const float alpha = alphas[variant % 2];
        const float beta = betas[(variant / 2) % 2];
        // Leading dimensions padded to 16-byte rows (the cp.async path), and every third case one or two
        // elements longer than the row, which breaks the alignment (copies of 8 or 4 bytes where the rows allow,
        // else element by element).
        const bool unaligned = variant % 3 == 2;
        const int64_t a_pad = unaligned ? 1 + variant % 2 : (8 - s.K % 8) % 8;
        const int64_t b_pad = unaligned ? 1 + variant % 2 : (8 - (kBRowMajor ? s.N : s.K) % 8) % 8;
        run_case(s, Mode{id, split}, a_pad, b_pad, alpha, beta, rng);
        ++variant;
      }
    }
  }
  run_call_cases(rng);
{{#CONV}}  run_conv_cases(rng);
{{/CONV}}  if (g_wgmma_skipped > 0)
    std::printf("wgmma kernels did not run (%d cases): %s\n", g_wgmma_skipped,
                g_wgmma_runs ? "" : "the device is not compute capability 9.0 or the build has no sm_90a code");
  std::printf("selftest: %d passed, %d failed\n", g_checks - g_failures, g_failures);
  return g_failures == 0 ? 0 : 1;
}
