// The timed hot loops of host detection: inline-assembly clock, FMA, streaming-read and pointer-chase loops for
// each vector ISA, and the Kernels table through which the measurements reach the loops of the host's ISA.
#pragma once

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <cstdint>

#include "spec/arch.h"

namespace strata::detect {

constexpr int kChainAdds = 16;  // dependent adds per iteration of the clock loops

// The clock loop: kChainAdds dependent 1-cycle integer adds per iteration, `iters` >= 1 iterations.
void add_chain(int64_t iters);

// Follows `steps` >= 1 links of a pointer chain: each load's address is the previous load's value.
const void* chase(const void* p, int64_t steps);

// What the measurements need to know about the vector ISA the kernels will use.
struct Kernels {
  VectorIsa isa = VectorIsa::none;
  const char* isa_name = "";   // for sources: "AVX-512"
  const char* fma_insn = "";   // for sources: the instruction the FMA loop issues
  const char* load_insn = "";  // for sources: the instruction the bandwidth loop issues
  int vector_bits = 0;
  int vector_registers = 0;
  Broadcast broadcast = Broadcast::memory;
  int max_fma_pipes = 2;  // clamp for the measured pipe count
  int fma_chains = 0;     // independent FMAs per iteration of fma_loop
  void (*fma_loop)(int64_t iters) = nullptr;
  // AVX-512 only: the same loop on 256-bit vectors (half_width_fma_pipes); null where the ISA has no such figure.
  void (*half_fma_loop)(int64_t iters) = nullptr;
  const char* half_fma_insn = "";
  void (*add_chain_loaded)(int64_t iters) = nullptr;
  void (*sum)(const char* base, const char* end, int64_t passes) = nullptr;

  int lanes() const { return vector_bits / 32; }
};

#if defined(__x86_64__)
Kernels avx512_kernels();
Kernels avx2_kernels();
#else
Kernels neon_kernels();
#endif

}  // namespace strata::detect

#endif
