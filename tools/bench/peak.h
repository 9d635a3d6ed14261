// The machine's fp32 peak, measured with a loop of independent FMAs on registers only (no loads or stores), so
// that every GEMM time can be read as a fraction of what the cores can do at all.
#ifndef STRATA_TOOLS_BENCH_PEAK_H_
#define STRATA_TOOLS_BENCH_PEAK_H_

#include <string>

namespace strata_bench {

struct Peak {
  std::string isa;             // "avx512f", "avx2+fma" or "none"
  int threads = 0;
  double flops_per_second = 0.0;  // all threads together; 0 when no FMA instruction set is available
};

// Runs the loop on `threads` threads at once and returns the best of a few trials (disturbances only slow it).
Peak MeasurePeak(int threads);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_PEAK_H_
