// Stress program for a generated CPU package, built against it with sanitizers by tests/test_sanitizers.cpp:
//   - a random sweep of shapes (0, 1, primes, every kernel's tile and block sizes +-1), leading dimensions (tight,
//     padded, thousands apart), alpha and beta (0, 1, -1, fractions; C prefilled with NaN when beta is 0), thread
//     counts and entry points (a strided batch among them), each checked element by element against a
//     double-precision reference;
//   - every invalid argument of the C API, each with its documented status and C left as it was;
//   - plans for sizes at and past the 64-bit limits;
//   - concurrent callers while other threads change the thread count and install and remove host parallel-for
//     hooks: every hook must be called with the context it was installed with;
//   - one call whose A and C span more than 2^31 elements (rows 2^30 elements apart), checked on every element.
// It prints one line per failure (at most 30) and "stress: N passed, M failed"; exits 0 iff M is 0.
// Usage: stress [--sweep CALLS] [--concurrency-only]
//
// The package is named at compile time: -DPKG=<name> and -DPKG_HEADER="<name>.h".
#include <sys/mman.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include PKG_HEADER

#define PKG_JOIN2(a, b) a##_##b
#define PKG_JOIN(a, b) PKG_JOIN2(a, b)
#define API(name) PKG_JOIN(PKG, name)

namespace {

using Status = decltype(PKG(0, 0, 0, 0.0f, nullptr, 1, nullptr, 1, 0.0f, nullptr, 1));
using Plan = API(plan_t);
constexpr Status kOk = static_cast<Status>(0);
constexpr Status kInvalidSize = static_cast<Status>(1);
constexpr Status kInvalidLeadingDim = static_cast<Status>(2);
constexpr Status kNullPointer = static_cast<Status>(3);
constexpr Status kSizeOverflow = static_cast<Status>(4);
constexpr Status kInvalidKernel = static_cast<Status>(5);
constexpr Status kInvalidArgument = static_cast<Status>(6);
constexpr Status kWorkspaceTooSmall = static_cast<Status>(7);

class Tally {
 public:
  void expect(bool ok, const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (ok) {
      ++passed_;
      return;
    }
    if (++failed_ <= 30) std::printf("FAIL: %s\n", what.c_str());
  }
  int finish() const {
    std::printf("stress: %lld passed, %lld failed\n", passed_, failed_);
    return failed_ == 0 ? 0 : 1;
  }

 private:
  std::mutex mutex_;
  long long passed_ = 0, failed_ = 0;
};

std::string describe(const char* entry, int64_t m, int64_t n, int64_t k, int64_t lda, int64_t ldb, int64_t ldc,
                     float alpha, float beta, int threads) {
  char text[256];
  std::snprintf(text, sizeof text, "%s %lldx%lldx%lld lda=%lld ldb=%lld ldc=%lld alpha=%g beta=%g threads=%d", entry,
                static_cast<long long>(m), static_cast<long long>(n), static_cast<long long>(k),
                static_cast<long long>(lda), static_cast<long long>(ldb), static_cast<long long>(ldc),
                static_cast<double>(alpha), static_cast<double>(beta), threads);
  return text;
}

// batched: the call as a strided batch of 2 to 5 products sharing A and B (strides of 0), each on its own C.
enum class Entry { dispatch, kernel, workspace, batched };

// One call with fresh operands, checked against a double-precision reference on every element of C and on the
// padding between C's rows, which must stay as it was.
void check_call(Tally& tally, std::mt19937_64& rng, Entry entry, int32_t kernel, int64_t m, int64_t n, int64_t k,
                int64_t lda, int64_t ldb, int64_t ldc, float alpha, float beta, int threads) {
  std::uniform_int_distribution<int> value(-64, 64);
  // Values are multiples of 1/64 in [-1, 1]: exact in float, so the reference sees the package's inputs.
  std::vector<float> a(static_cast<size_t>(std::max<int64_t>(1, m * lda))),
      b(static_cast<size_t>(std::max<int64_t>(1, k * ldb))), c(static_cast<size_t>(std::max<int64_t>(1, m * ldc)));
  for (float& x : a) x = static_cast<float>(value(rng)) / 64.0f;
  for (float& x : b) x = static_cast<float>(value(rng)) / 64.0f;
  const bool nan_c = beta == 0.0f;
  for (float& x : c) x = nan_c ? std::numeric_limits<float>::quiet_NaN() : static_cast<float>(value(rng)) / 64.0f;
  const std::vector<float> c_before = c;
  Status status = kOk;
  const int64_t products = entry == Entry::batched ? 2 + static_cast<int64_t>(rng() % 4) : 1;
  const std::string what = describe(entry == Entry::dispatch  ? "dispatch"
                                    : entry == Entry::kernel  ? "kernel"
                                    : entry == Entry::batched ? "batched"
                                                              : "ws",
                                    m, n, k, lda, ldb, ldc, alpha, beta, threads);
  std::vector<float> batch_c;
  if (entry == Entry::dispatch) {
    status = PKG(m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else if (entry == Entry::kernel) {
    status = API(with_kernel)(kernel, m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc);
  } else if (entry == Entry::batched) {
    for (int64_t i = 0; i < products; ++i) batch_c.insert(batch_c.end(), c.begin(), c.end());
    status = API(gemm_batched)(static_cast<API(transpose)>(0), static_cast<API(transpose)>(0), m, n, k, alpha,
                               a.data(), lda, 0, b.data(), ldb, 0, beta, batch_c.data(), ldc,
                               static_cast<int64_t>(c.size()), products);
  } else {
    const size_t bytes = API(workspace_size)(m, n, k);
    std::vector<unsigned char> workspace(bytes + 1);
    status = API(with_workspace)(m, n, k, alpha, a.data(), lda, b.data(), ldb, beta, c.data(), ldc,
                                 workspace.data() + 1, bytes);
  }
  tally.expect(status == kOk, what + ": status " + std::to_string(static_cast<int>(status)));
  if (status != kOk) return;
  // The products of a batch share A and B, so each element's reference is worked out once for all of them.
  const float* const results = entry == Entry::batched ? batch_c.data() : c.data();
  const auto product_at = [&](int64_t index, size_t at) {
    return results[index * static_cast<int64_t>(c.size()) + static_cast<int64_t>(at)];
  };
  int64_t bad = 0;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < ldc; ++j) {
      const size_t at = static_cast<size_t>(i * ldc + j);
      if (j >= n) {
        for (int64_t index = 0; index < products; ++index) {
          const float got = product_at(index, at);
          bad += std::memcmp(&got, &c_before[at], sizeof(float)) != 0;
        }
        continue;
      }
      double sum = 0, magnitude = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double product = static_cast<double>(a[static_cast<size_t>(i * lda + p)]) *
                               static_cast<double>(b[static_cast<size_t>(p * ldb + j)]);
        sum += product;
        magnitude += std::fabs(product);
      }
      const double old = nan_c ? 0.0 : static_cast<double>(c_before[at]);
      const double expected = static_cast<double>(alpha) * sum + static_cast<double>(beta) * old;
      const double tolerance =
          1e-6 * static_cast<double>(k + 2) * (std::fabs(static_cast<double>(alpha)) * magnitude + std::fabs(old)) +
          1e-30;
      for (int64_t index = 0; index < products; ++index)
        if (!(std::fabs(static_cast<double>(product_at(index, at)) - expected) <= tolerance)) ++bad;
    }
  tally.expect(bad == 0, what + ": " + std::to_string(bad) + " wrong elements");
}

// Sizes where packing, masking and blocking change: 0, 1, primes, and every kernel's tiles and blocks +-1.
std::vector<int64_t> edge_sizes() {
  std::vector<int64_t> sizes = {0, 1, 2, 3, 5, 7, 13, 17, 31, 61, 97, 127, 257};
  for (int32_t id = 0; id < API(kernel_count)(); ++id) {
    Plan plan{};
    if (API(kernel_plan)(id, 2048, 2048, 2048, &plan) != kOk) continue;
    for (int64_t s : {int64_t{plan.mr}, int64_t{plan.nr}, plan.mc, plan.nc, plan.kc})
      for (int64_t d : {-1, 0, 1})
        if (s + d >= 0 && s + d <= 600) sizes.push_back(s + d);
  }
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

void random_sweep(Tally& tally, int calls) {
  std::mt19937_64 rng(20261127);
  const std::vector<int64_t> sizes = edge_sizes();
  const float alphas[] = {1.0f, -1.0f, 0.0f, 0.5f, 2.0f};
  const float betas[] = {0.0f, 1.0f, -1.0f, 0.5f};
  const int64_t pads[] = {0, 0, 1, 7, 64, 4099};
  for (int call = 0; call < calls; ++call) {
    auto pick_size = [&] {
      const int64_t s = rng() % 4 ? sizes[rng() % sizes.size()] : static_cast<int64_t>(rng() % 300);
      return s;
    };
    int64_t m = pick_size(), n = pick_size(), k = pick_size();
    while (m * n * k > 4'000'000) (m > n ? m : n) /= 2;  // keeps the reference quick
    const int64_t lda = std::max<int64_t>(1, k) + pads[rng() % 6], ldb = std::max<int64_t>(1, n) + pads[rng() % 6],
                  ldc = std::max<int64_t>(1, n) + pads[rng() % 6];
    const int threads = 1 + static_cast<int>(rng() % 3);
    tally.expect(API(set_num_threads)(threads) == kOk, "set_num_threads");
    const auto entry = static_cast<Entry>(rng() % 4);
    const auto kernel = static_cast<int32_t>(rng() % static_cast<uint64_t>(API(kernel_count)()));
    check_call(tally, rng, entry, kernel, m, n, k, lda, ldb, ldc, alphas[rng() % 5], betas[rng() % 4], threads);
  }
}

// Every rejected call returns its status and leaves C exactly as it was.
void invalid_arguments(Tally& tally) {
  std::vector<float> a(64, 1.0f), b(64, 1.0f), c(64, 3.0f);
  const int64_t huge = int64_t{1} << 40, most = std::numeric_limits<int64_t>::max();
  struct Case {
    const char* what;
    int64_t m, n, k, lda, ldb, ldc;
    bool null_a, null_b, null_c;
    Status want;
  };
  const Case cases[] = {
      {"negative M", -1, 4, 4, 4, 4, 4, false, false, false, kInvalidSize},
      {"negative N", 4, -1, 4, 4, 4, 4, false, false, false, kInvalidSize},
      {"negative K", 4, 4, most * -1, 4, 4, 4, false, false, false, kInvalidSize},
      {"lda < K", 4, 4, 5, 4, 4, 4, false, false, false, kInvalidLeadingDim},
      {"ldb < N", 4, 5, 4, 4, 4, 5, false, false, false, kInvalidLeadingDim},
      {"ldc < N", 4, 5, 4, 4, 5, 4, false, false, false, kInvalidLeadingDim},
      {"lda 0 with K 0", 4, 4, 0, 0, 4, 4, false, false, false, kInvalidLeadingDim},
      {"null A", 4, 4, 4, 4, 4, 4, true, false, false, kNullPointer},
      {"null B", 4, 4, 4, 4, 4, 4, false, true, false, kNullPointer},
      {"null C", 4, 4, 4, 4, 4, 4, false, false, true, kNullPointer},
      {"A extent overflows", huge, 1, huge, huge, 1, 1, false, false, false, kSizeOverflow},
      {"C extent overflows", most / 2, 2, 1, 1, 2, most / 2, false, false, false, kSizeOverflow},
      {"all sizes at the limit", most, most, most, most, most, most, false, false, false, kSizeOverflow},
  };
  for (const Case& t : cases) {
    std::vector<float> cc = c;
    const float* pa = t.null_a ? nullptr : a.data();
    const float* pb = t.null_b ? nullptr : b.data();
    float* pc = t.null_c ? nullptr : cc.data();
    const Status s1 = PKG(t.m, t.n, t.k, 1.0f, pa, t.lda, pb, t.ldb, 1.0f, pc, t.ldc);
    const Status s2 = API(with_kernel)(0, t.m, t.n, t.k, 1.0f, pa, t.lda, pb, t.ldb, 1.0f, pc, t.ldc);
    std::vector<unsigned char> ws(1 << 16);
    const Status s3 =
        API(with_workspace)(t.m, t.n, t.k, 1.0f, pa, t.lda, pb, t.ldb, 1.0f, pc, t.ldc, ws.data(), ws.size());
    tally.expect(s1 == t.want && s2 == t.want && s3 == t.want,
                 std::string(t.what) + ": statuses " + std::to_string(s1) + "/" + std::to_string(s2) + "/" +
                     std::to_string(s3) + ", want " + std::to_string(t.want));
    tally.expect(cc == c, std::string(t.what) + ": C changed");
  }
  // Pointers a call does not touch may be null: no rows, no columns, or nothing to multiply.
  tally.expect(PKG(0, 5, 5, 1.0f, nullptr, 5, nullptr, 5, 1.0f, nullptr, 5) == kOk, "M = 0 with null pointers");
  tally.expect(PKG(5, 5, 0, 1.0f, nullptr, 1, nullptr, 5, 0.0f, c.data(), 5) == kOk, "K = 0 with null A and B");
  Plan plan{};
  tally.expect(API(with_kernel)(-1, 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 1.0f, c.data(), 4) == kInvalidKernel,
               "kernel -1");
  tally.expect(API(with_kernel)(API(kernel_count)(), 4, 4, 4, 1.0f, a.data(), 4, b.data(), 4, 1.0f, c.data(), 4) ==
                   kInvalidKernel,
               "kernel count as id");
  tally.expect(API(set_num_threads)(0) == kInvalidArgument, "zero threads");
  tally.expect(API(set_num_threads)(-5) == kInvalidArgument, "negative threads");
  tally.expect(API(plan)(4, 4, 4, nullptr) == kInvalidArgument, "null plan");
  tally.expect(API(kernel_plan)(API(kernel_count)(), 4, 4, 4, &plan) == kInvalidKernel, "plan of a missing kernel");
  tally.expect(API(plan)(-1, 4, 4, &plan) == kInvalidSize, "plan of a negative size");
  // Plans past the 64-bit limits are refused; plans just inside them are made without overflowing.
  tally.expect(API(plan)(most, most, 7, &plan) == kSizeOverflow, "plan of INT64_MAX x INT64_MAX");
  tally.expect(API(plan)(huge, 1, huge, &plan) == kSizeOverflow, "plan of 2^40 x 1 x 2^40");
  const int64_t edge = int64_t{1} << 30;
  for (int threads : {1, 2}) {
    API(set_num_threads)(threads);
    tally.expect(API(plan)(edge, edge, edge, &plan) == kOk && plan.predicted_seconds > 0, "plan of 2^30 cubed");
    for (int32_t id = 0; id < API(kernel_count)(); ++id)
      tally.expect(API(kernel_plan)(id, edge, 3, edge, &plan) == kOk, "kernel plan of 2^30 x 3 x 2^30");
  }
  const size_t need = API(workspace_size)(300, 300, 300);
  if (need > 0) {
    std::vector<float> big(300 * 300, 1.0f), cc(300 * 300, 5.0f);
    std::vector<unsigned char> ws(need);
    tally.expect(API(with_workspace)(300, 300, 300, 1.0f, big.data(), 300, big.data(), 300, 1.0f, cc.data(), 300,
                                     ws.data(), need - 1) == kWorkspaceTooSmall,
                 "workspace one byte short");
    tally.expect(std::all_of(cc.begin(), cc.end(), [](float x) { return x == 5.0f; }),
                 "workspace one byte short: C changed");
  }
}

// Host parallel-for hooks, each with a context of its own; a hook called with another's context is a failure.
struct HookContext {
  int id;
  std::atomic<int64_t> calls{0};
  std::atomic<int64_t> wrong_context{0};
};
HookContext g_hook_a{1}, g_hook_b{2};

void serial_hook(void* host_context, int64_t count, API(task_fn) task, void* task_context) {
  if (host_context != &g_hook_a) g_hook_a.wrong_context.fetch_add(1);
  g_hook_a.calls.fetch_add(1);
  for (int64_t i = count - 1; i >= 0; --i) task(task_context, i);
}

void threaded_hook(void* host_context, int64_t count, API(task_fn) task, void* task_context) {
  if (host_context != &g_hook_b) g_hook_b.wrong_context.fetch_add(1);
  g_hook_b.calls.fetch_add(1);
  std::vector<std::thread> workers;
  for (int64_t i = 1; i < count; ++i) workers.emplace_back(task, task_context, i);
  task(task_context, 0);
  for (auto& w : workers) w.join();
}

void concurrency(Tally& tally, int calls_per_thread) {
  std::atomic<bool> done{false};
  std::thread changer([&] {
    std::mt19937_64 rng(7);
    while (!done.load()) {
      switch (rng() % 4) {
        case 0: API(set_num_threads)(1 + static_cast<int32_t>(rng() % 3)); break;
        case 1: API(set_parallel_for)(&serial_hook, &g_hook_a); break;
        case 2: API(set_parallel_for)(&threaded_hook, &g_hook_b); break;
        default: API(set_parallel_for)(nullptr, nullptr); break;
      }
      std::this_thread::yield();
    }
  });
  std::vector<std::thread> callers;
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      std::mt19937_64 rng(100 + static_cast<uint64_t>(t));
      for (int call = 0; call < calls_per_thread; ++call) {
        const int64_t m = 1 + static_cast<int64_t>(rng() % 200), n = 1 + static_cast<int64_t>(rng() % 200),
                      k = 1 + static_cast<int64_t>(rng() % 200);
        check_call(tally, rng, static_cast<Entry>(rng() % 4), 0, m, n, k, k, n, n, 1.0f, 0.5f, 0);
      }
    });
  for (auto& c : callers) c.join();
  done.store(true);
  changer.join();
  API(set_parallel_for)(nullptr, nullptr);
  tally.expect(g_hook_a.wrong_context.load() == 0 && g_hook_b.wrong_context.load() == 0,
               "a hook was called with another hook's context " +
                   std::to_string(g_hook_a.wrong_context.load() + g_hook_b.wrong_context.load()) + " times");
}

// A and C with rows 2^30 + a few elements apart: their extents pass 2^31 elements, so any 32-bit index in the
// package lands on the wrong row. The memory is reserved, not committed: only the touched rows take pages.
void beyond_32_bits(Tally& tally) {
  const int64_t m = 3, n = 37, k = 45, lda = (int64_t{1} << 30) + 3, ldc = (int64_t{1} << 30) + 5;
  const size_t a_bytes = static_cast<size_t>((m - 1) * lda + k) * sizeof(float);
  const size_t c_bytes = static_cast<size_t>((m - 1) * ldc + n) * sizeof(float);
  void* a_map = mmap(nullptr, a_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  void* c_map = mmap(nullptr, c_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (a_map == MAP_FAILED || c_map == MAP_FAILED) {
    std::printf("note: could not reserve %zu bytes; the 2^31-element call is skipped\n", a_bytes + c_bytes);
    return;
  }
  auto* a = static_cast<float*>(a_map);
  auto* c = static_cast<float*>(c_map);
  std::vector<float> b(static_cast<size_t>(k * n));
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) a[i * lda + p] = static_cast<float>((i * 7 + p) % 11 - 5) / 8.0f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int64_t>(i % 13) - 6) / 8.0f;
  for (int32_t id = -1; id < API(kernel_count)(); ++id) {
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) c[i * ldc + j] = 1.0f;
    const Status s = id < 0 ? PKG(m, n, k, 1.0f, a, lda, b.data(), n, 1.0f, c, ldc)
                            : API(with_kernel)(id, m, n, k, 1.0f, a, lda, b.data(), n, 1.0f, c, ldc);
    int64_t bad = 0;
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double sum = 1.0;
        for (int64_t p = 0; p < k; ++p)
          sum += static_cast<double>(a[i * lda + p]) * static_cast<double>(b[static_cast<size_t>(p * n + j)]);
        bad += std::fabs(static_cast<double>(c[i * ldc + j]) - sum) > 1e-4;
      }
    tally.expect(s == kOk && bad == 0, "rows 2^30 elements apart, kernel " + std::to_string(id) + ": status " +
                                           std::to_string(s) + ", " + std::to_string(bad) + " wrong elements");
  }
  munmap(a_map, a_bytes);
  munmap(c_map, c_bytes);
}

}  // namespace

int main(int argc, char** argv) {
  int sweep = 400;
  bool concurrency_only = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--sweep") == 0 && i + 1 < argc)
      sweep = std::atoi(argv[++i]);
    else if (std::strcmp(argv[i], "--concurrency-only") == 0)
      concurrency_only = true;
  }
  Tally tally;
  if (!concurrency_only) {
    invalid_arguments(tally);
    random_sweep(tally, sweep);
    beyond_32_bits(tally);
  }
  concurrency(tally, concurrency_only ? 40 : 60);
  return tally.finish();
}
