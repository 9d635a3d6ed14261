// Timing main of strata's host profiler (generated; not part of any package).
//
// For every micro-kernel below it checks the full {{PACKAGE}} register tile once against a plain reference (a
// wrong kernel must never be profiled as fast), then times it on packed panels small enough to stay in L1. Calls
// are batched (~2 ms a batch); each round over all kernels takes the median time per call of a few batches per
// kernel, and a kernel's result is its fastest round's median:
//   RESULT <kernel> <seconds per call>
// Rounds, because on a shared machine a neighbour can slow the core for seconds at a time: the median rejects
// short spikes, the best round long stretches that would otherwise hit a run of consecutive kernels.
// "START <kernel>" lines before each timing let the generator show progress.
//
// Usage: profiler [depth [rounds]], 256 and 3 by default. Exit status: 0 ok, 1 a kernel computed a wrong
// result, 2 bad usage or out of memory.
//
// Dependency-free on purpose: it is built with the host compiler alone, and without ISA flags (only the kernel
// files get them), so nothing here runs vector code the CPU may lack.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "internal.h"

using {{PACKAGE}}_internal::TileArgs;
using {{PACKAGE}}_internal::TileFn;

// Each kernel is compiled inside a namespace of its own, so that several kernels can share a translation unit.
{{#KERNEL}}namespace {{NS}}::{{PACKAGE}}_internal {
void {{NAME}}_full_packed(const TileArgs& args);
}
{{/KERNEL}}
namespace {

struct Kernel {
  const char* name;
  int mr;
  int nr;
  int ku;
  TileFn fn;
};

const Kernel kKernels[] = {
{{#KERNEL}}    {"{{NAME}}", {{MR}}, {{NR}}, {{KU}}, &{{NS}}::{{PACKAGE}}_internal::{{NAME}}_full_packed},
{{/KERNEL}}};

constexpr int kBatches = 3;  // per kernel and round
constexpr double kBatchSeconds = 2e-3;
constexpr double kCalibrationSeconds = 0.25e-3;

// 64-byte aligned floats, like the package's packed panels.
class Buffer {
 public:
  explicit Buffer(size_t count) {
    const size_t bytes = (count * sizeof(float) + 63) / 64 * 64;
    data_ = static_cast<float*>(std::aligned_alloc(64, bytes));
    if (!data_) {
      std::fprintf(stderr, "ERROR cannot allocate %zu bytes\n", bytes);
      std::exit(2);
    }
  }
  ~Buffer() { std::free(data_); }
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  float* data() const { return data_; }

 private:
  float* data_ = nullptr;
};

// Multiples of 1/4 in [-0.75, 0.75]: every product and partial sum is exact in float, whatever order a kernel
// adds in, so the check can demand equality up to a tiny slack.
float small_value(size_t i, int salt) { return static_cast<float>(static_cast<int>((i * 5 + salt) % 7) - 3) * 0.25f; }

void fill(float* p, size_t count, int salt) {
  for (size_t i = 0; i < count; ++i) p[i] = small_value(i, salt);
}

TileArgs tile_args(const Kernel& k, int64_t depth, const float* a, const float* b, float* c, float alpha,
                   float beta) {
  TileArgs t{};
  t.k = depth;
  t.a = a;
  t.lda = 0;  // ignored for packed panels
  t.b = b;
  t.ldb = 0;
  t.c = c;
  t.ldc = k.nr;
  t.alpha = alpha;
  t.beta = beta;
  t.rows = k.mr;
  t.cols = k.nr;
  return t;
}

// Runs the kernel once with (alpha, beta) on C = c_init and compares with the reference; exits on a mismatch.
void check_once(const Kernel& k, int64_t depth, const float* a, const float* b, float* c, const float* c_init,
                float alpha, float beta) {
  const size_t tile = static_cast<size_t>(k.mr) * k.nr;
  std::copy(c_init, c_init + tile, c);
  k.fn(tile_args(k, depth, a, b, c, alpha, beta));
  for (int r = 0; r < k.mr; ++r)
    for (int j = 0; j < k.nr; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < depth; ++p) sum += double(a[p * k.mr + r]) * double(b[p * k.nr + j]);
      const double old = beta == 0.0f ? 0.0 : double(c_init[r * k.nr + j]);
      const double expected = alpha * sum + beta * old;
      const double got = c[r * k.nr + j];
      if (!(std::fabs(got - expected) <= 1e-5 * (1.0 + std::fabs(expected)))) {
        std::fprintf(stderr, "ERROR %s: C(%d, %d) = %.9g but the reference is %.9g (depth %lld, alpha %g, beta %g)\n",
                     k.name, r, j, got, expected, static_cast<long long>(depth), alpha, beta);
        std::exit(1);
      }
    }
}

double seconds_of(const Kernel& k, const TileArgs& args, long calls) {
  const auto start = std::chrono::steady_clock::now();
  for (long i = 0; i < calls; ++i) k.fn(args);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The number of calls that take about kBatchSeconds (doubling up from one call also warms the kernel up).
long calls_per_batch(const Kernel& k, const TileArgs& args) {
  long calls = 1;
  double t = 0;
  while ((t = seconds_of(k, args, calls)) < kCalibrationSeconds) calls *= 2;
  return std::max(1L, static_cast<long>(calls * kBatchSeconds / t));
}

// Median time per call over kBatches batches. beta = 1 keeps C read and written in L1 as in the package's inner
// loop; C is reset between batches (untimed) so its values stay small.
double median_seconds(const Kernel& k, const TileArgs& args, long batch) {
  const size_t tile = static_cast<size_t>(k.mr) * k.nr;
  seconds_of(k, args, batch);  // warm-up at the batch length: caches, predictors and clock settle
  double per_call[kBatches];
  for (double& t : per_call) {
    std::fill(args.c, args.c + tile, 0.0f);
    t = seconds_of(k, args, batch) / batch;
  }
  std::sort(per_call, per_call + kBatches);
  return per_call[kBatches / 2];
}

// The panels of one kernel, filled with the check's values.
struct Panels {
  Panels(const Kernel& k, int64_t depth)
      : a(static_cast<size_t>(k.mr) * depth), b(static_cast<size_t>(depth) * k.nr), c(tile(k)), c_init(tile(k)) {
    fill(a.data(), static_cast<size_t>(k.mr) * depth, 1);
    fill(b.data(), static_cast<size_t>(depth) * k.nr, 2);
  }
  static size_t tile(const Kernel& k) { return static_cast<size_t>(k.mr) * k.nr; }
  Buffer a, b, c, c_init;
};

void check(const Kernel& k, int64_t depth, Panels& p) {
  // beta == 0 must not read C: NaN there would show through.
  std::fill(p.c_init.data(), p.c_init.data() + Panels::tile(k), std::nanf(""));
  check_once(k, depth, p.a.data(), p.b.data(), p.c.data(), p.c_init.data(), 0.5f, 0.0f);
  fill(p.c_init.data(), Panels::tile(k), 3);
  check_once(k, depth, p.a.data(), p.b.data(), p.c.data(), p.c_init.data(), 1.0f, 0.5f);
}

bool parse_arg(int argc, char** argv, int index, long long* value) {
  return argc <= index || (std::sscanf(argv[index], "%lld", value) == 1 && *value >= 1);
}

}  // namespace

int main(int argc, char** argv) {
  long long depth = 256, rounds = 3;
  if (argc > 3 || !parse_arg(argc, argv, 1, &depth) || !parse_arg(argc, argv, 2, &rounds)) {
    std::fprintf(stderr, "usage: %s [depth >= 1 [rounds >= 1]]\n", argv[0]);
    return 2;
  }
  constexpr size_t kCount = sizeof(kKernels) / sizeof(kKernels[0]);
  long batch[kCount] = {};
  double best[kCount] = {};
  for (long long round = 0; round < rounds; ++round)
    for (size_t i = 0; i < kCount; ++i) {
      const Kernel& k = kKernels[i];
      std::printf("START %s\n", k.name);
      std::fflush(stdout);
      Panels p(k, depth);
      if (round == 0) check(k, depth, p);
      const TileArgs args = tile_args(k, depth, p.a.data(), p.b.data(), p.c.data(), 1.0f, 1.0f);
      if (round == 0) batch[i] = calls_per_batch(k, args);
      const double t = median_seconds(k, args, batch[i]);
      best[i] = round == 0 ? t : std::min(best[i], t);
    }
  for (size_t i = 0; i < kCount; ++i) std::printf("RESULT %s %.4g\n", kKernels[i].name, best[i]);
  return std::fflush(stdout) == 0 ? 0 : 2;
}
