// The machine's fp32 peak, measured with a loop of independent FMAs on registers only (no loads or stores), so
// that every GEMM time can be read as a fraction of what the cores can do at all.
#ifndef STRATA_TOOLS_BENCH_PEAK_H_
#define STRATA_TOOLS_BENCH_PEAK_H_

#include <string>

namespace strata_bench {

struct Peak {
  std::string isa;  // "avx512f", "avx2+fma" or "none"
  int threads = 0;
  // All threads together, each thread's FLOPs over its own CPU time: what the cores do while they run, which a
  // busy shared machine does not lower. 0 when no FMA instruction set is available.
  double flops_per_second = 0.0;
  // The same FLOPs over wall time: what this process actually got while measuring (lower on a loaded machine).
  double wall_flops_per_second = 0.0;
};

// Runs the loop on `threads` threads at once and keeps the best of a few trials (disturbances only slow it).
Peak MeasurePeak(int threads);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_PEAK_H_
