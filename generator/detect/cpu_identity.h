// Which CPU host detection runs on: its name (the one profile records and kits use), the vector ISA the kernels
// will use with the evidence for it (CPUID and XGETBV on x86-64, HWCAP on aarch64), and the FMA latency the
// published optimization guides give for it.
#pragma once

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#include <string>

#include "detect/timing_kernels.h"

namespace strata::detect {

struct CpuIdentity {
  Kernels kernels;
  std::string model;         // one line for humans: strata_kit::cpu_identity(), as profile records name the CPU
  std::string isa_evidence;  // how the vector ISA was established
  bool amd = false;          // x86: which CPUID cache leaf to fall back on
  // Published, not measured: a lone dependent FMA chain runs at a lower FMA density than kernels do and so, on
  // some cores, at a different clock, which would blur a measured latency by a cycle.
  int fma_latency_cycles = 4;
  std::string fma_latency_basis;
};

// Fails on a CPU (or OS) without a vector ISA Strata targets: AVX2+FMA or AVX-512 on x86-64, NEON on aarch64.
CpuIdentity identify_cpu();

#if defined(__x86_64__)

struct CpuidRegs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

// CPUID leaf and subleaf; false when the CPU does not have the leaf.
bool cpuid(unsigned leaf, unsigned subleaf, CpuidRegs* r);

#endif

}  // namespace strata::detect

#endif
