#include "peak.h"

#include <immintrin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "timing.h"

namespace strata_bench {

namespace {

// Enough independent accumulators to cover FMA latency (4 cycles) times the FMA ports (2) with room to spare.
constexpr int kAccumulators = 12;
constexpr int64_t kIterations = int64_t{1} << 25;  // about 0.1 s at 2 FMAs per cycle
constexpr int kTrials = 3;

// The empty asm makes each accumulator opaque to the compiler, so it cannot fold or shorten the chains; it emits
// no instruction. Returns the FLOPs done; the sum goes to *sink so that the loop is not dead code.
__attribute__((target("avx512f,fma"))) double FmaLoopAvx512(float* sink) {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
  for (int64_t it = 0; it < kIterations; ++it) {
    for (int i = 0; i < kAccumulators; ++i) {
      acc[i] = _mm512_fmadd_ps(acc[i], x, y);
      asm volatile("" : "+v"(acc[i]));
    }
  }
  __m512 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm512_add_ps(sum, acc[i]);
  *sink = _mm512_reduce_add_ps(sum);
  return 2.0 * 16 * kAccumulators * static_cast<double>(kIterations);
}

__attribute__((target("avx2,fma"))) double FmaLoopAvx2(float* sink) {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i) * 1e-3f);
  const __m256 x = _mm256_set1_ps(0.999999f), y = _mm256_set1_ps(1e-7f);
  for (int64_t it = 0; it < kIterations; ++it) {
    for (int i = 0; i < kAccumulators; ++i) {
      acc[i] = _mm256_fmadd_ps(acc[i], x, y);
      asm volatile("" : "+x"(acc[i]));
    }
  }
  __m256 sum = acc[0];
  for (int i = 1; i < kAccumulators; ++i) sum = _mm256_add_ps(sum, acc[i]);
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, sum);
  float total = 0.0f;
  for (float lane : lanes) total += lane;
  *sink = total;
  return 2.0 * 8 * kAccumulators * static_cast<double>(kIterations);
}

}  // namespace

Peak MeasurePeak(int threads) {
  Peak peak;
  peak.threads = threads;
  __builtin_cpu_init();
  double (*loop)(float*) = nullptr;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma")) {
    peak.isa = "avx512f";
    loop = &FmaLoopAvx512;
  } else if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    peak.isa = "avx2+fma";
    loop = &FmaLoopAvx2;
  } else {
    peak.isa = "none";
    return peak;
  }
  std::vector<float> sinks(static_cast<size_t>(threads));
  for (int trial = 0; trial < kTrials; ++trial) {
    // The threads start together on a flag so that the wall time covers them all running at once.
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    std::vector<double> flops(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        while (!go.load(std::memory_order_acquire)) {
        }
        flops[static_cast<size_t>(t)] = loop(&sinks[static_cast<size_t>(t)]);
      });
    }
    const double start = NowSeconds();
    go.store(true, std::memory_order_release);
    for (std::thread& w : workers) w.join();
    const double elapsed = NowSeconds() - start;
    double total = 0.0;
    for (double f : flops) total += f;
    peak.flops_per_second = std::max(peak.flops_per_second, total / elapsed);
  }
  return peak;
}

}  // namespace strata_bench
