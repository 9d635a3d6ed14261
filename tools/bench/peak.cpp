#include "peak.h"

#include <time.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "timing.h"

namespace strata_bench {

namespace {

constexpr int64_t kIterations = int64_t{1} << 24;  // about 0.1 s per trial at 2 FMAs per cycle
constexpr int kTrials = 5;
// Twelve independent accumulators: more than FMA latency (4 cycles) times FMA ports (2), so the loop is bound by
// throughput alone.
constexpr int kAccumulators = 12;

// The loops are written in assembly: compiled from intrinsics, an array of accumulators may live on the stack,
// and then the loop measures store forwarding instead of the FMA units. All registers start at zero, so no
// denormal operand can slow them down. Each returns the FLOPs it did.
double FmaLoopAvx512() {
  int64_t n = kIterations;
  asm volatile(
      "vxorps %%xmm0, %%xmm0, %%xmm0\n\t"
      "vmovaps %%zmm0, %%zmm1\n\t vmovaps %%zmm0, %%zmm2\n\t vmovaps %%zmm0, %%zmm3\n\t"
      "vmovaps %%zmm0, %%zmm4\n\t vmovaps %%zmm0, %%zmm5\n\t vmovaps %%zmm0, %%zmm6\n\t"
      "vmovaps %%zmm0, %%zmm7\n\t vmovaps %%zmm0, %%zmm8\n\t vmovaps %%zmm0, %%zmm9\n\t"
      "vmovaps %%zmm0, %%zmm10\n\t vmovaps %%zmm0, %%zmm11\n\t vmovaps %%zmm0, %%zmm12\n\t"
      "vmovaps %%zmm0, %%zmm13\n\t"
      "1:\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm0\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm1\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm2\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm3\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm4\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm5\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm6\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm7\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm8\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm9\n\t"
      "vfmadd231ps %%zmm12, %%zmm13, %%zmm10\n\t vfmadd231ps %%zmm12, %%zmm13, %%zmm11\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "cc");
  return 2.0 * 16 * kAccumulators * static_cast<double>(kIterations);
}

double FmaLoopAvx2() {
  int64_t n = kIterations;
  asm volatile(
      "vxorps %%xmm0, %%xmm0, %%xmm0\n\t"
      "vmovaps %%ymm0, %%ymm1\n\t vmovaps %%ymm0, %%ymm2\n\t vmovaps %%ymm0, %%ymm3\n\t"
      "vmovaps %%ymm0, %%ymm4\n\t vmovaps %%ymm0, %%ymm5\n\t vmovaps %%ymm0, %%ymm6\n\t"
      "vmovaps %%ymm0, %%ymm7\n\t vmovaps %%ymm0, %%ymm8\n\t vmovaps %%ymm0, %%ymm9\n\t"
      "vmovaps %%ymm0, %%ymm10\n\t vmovaps %%ymm0, %%ymm11\n\t vmovaps %%ymm0, %%ymm12\n\t"
      "vmovaps %%ymm0, %%ymm13\n\t"
      "1:\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm0\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm1\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm2\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm3\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm4\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm5\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm6\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm7\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm8\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm9\n\t"
      "vfmadd231ps %%ymm12, %%ymm13, %%ymm10\n\t vfmadd231ps %%ymm12, %%ymm13, %%ymm11\n\t"
      "dec %0\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : "+r"(n)
      :
      : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11", "xmm12",
        "xmm13", "cc");
  return 2.0 * 8 * kAccumulators * static_cast<double>(kIterations);
}

double ThreadCpuSeconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

}  // namespace

Peak MeasurePeak(int threads) {
  Peak peak;
  peak.threads = threads;
  __builtin_cpu_init();
  double (*loop)() = nullptr;
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
  for (int trial = 0; trial < kTrials; ++trial) {
    // The threads start together on a flag so that they run (and load the cores) at the same time.
    std::atomic<bool> go{false};
    std::vector<std::thread> workers;
    std::vector<double> flops(static_cast<size_t>(threads)), cpu_seconds(static_cast<size_t>(threads));
    for (int t = 0; t < threads; ++t) {
      workers.emplace_back([&, t] {
        while (!go.load(std::memory_order_acquire)) {
        }
        const double cpu_start = ThreadCpuSeconds();
        flops[static_cast<size_t>(t)] = loop();
        cpu_seconds[static_cast<size_t>(t)] = ThreadCpuSeconds() - cpu_start;
      });
    }
    const double start = NowSeconds();
    go.store(true, std::memory_order_release);
    for (std::thread& w : workers) w.join();
    const double wall = NowSeconds() - start;
    double rate = 0.0, total = 0.0;
    for (size_t t = 0; t < flops.size(); ++t) {
      rate += flops[t] / cpu_seconds[t];
      total += flops[t];
    }
    peak.flops_per_second = std::max(peak.flops_per_second, rate);
    peak.wall_flops_per_second = std::max(peak.wall_flops_per_second, total / wall);
  }
  return peak;
}

}  // namespace strata_bench
