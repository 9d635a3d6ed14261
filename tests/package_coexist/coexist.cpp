// Two packages in one process, called at the same time from two threads under their default thread counts
// (tests/test_vendoring.cpp builds it against two installed static packages, vend_a and vend_b):
//   - alone, each plans the shape on all its threads (else the check below would be vacuous);
//   - while both run, each finds the CPUs shared and plans fewer threads for most of its calls, and every call,
//     through the plain entry and through a caller's workspace sized before the CPUs were shared, is correct;
//   - once both have stopped, the limit lapses within its longest back-off and each plans all its threads again.
// It prints one line per failure and "coexist: N passed, M failed"; exits 0 iff M is 0. Sample counts depend on the
// machine's load; what is checked does not.
//
// `coexist --compare M N K SECONDS default|set` measures instead: both packages called at once on M x N x K for
// SECONDS, under the default or with their thread counts set to the default's (each pool then runs all of them,
// measuring nothing); it prints the calls per second of both together (tools/coexist.sh alternates the two).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <thread>
#include <vector>

#include "vend_a.h"
#include "vend_b.h"

namespace {

// One package's entry points, by name.
struct Package {
  const char* name;
  int (*gemm)(int64_t, int64_t, int64_t, const float*, const float*, float*);
  int (*gemm_in)(int64_t, int64_t, int64_t, const float*, const float*, float*, void*, size_t);
  int32_t (*planned_threads)(int64_t, int64_t, int64_t);
  size_t (*workspace_size)(int64_t, int64_t, int64_t);
  int32_t (*threads)();
  int (*set_threads)(int32_t);
};

// clang-format off
#define PACKAGE_ENTRIES(pkg)                                                                                   \
  Package{                                                                                                     \
    #pkg,                                                                                                      \
    [](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c) {                            \
      return static_cast<int>(pkg(m, n, k, 1.0f, a, k, b, n, 0.0f, c, n));                                     \
    },                                                                                                         \
    [](int64_t m, int64_t n, int64_t k, const float* a, const float* b, float* c, void* w, size_t bytes) {     \
      return static_cast<int>(pkg##_with_workspace(m, n, k, 1.0f, a, k, b, n, 0.0f, c, n, w, bytes));          \
    },                                                                                                         \
    [](int64_t m, int64_t n, int64_t k) {                                                                      \
      pkg##_plan_t plan{};                                                                                     \
      return pkg##_plan(m, n, k, &plan) == 0 ? plan.threads : -1;                                              \
    },                                                                                                         \
    [](int64_t m, int64_t n, int64_t k) { return pkg##_workspace_size(m, n, k); },                             \
    [] { return pkg##_get_num_threads(); },                                                                    \
    [](int32_t t) { return static_cast<int>(pkg##_set_num_threads(t)); },                                      \
  }
// clang-format on

int g_passed = 0, g_failed = 0;

void expect(bool ok, const std::string& what) {
  if (ok) {
    ++g_passed;
  } else {
    ++g_failed;
    std::printf("FAIL: %s\n", what.c_str());
  }
}

struct Shape {
  int64_t m, n, k;
};

struct Operands {
  std::vector<float> a, b, reference;
};

Operands operands(Shape s) {
  Operands o;
  o.a.resize(static_cast<size_t>(s.m * s.k));
  o.b.resize(static_cast<size_t>(s.k * s.n));
  for (size_t i = 0; i < o.a.size(); ++i) o.a[i] = static_cast<float>(static_cast<int>(i % 13) - 6) / 8.0f;
  for (size_t i = 0; i < o.b.size(); ++i) o.b[i] = static_cast<float>(static_cast<int>(i % 7) - 3) / 4.0f;
  // Products of eighths and quarters summed in float are exact while the sums stay small: the reference is exact.
  o.reference.assign(static_cast<size_t>(s.m * s.n), 0.0f);
  for (int64_t i = 0; i < s.m; ++i)
    for (int64_t p = 0; p < s.k; ++p)
      for (int64_t j = 0; j < s.n; ++j)
        o.reference[static_cast<size_t>(i * s.n + j)] +=
            o.a[static_cast<size_t>(i * s.k + p)] * o.b[static_cast<size_t>(p * s.n + j)];
  return o;
}

// What one package saw while both ran.
struct Record {
  int calls = 0, limited = 0, single = 0, wrong = 0, failed = 0;
};

// Calls `p` until `stop`, alternating the plain entry and a caller's workspace of `workspace_bytes`; records the
// threads planned before each call.
Record run_until(const Package& p, Shape s, const Operands& o, size_t workspace_bytes, const std::atomic<bool>& stop,
                 std::atomic<int>& ready) {
  Record r;
  std::vector<float> c(o.reference.size());
  std::vector<unsigned char> workspace(std::max<size_t>(workspace_bytes, 1));
  const int32_t all = p.threads();
  ready.fetch_add(1);
  while (ready.load() < 2) std::this_thread::yield();
  while (!stop.load()) {
    const int32_t planned = p.planned_threads(s.m, s.n, s.k);
    r.limited += planned < all;
    r.single += planned == 1;
    std::fill(c.begin(), c.end(), NAN);
    const int status = r.calls % 2 == 0 ? p.gemm(s.m, s.n, s.k, o.a.data(), o.b.data(), c.data())
                                        : p.gemm_in(s.m, s.n, s.k, o.a.data(), o.b.data(), c.data(), workspace.data(),
                                                    workspace_bytes);
    r.failed += status != 0;
    r.wrong += c != o.reference;
    ++r.calls;
  }
  return r;
}

// Both packages' calls per second on `s` for `seconds`, called at once from two threads.
int compare(const Package (&packages)[2], Shape s, double seconds) {
  const Operands o = operands(s);
  const size_t workspace_bytes =
      std::max(packages[0].workspace_size(s.m, s.n, s.k), packages[1].workspace_size(s.m, s.n, s.k));
  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  Record records[2];
  std::thread second([&] { records[1] = run_until(packages[1], s, o, workspace_bytes, stop, ready); });
  std::thread stopper([&] {
    while (ready.load() < 2) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
    stop.store(true);
  });
  records[0] = run_until(packages[0], s, o, workspace_bytes, stop, ready);
  second.join();
  stopper.join();
  std::printf("%.3f calls/s, %d + %d calls, %d + %d planned fewer threads\n",
              (records[0].calls + records[1].calls) / seconds, records[0].calls, records[1].calls, records[0].limited,
              records[1].limited);
  return records[0].failed + records[1].failed + records[0].wrong + records[1].wrong == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  const Package packages[2] = {PACKAGE_ENTRIES(vend_a), PACKAGE_ENTRIES(vend_b)};
  if (argc == 7 && std::string(argv[1]) == "--compare") {
    if (std::string(argv[6]) == "set")
      for (const Package& p : packages) p.set_threads(p.threads());
    return compare(packages, Shape{std::atoll(argv[2]), std::atoll(argv[3]), std::atoll(argv[4])},
                   std::atof(argv[5]));
  }
  const int32_t threads = packages[0].threads();
  if (threads < 2 || packages[1].threads() != threads) {
    std::printf("coexist: skipped, %d CPUs\n", threads);
    return 0;
  }
  // A shape whose one-thread call takes some milliseconds: a region of a millisecond or more is measured, and the
  // back-offs are meant for calls shorter than them.
  Shape s{96, 96, 64};
  for (;;) {
    const Operands probe = operands(s);
    std::vector<float> c(probe.reference.size());
    const auto start = std::chrono::steady_clock::now();
    packages[1].gemm(s.m, s.n, s.k, probe.a.data(), probe.b.data(), c.data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (seconds * threads >= 5e-3 || s.k >= 8192) break;
    s.k *= 2;
  }
  std::printf("coexist: %lld x %lld x %lld, %d threads\n", static_cast<long long>(s.m), static_cast<long long>(s.n),
              static_cast<long long>(s.k), threads);
  // The calls above may have found the CPUs shared with another program: the longest back-off is 0.5 s.
  const auto lapse = std::chrono::milliseconds(600);
  std::this_thread::sleep_for(lapse);
  for (const Package& p : packages)
    expect(p.planned_threads(s.m, s.n, s.k) == threads, std::string(p.name) + " alone plans all its threads");
  const Operands o = operands(s);
  const size_t workspace_bytes =
      std::max(packages[0].workspace_size(s.m, s.n, s.k), packages[1].workspace_size(s.m, s.n, s.k));

  std::atomic<bool> stop{false};
  std::atomic<int> ready{0};
  Record records[2];
  std::thread second([&] { records[1] = run_until(packages[1], s, o, workspace_bytes, stop, ready); });
  std::thread stopper([&] {
    while (ready.load() < 2) std::this_thread::yield();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    stop.store(true);
  });
  records[0] = run_until(packages[0], s, o, workspace_bytes, stop, ready);
  second.join();
  stopper.join();
  for (int i = 0; i < 2; ++i) {
    const Record& r = records[i];
    const std::string name = packages[i].name;
    std::printf("coexist: %s: %d calls, %d planned fewer threads, %d one thread\n", name.c_str(), r.calls, r.limited,
                r.single);
    expect(r.failed == 0, name + ": every call returns OK");
    expect(r.wrong == 0, name + ": every call is correct");
    expect(r.calls >= 4, name + ": ran while the other ran");
    expect(2 * r.limited > r.calls, name + ": most calls plan fewer threads while the CPUs are shared");
  }

  std::this_thread::sleep_for(lapse);
  for (const Package& p : packages)
    expect(p.planned_threads(s.m, s.n, s.k) == threads, std::string(p.name) + " plans all its threads again");
  std::printf("coexist: %d passed, %d failed\n", g_passed, g_failed);
  return g_failed == 0 ? 0 : 1;
}
