// What host detection measures because nothing tells it: the clock and one core's FMA throughput, and the read
// bandwidth and latency of a buffer of a given size, each the best of a few short timed windows.
#pragma once

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <cstdint>
#include <string>

#include "detect/timing_kernels.h"

namespace strata::detect {

struct ComputeFacts {
  double scalar_ghz = 0;       // dependent adds alone
  double loaded_ghz = 0;       // dependent adds with vector FMAs interleaved
  double fma_gflops = 0;       // one core
  double half_fma_gflops = 0;  // one core, on vectors of half the width (0: not measured, see Kernels)
};

// A few hundred milliseconds on one thread: the clock with and without vector FMAs interleaved, and the FMA
// throughput (also at half width where the ISA has such a figure), each the best of several ~10 ms windows.
ComputeFacts measure_compute(const Kernels& k);

struct Probe {
  double gbps = 0;
  double latency_ns = 0;
  int64_t bytes = 0;        // buffer size actually used
  int threads = 1;          // bandwidth threads
  int64_t chase_lines = 0;  // lines in the latency cycle
};

// Read bandwidth of `threads` threads streaming their own share of a `bytes` buffer at once (summed, best of 4
// windows of ~8 ms), then single-thread load-to-use latency by a pointer chase through the same buffer.
Probe probe_memory(const Kernels& k, int64_t bytes, int threads, int line);

// How a probe was measured, for a descriptor's `source`.
std::string probe_text(const Kernels& k, const Probe& p, int line);

}  // namespace strata::detect

#endif
