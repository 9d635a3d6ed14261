#include "detect/host_detect.h"

#include <fmt/format.h>

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))
#define STRATA_HOST_DETECT 1
#endif

#ifdef STRATA_HOST_DETECT

#include <sched.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <cpuid.h>
#else
#include <asm/hwcap.h>
#include <sys/auxv.h>
#endif

#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <fstream>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace strata {
namespace {

// ---------------------------------------------------------------------------------------------------------------
// Hot loops. They are inline assembly rather than intrinsics so that what runs is exactly the instruction mix the
// sources describe at any optimization level (at -O0, intrinsic accumulators live on the stack and the loops
// measure store forwarding instead of the FMA units), and the assembler needs no -march flag for it.
// Every loop counter must be >= 1.
// ---------------------------------------------------------------------------------------------------------------

constexpr int kChainAdds = 16;  // dependent adds per iteration of the clock loops

#define STRATA_REP2(s) s s
#define STRATA_REP4(s) STRATA_REP2(STRATA_REP2(s))
#define STRATA_REP16(s) STRATA_REP4(STRATA_REP4(s))
// For the loaded clock loops: 4 dependent adds with 3 independent FMAs between them (each architecture defines
// STRATA_ADD and STRATA_FMA).
#define STRATA_LOADED_GROUP(a, b, c) \
  STRATA_ADD STRATA_FMA(a)           \
  STRATA_ADD STRATA_FMA(b)           \
  STRATA_ADD STRATA_FMA(c) STRATA_ADD

#if defined(__x86_64__)

// kChainAdds dependent register-register adds per iteration: one add per cycle, so iterations/s x kChainAdds is
// the core clock. Register operands, because some cores fold add-immediate chains at rename.
void add_chain(int64_t iters) {
  uint64_t x = 0;
  const uint64_t one = 1;
  __asm__ volatile("1:\n\t" STRATA_REP16("add %[one], %[x]\n\t") "dec %[n]\n\t"
                   "jnz 1b\n\t"
                   : [x] "+r"(x), [n] "+r"(iters)
                   : [one] "r"(one)
                   : "cc");
}

#define STRATA_ADD "add %[one], %[x]\n\t"

// The same dependent add chain with 12 independent vector FMAs (on 8 accumulators) interleaved: the loop still
// runs at one add per cycle, but at the frequency the core grants to FMA-dense vector code, which is the clock
// the FMA loop and the generated kernels see. Three FMAs per four cycles: dense enough for the same frequency
// licence as the FMA loop (at one per two cycles, some windows ran faster), yet below one per cycle so that a
// core with a single FMA pipe cannot become the bottleneck.
void add_chain_loaded_avx512(int64_t iters) {
  uint64_t x = 0;
  const uint64_t one = 1;
  const float b = 0.999f, c = 0.001f;
#define STRATA_FMA(r) "vfmadd231ps %%zmm12, %%zmm13, %%zmm" #r "\n\t"
  __asm__ volatile(
      "vbroadcastss %[b], %%zmm12\n\t"
      "vbroadcastss %[c], %%zmm13\n\t"
      "vmovaps %%zmm13, %%zmm0\n\tvmovaps %%zmm13, %%zmm1\n\tvmovaps %%zmm13, %%zmm2\n\tvmovaps %%zmm13, %%zmm3\n\t"
      "vmovaps %%zmm13, %%zmm4\n\tvmovaps %%zmm13, %%zmm5\n\tvmovaps %%zmm13, %%zmm6\n\tvmovaps %%zmm13, %%zmm7\n\t"
      "1:\n\t" STRATA_LOADED_GROUP(0, 1, 2) STRATA_LOADED_GROUP(3, 4, 5) STRATA_LOADED_GROUP(6, 7, 0)
          STRATA_LOADED_GROUP(1, 2, 3) "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : [x] "+r"(x), [n] "+r"(iters)
      : [one] "r"(one), [b] "m"(b), [c] "m"(c)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm12", "xmm13");
#undef STRATA_FMA
}

void add_chain_loaded_avx2(int64_t iters) {
  uint64_t x = 0;
  const uint64_t one = 1;
  const float b = 0.999f, c = 0.001f;
#define STRATA_FMA(r) "vfmadd231ps %%ymm12, %%ymm13, %%ymm" #r "\n\t"
  __asm__ volatile(
      "vbroadcastss %[b], %%ymm12\n\t"
      "vbroadcastss %[c], %%ymm13\n\t"
      "vmovaps %%ymm13, %%ymm0\n\tvmovaps %%ymm13, %%ymm1\n\tvmovaps %%ymm13, %%ymm2\n\tvmovaps %%ymm13, %%ymm3\n\t"
      "vmovaps %%ymm13, %%ymm4\n\tvmovaps %%ymm13, %%ymm5\n\tvmovaps %%ymm13, %%ymm6\n\tvmovaps %%ymm13, %%ymm7\n\t"
      "1:\n\t" STRATA_LOADED_GROUP(0, 1, 2) STRATA_LOADED_GROUP(3, 4, 5) STRATA_LOADED_GROUP(6, 7, 0)
          STRATA_LOADED_GROUP(1, 2, 3) "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : [x] "+r"(x), [n] "+r"(iters)
      : [one] "r"(one), [b] "m"(b), [c] "m"(c)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm12", "xmm13");
#undef STRATA_FMA
}
#undef STRATA_ADD

// 12 independent FMA chains per iteration, registers only: at least latency x pipes (4 x 2) chains in flight, so
// the loop is bound by FMA issue, not latency.
constexpr int kX86FmaChains = 12;

void fma_chains_avx512(int64_t iters) {
  const float b = 0.999f, c = 0.001f;
#define STRATA_FMA(r) "vfmadd231ps %%zmm12, %%zmm13, %%zmm" #r "\n\t"
  __asm__ volatile(
      "vbroadcastss %[b], %%zmm12\n\t"
      "vbroadcastss %[c], %%zmm13\n\t"
      "vmovaps %%zmm13, %%zmm0\n\tvmovaps %%zmm13, %%zmm1\n\tvmovaps %%zmm13, %%zmm2\n\tvmovaps %%zmm13, %%zmm3\n\t"
      "vmovaps %%zmm13, %%zmm4\n\tvmovaps %%zmm13, %%zmm5\n\tvmovaps %%zmm13, %%zmm6\n\tvmovaps %%zmm13, %%zmm7\n\t"
      "vmovaps %%zmm13, %%zmm8\n\tvmovaps %%zmm13, %%zmm9\n\tvmovaps %%zmm13, %%zmm10\n\t"
      "vmovaps %%zmm13, %%zmm11\n\t"
      "1:\n\t" STRATA_FMA(0) STRATA_FMA(1) STRATA_FMA(2) STRATA_FMA(3) STRATA_FMA(4) STRATA_FMA(5) STRATA_FMA(6)
          STRATA_FMA(7) STRATA_FMA(8) STRATA_FMA(9) STRATA_FMA(10) STRATA_FMA(11) "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : [n] "+r"(iters)
      : [b] "m"(b), [c] "m"(c)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13");
#undef STRATA_FMA
}

void fma_chains_avx2(int64_t iters) {
  const float b = 0.999f, c = 0.001f;
#define STRATA_FMA(r) "vfmadd231ps %%ymm12, %%ymm13, %%ymm" #r "\n\t"
  __asm__ volatile(
      "vbroadcastss %[b], %%ymm12\n\t"
      "vbroadcastss %[c], %%ymm13\n\t"
      "vmovaps %%ymm13, %%ymm0\n\tvmovaps %%ymm13, %%ymm1\n\tvmovaps %%ymm13, %%ymm2\n\tvmovaps %%ymm13, %%ymm3\n\t"
      "vmovaps %%ymm13, %%ymm4\n\tvmovaps %%ymm13, %%ymm5\n\tvmovaps %%ymm13, %%ymm6\n\tvmovaps %%ymm13, %%ymm7\n\t"
      "vmovaps %%ymm13, %%ymm8\n\tvmovaps %%ymm13, %%ymm9\n\tvmovaps %%ymm13, %%ymm10\n\t"
      "vmovaps %%ymm13, %%ymm11\n\t"
      "1:\n\t" STRATA_FMA(0) STRATA_FMA(1) STRATA_FMA(2) STRATA_FMA(3) STRATA_FMA(4) STRATA_FMA(5) STRATA_FMA(6)
          STRATA_FMA(7) STRATA_FMA(8) STRATA_FMA(9) STRATA_FMA(10) STRATA_FMA(11) "dec %[n]\n\t"
      "jnz 1b\n\t"
      "vzeroupper\n\t"
      : [n] "+r"(iters)
      : [b] "m"(b), [c] "m"(c)
      : "cc", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8", "xmm9", "xmm10", "xmm11",
        "xmm12", "xmm13");
#undef STRATA_FMA
}

// Reads [base, end) `passes` times with full-width vector loads feeding 8 independent add chains (enough to
// sustain two loads per cycle at add latency 4). end - base must be a positive multiple of 512 bytes.
void sum_avx512(const char* base, const char* end, int64_t passes) {
  const char* p;
#define STRATA_ADD(r, off) "vaddps " #off "(%[p]), %%zmm" #r ", %%zmm" #r "\n\t"
  __asm__ volatile(
      "vpxord %%zmm0, %%zmm0, %%zmm0\n\tvpxord %%zmm1, %%zmm1, %%zmm1\n\tvpxord %%zmm2, %%zmm2, %%zmm2\n\t"
      "vpxord %%zmm3, %%zmm3, %%zmm3\n\tvpxord %%zmm4, %%zmm4, %%zmm4\n\tvpxord %%zmm5, %%zmm5, %%zmm5\n\t"
      "vpxord %%zmm6, %%zmm6, %%zmm6\n\tvpxord %%zmm7, %%zmm7, %%zmm7\n\t"
      "2:\n\t"
      "mov %[base], %[p]\n\t"
      "1:\n\t" STRATA_ADD(0, 0) STRATA_ADD(1, 64) STRATA_ADD(2, 128) STRATA_ADD(3, 192) STRATA_ADD(4, 256)
          STRATA_ADD(5, 320) STRATA_ADD(6, 384) STRATA_ADD(7, 448) "add $512, %[p]\n\t"
      "cmp %[end], %[p]\n\t"
      "jb 1b\n\t"
      "dec %[passes]\n\t"
      "jnz 2b\n\t"
      "vzeroupper\n\t"
      : [p] "=&r"(p), [passes] "+r"(passes)
      : [base] "r"(base), [end] "r"(end)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
#undef STRATA_ADD
}

void sum_avx2(const char* base, const char* end, int64_t passes) {
  const char* p;
#define STRATA_ADD(r, off) "vaddps " #off "(%[p]), %%ymm" #r ", %%ymm" #r "\n\t"
  __asm__ volatile(
      "vxorps %%ymm0, %%ymm0, %%ymm0\n\tvxorps %%ymm1, %%ymm1, %%ymm1\n\tvxorps %%ymm2, %%ymm2, %%ymm2\n\t"
      "vxorps %%ymm3, %%ymm3, %%ymm3\n\tvxorps %%ymm4, %%ymm4, %%ymm4\n\tvxorps %%ymm5, %%ymm5, %%ymm5\n\t"
      "vxorps %%ymm6, %%ymm6, %%ymm6\n\tvxorps %%ymm7, %%ymm7, %%ymm7\n\t"
      "2:\n\t"
      "mov %[base], %[p]\n\t"
      "1:\n\t" STRATA_ADD(0, 0) STRATA_ADD(1, 32) STRATA_ADD(2, 64) STRATA_ADD(3, 96) STRATA_ADD(4, 128)
          STRATA_ADD(5, 160) STRATA_ADD(6, 192) STRATA_ADD(7, 224) "add $256, %[p]\n\t"
      "cmp %[end], %[p]\n\t"
      "jb 1b\n\t"
      "dec %[passes]\n\t"
      "jnz 2b\n\t"
      "vzeroupper\n\t"
      : [p] "=&r"(p), [passes] "+r"(passes)
      : [base] "r"(base), [end] "r"(end)
      : "cc", "memory", "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7");
#undef STRATA_ADD
}

// Follows `steps` links of a pointer chain: each load's address is the previous load's value.
const void* chase(const void* p, int64_t steps) {
  __asm__ volatile(
      "1:\n\t"
      "mov (%[p]), %[p]\n\t"
      "dec %[n]\n\t"
      "jnz 1b\n\t"
      : [p] "+r"(p), [n] "+r"(steps)
      :
      : "cc", "memory");
  return p;
}

#else  // __aarch64__

void add_chain(int64_t iters) {
  uint64_t x = 0;
  const uint64_t one = 1;
  __asm__ volatile("1:\n\t" STRATA_REP16("add %[x], %[x], %[one]\n\t") "subs %[n], %[n], #1\n\t"
                   "b.ne 1b\n\t"
                   : [x] "+r"(x), [n] "+r"(iters)
                   : [one] "r"(one)
                   : "cc");
}

void add_chain_loaded_neon(int64_t iters) {
  uint64_t x = 0;
  const uint64_t one = 1;
  const float b = 0.999f, c = 0.001f;
#define STRATA_ADD "add %[x], %[x], %[one]\n\t"
#define STRATA_FMA(r) "fmla v" #r ".4s, v24.4s, v25.4s\n\t"
  __asm__ volatile(
      "ld1r {v24.4s}, [%[pb]]\n\t"
      "ld1r {v25.4s}, [%[pc]]\n\t"
      "mov v0.16b, v25.16b\n\tmov v1.16b, v25.16b\n\tmov v2.16b, v25.16b\n\tmov v3.16b, v25.16b\n\t"
      "mov v4.16b, v25.16b\n\tmov v5.16b, v25.16b\n\tmov v6.16b, v25.16b\n\tmov v7.16b, v25.16b\n\t"
      "1:\n\t" STRATA_LOADED_GROUP(0, 1, 2) STRATA_LOADED_GROUP(3, 4, 5) STRATA_LOADED_GROUP(6, 7, 0)
          STRATA_LOADED_GROUP(1, 2, 3) "subs %[n], %[n], #1\n\t"
      "b.ne 1b\n\t"
      : [x] "+r"(x), [n] "+r"(iters)
      : [one] "r"(one), [pb] "r"(&b), [pc] "r"(&c)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v24", "v25");
#undef STRATA_FMA
#undef STRATA_ADD
}

// 24 chains: cores with four 128-bit FMA pipes (Neoverse V1/V2, Apple) need 4 x 4 in flight.
constexpr int kNeonFmaChains = 24;

void fma_chains_neon(int64_t iters) {
  const float b = 0.999f, c = 0.001f;
#define STRATA_FMA(r) "fmla v" #r ".4s, v24.4s, v25.4s\n\t"
#define STRATA_INIT(r) "mov v" #r ".16b, v25.16b\n\t"
  // clang-format off
  __asm__ volatile(
      "ld1r {v24.4s}, [%[pb]]\n\t"
      "ld1r {v25.4s}, [%[pc]]\n\t"
      STRATA_INIT(0) STRATA_INIT(1) STRATA_INIT(2) STRATA_INIT(3) STRATA_INIT(4) STRATA_INIT(5)
      STRATA_INIT(6) STRATA_INIT(7) STRATA_INIT(8) STRATA_INIT(9) STRATA_INIT(10) STRATA_INIT(11)
      STRATA_INIT(12) STRATA_INIT(13) STRATA_INIT(14) STRATA_INIT(15) STRATA_INIT(16) STRATA_INIT(17)
      STRATA_INIT(18) STRATA_INIT(19) STRATA_INIT(20) STRATA_INIT(21) STRATA_INIT(22) STRATA_INIT(23)
      "1:\n\t"
      STRATA_FMA(0) STRATA_FMA(1) STRATA_FMA(2) STRATA_FMA(3) STRATA_FMA(4) STRATA_FMA(5)
      STRATA_FMA(6) STRATA_FMA(7) STRATA_FMA(8) STRATA_FMA(9) STRATA_FMA(10) STRATA_FMA(11)
      STRATA_FMA(12) STRATA_FMA(13) STRATA_FMA(14) STRATA_FMA(15) STRATA_FMA(16) STRATA_FMA(17)
      STRATA_FMA(18) STRATA_FMA(19) STRATA_FMA(20) STRATA_FMA(21) STRATA_FMA(22) STRATA_FMA(23)
      "subs %[n], %[n], #1\n\t"
      "b.ne 1b\n\t"
      : [n] "+r"(iters)
      : [pb] "r"(&b), [pc] "r"(&c)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25");
  // clang-format on
#undef STRATA_INIT
#undef STRATA_FMA
}

// 128 bytes per iteration through four load pairs into 8 independent add chains. end - base must be a positive
// multiple of 128 bytes.
void sum_neon(const char* base, const char* end, int64_t passes) {
  const char* p;
  __asm__ volatile(
      "movi v0.16b, #0\n\tmovi v1.16b, #0\n\tmovi v2.16b, #0\n\tmovi v3.16b, #0\n\t"
      "movi v4.16b, #0\n\tmovi v5.16b, #0\n\tmovi v6.16b, #0\n\tmovi v7.16b, #0\n\t"
      "2:\n\t"
      "mov %[p], %[base]\n\t"
      "1:\n\t"
      "ldp q16, q17, [%[p]]\n\t"
      "ldp q18, q19, [%[p], #32]\n\t"
      "ldp q20, q21, [%[p], #64]\n\t"
      "ldp q22, q23, [%[p], #96]\n\t"
      "fadd v0.4s, v0.4s, v16.4s\n\tfadd v1.4s, v1.4s, v17.4s\n\tfadd v2.4s, v2.4s, v18.4s\n\t"
      "fadd v3.4s, v3.4s, v19.4s\n\tfadd v4.4s, v4.4s, v20.4s\n\tfadd v5.4s, v5.4s, v21.4s\n\t"
      "fadd v6.4s, v6.4s, v22.4s\n\tfadd v7.4s, v7.4s, v23.4s\n\t"
      "add %[p], %[p], #128\n\t"
      "cmp %[p], %[end]\n\t"
      "b.lo 1b\n\t"
      "subs %[passes], %[passes], #1\n\t"
      "b.ne 2b\n\t"
      : [p] "=&r"(p), [passes] "+r"(passes)
      : [base] "r"(base), [end] "r"(end)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v16", "v17", "v18", "v19", "v20", "v21",
        "v22", "v23");
}

const void* chase(const void* p, int64_t steps) {
  __asm__ volatile(
      "1:\n\t"
      "ldr %[p], [%[p]]\n\t"
      "subs %[n], %[n], #1\n\t"
      "b.ne 1b\n\t"
      : [p] "+r"(p), [n] "+r"(steps)
      :
      : "cc", "memory");
  return p;
}

#endif

#undef STRATA_LOADED_GROUP
#undef STRATA_REP16
#undef STRATA_REP4
#undef STRATA_REP2

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
Kernels avx512_kernels() {
  Kernels k;
  k.isa = VectorIsa::avx512;
  k.isa_name = "AVX-512";
  k.fma_insn = "vfmadd231ps zmm";
  k.load_insn = "vaddps zmm, [mem]";
  k.vector_bits = 512;
  k.vector_registers = 32;
  k.broadcast = Broadcast::memory;
  k.fma_chains = kX86FmaChains;
  k.fma_loop = fma_chains_avx512;
  k.half_fma_loop = fma_chains_avx2;
  k.half_fma_insn = "vfmadd231ps ymm";
  k.add_chain_loaded = add_chain_loaded_avx512;
  k.sum = sum_avx512;
  return k;
}

Kernels avx2_kernels() {
  Kernels k;
  k.isa = VectorIsa::avx2;
  k.isa_name = "AVX2";
  k.fma_insn = "vfmadd231ps ymm";
  k.load_insn = "vaddps ymm, [mem]";
  k.vector_bits = 256;
  k.vector_registers = 16;
  k.broadcast = Broadcast::memory;
  k.fma_chains = kX86FmaChains;
  k.fma_loop = fma_chains_avx2;
  k.add_chain_loaded = add_chain_loaded_avx2;
  k.sum = sum_avx2;
  return k;
}
#else
Kernels neon_kernels() {
  Kernels k;
  k.isa = VectorIsa::neon;
  k.isa_name = "NEON";
  k.fma_insn = "fmla v.4s";
  k.load_insn = "ldp q, q";
  k.vector_bits = 128;
  k.vector_registers = 32;
  k.broadcast = Broadcast::lane;
  k.max_fma_pipes = 4;  // Neoverse V1/V2 have four 128-bit FMA pipes
  k.fma_chains = kNeonFmaChains;
  k.fma_loop = fma_chains_neon;
  k.add_chain_loaded = add_chain_loaded_neon;
  k.sum = sum_neon;
  return k;
}
#endif

// ---------------------------------------------------------------------------------------------------------------
// Small helpers
// ---------------------------------------------------------------------------------------------------------------

[[noreturn]] void fail(const std::string& message) { throw Error(SourcePos{"<host>", 0, 0}, message); }

// First line of a (sysfs) text file without trailing whitespace; false when unreadable.
bool read_line(const std::string& path, std::string* out) {
  std::ifstream in(path);
  if (!in || !std::getline(in, *out)) return false;
  while (!out->empty() && std::isspace(static_cast<unsigned char>(out->back()))) out->pop_back();
  return true;
}

bool parse_int(const std::string& text, int64_t* out) {
  if (text.empty()) return false;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 0);
  if (*end != '\0') return false;
  *out = v;
  return true;
}

int64_t read_int(const std::string& path, int64_t fallback) {
  std::string text;
  int64_t v = 0;
  return read_line(path, &text) && parse_int(text, &v) ? v : fallback;
}

// sysfs cache sizes: "32K", "1024K", "36608K", "8M".
int64_t parse_size(const std::string& text) {
  if (text.empty()) return 0;
  int64_t scale = 1;
  std::string digits = text;
  switch (text.back()) {
    case 'K': scale = int64_t{1} << 10; break;
    case 'M': scale = int64_t{1} << 20; break;
    case 'G': scale = int64_t{1} << 30; break;
    default: break;
  }
  if (scale != 1) digits.pop_back();
  int64_t v = 0;
  return parse_int(digits, &v) && v > 0 ? v * scale : 0;
}

// "0-3,8,10-11" -> {0, 1, 2, 3, 8, 10, 11}.
std::vector<int> parse_cpu_list(const std::string& text) {
  std::vector<int> cpus;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t comma = text.find(',', pos);
    if (comma == std::string::npos) comma = text.size();
    const std::string item = text.substr(pos, comma - pos);
    const size_t dash = item.find('-');
    int64_t lo = 0, hi = 0;
    if (parse_int(item.substr(0, dash), &lo)) {
      if (dash == std::string::npos || !parse_int(item.substr(dash + 1), &hi)) hi = lo;
      for (int64_t c = lo; c <= hi; ++c) cpus.push_back(static_cast<int>(c));
    }
    pos = comma + 1;
  }
  return cpus;
}

std::string format_bytes(int64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB"};
  int u = 0;
  double v = static_cast<double>(bytes);
  while (u < 3 && v >= 1024 && std::fmod(v, 1024) == 0) {
    v /= 1024;
    ++u;
  }
  if (u == 0 && bytes >= 1024 * 1024) return fmt::format("{:.1f} MiB", v / (1024 * 1024));
  return fmt::format("{} {}", v, units[u]);
}

// Measured figures keep 3 significant digits: more would be noise, and the descriptor stays readable.
double round_sig(double x, int digits = 3) {
  if (!(x > 0)) return x;
  const int exponent = digits - 1 - static_cast<int>(std::floor(std::log10(x)));
  // Dividing by an exact power of ten (rather than multiplying by an inexact 10^-k) keeps e.g. 12300 exact.
  if (exponent >= 0) {
    const double scale = std::pow(10.0, exponent);
    return std::round(x * scale) / scale;
  }
  const double scale = std::pow(10.0, -exponent);
  return std::round(x / scale) * scale;
}

// CPUs this process may run on (its affinity mask), which is what the generated kernels can use.
std::vector<int> usable_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof set, &set) == 0) {
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  }
  if (cpus.empty()) {
    const long online = sysconf(_SC_NPROCESSORS_ONLN);
    for (long c = 0; c < std::max(1L, online); ++c) cpus.push_back(static_cast<int>(c));
  }
  return cpus;
}

// Distinct (package, core) pairs among `cpus`: SMT siblings share one core's FMA units.
int physical_cores(const std::vector<int>& cpus) {
  std::set<std::pair<int64_t, int64_t>> cores;
  for (int c : cpus) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/topology/", c);
    const int64_t package = read_int(dir + "physical_package_id", -1);
    const int64_t core = read_int(dir + "core_id", -1);
    if (package < 0 || core < 0) return static_cast<int>(cpus.size());
    cores.insert({package, core});
  }
  return static_cast<int>(cores.size());
}

int64_t physical_memory_bytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) fail("cannot read the host's physical memory size (sysconf _SC_PHYS_PAGES)");
  return static_cast<int64_t>(pages) * page;
}

// ---------------------------------------------------------------------------------------------------------------
// CPU identification
// ---------------------------------------------------------------------------------------------------------------

struct CpuIdentity {
  Kernels kernels;
  std::string model;         // one line for humans: brand string and family/model
  std::string isa_evidence;  // how the vector ISA was established
  bool amd = false;          // x86: which CPUID cache leaf to fall back on
  // Published, not measured: a lone dependent FMA chain runs at a lower FMA density than kernels do and so, on
  // some cores, at a different clock, which would blur a measured latency by a cycle.
  int fma_latency_cycles = 4;
  std::string fma_latency_basis;
};

#if defined(__x86_64__)

struct CpuidRegs {
  unsigned a = 0, b = 0, c = 0, d = 0;
};

bool cpuid(unsigned leaf, unsigned subleaf, CpuidRegs* r) {
  return __get_cpuid_count(leaf, subleaf, &r->a, &r->b, &r->c, &r->d) != 0;
}

uint64_t read_xcr0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

std::string regs_text(const CpuidRegs& r, bool bcd_order) {
  char text[17] = {};
  const unsigned words[4] = {bcd_order ? r.b : r.a, bcd_order ? r.d : r.b, r.c, bcd_order ? 0u : r.d};
  std::memcpy(text, words, sizeof words);
  return text;
}

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(' ');
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(' ') - first + 1);
}

// Intel and AMD optimization guides: VFMADD*PS takes 5 cycles on Haswell/Broadwell and on AMD before Zen 4
// (Excavator, Zen 1-3, Hygon Dhyana), 4 on Skylake and later and on Zen 4/5. Zen 3 and Zen 4 share family 19h;
// of the two only Zen 4 has AVX-512.
void set_x86_fma_latency(CpuIdentity& id, const std::string& vendor, unsigned family, unsigned model, bool avx512f) {
  static const std::set<unsigned> kHaswellBroadwell = {0x3c, 0x3f, 0x45, 0x46, 0x3d, 0x47, 0x4f, 0x56};
  const bool intel5 = vendor == "GenuineIntel" && family == 6 && kHaswellBroadwell.count(model) != 0;
  const bool amd5 = id.amd && (family == 0x15 || family == 0x17 || family == 0x18 || (family == 0x19 && !avx512f));
  id.fma_latency_cycles = intel5 || amd5 ? 5 : 4;
  id.fma_latency_basis = fmt::format(
      "the published VFMADD*PS latency for this core in the Intel and AMD optimization guides ({} family {:#x} "
      "model {:#x}: 5 cycles on Haswell/Broadwell and AMD before Zen 4, else 4), not measured",
      vendor, family, model);
}

CpuIdentity identify_cpu() {
  CpuidRegs r;
  cpuid(0, 0, &r);
  const std::string vendor = regs_text(r, true);
  std::string brand;
  for (unsigned leaf = 0x80000002; leaf <= 0x80000004; ++leaf) {
    CpuidRegs b;
    if (cpuid(leaf, 0, &b)) brand += regs_text(b, false);
  }
  brand = trim(brand);
  CpuidRegs l1, l7;
  cpuid(1, 0, &l1);
  const bool has_leaf7 = cpuid(7, 0, &l7);
  unsigned family = (l1.a >> 8) & 0xf, model = (l1.a >> 4) & 0xf;
  if (family == 0xf) family += (l1.a >> 20) & 0xff;
  if (family == 0x6 || family >= 0xf) model += ((l1.a >> 16) & 0xf) << 4;

  CpuIdentity id;
  id.amd = vendor == "AuthenticAMD" || vendor == "HygonGenuine";
  const std::string family_model =
      fmt::format("{} family {} model {} stepping {}", vendor, family, model, l1.a & 0xf);
  id.model = brand.empty() ? family_model : fmt::format("{} ({})", brand, family_model);

  const bool osxsave = l1.c & (1u << 27), avx = l1.c & (1u << 28), fma = l1.c & (1u << 12);
  const bool avx2 = has_leaf7 && (l7.b & (1u << 5)), avx512f = has_leaf7 && (l7.b & (1u << 16));
  // The CPU may support a vector width whose register state the OS does not save on context switch; XCR0 says
  // which states are enabled: bits 1-2 (SSE, AVX) and 5-7 (opmask, upper ZMM halves, ZMM16-31).
  const uint64_t xcr0 = osxsave ? read_xcr0() : 0;
  const bool os_avx = (xcr0 & 0x6) == 0x6, os_avx512 = os_avx && (xcr0 & 0xe0) == 0xe0;
  if (avx512f && os_avx512) {
    id.kernels = avx512_kernels();
    id.isa_evidence = "CPUID reports AVX-512F and XGETBV shows the OS enables ZMM state";
  } else if (avx2 && fma && avx && os_avx) {
    id.kernels = avx2_kernels();
    id.isa_evidence = avx512f ? "CPUID reports AVX-512F but XGETBV shows the OS does not enable ZMM state, so "
                                "AVX2: CPUID reports AVX2 and FMA, XGETBV shows YMM state enabled"
                              : "CPUID reports AVX2 and FMA and XGETBV shows the OS enables YMM state";
  } else {
    fail("host has neither AVX2+FMA nor AVX-512; Strata's x86 backend needs one");
  }
  set_x86_fma_latency(id, vendor, family, model, avx512f);
  return id;
}

#else  // __aarch64__

// Value of the first "key : value" line for `key` in /proc/cpuinfo.
std::string cpuinfo_value(const std::string& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    const size_t colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string k = line.substr(0, colon);
    while (!k.empty() && std::isspace(static_cast<unsigned char>(k.back()))) k.pop_back();
    if (k != key) continue;
    const size_t v = line.find_first_not_of(" \t", colon + 1);
    return v == std::string::npos ? "" : line.substr(v);
  }
  return "";
}

const char* implementer_name(int64_t id) {
  switch (id) {
    case 0x41: return "Arm";
    case 0x42: return "Broadcom";
    case 0x43: return "Cavium";
    case 0x46: return "Fujitsu";
    case 0x48: return "HiSilicon";
    case 0x4e: return "NVIDIA";
    case 0x50: return "Applied Micro";
    case 0x51: return "Qualcomm";
    case 0x53: return "Samsung";
    case 0x61: return "Apple";
    case 0x6d: return "Microsoft";
    case 0xc0: return "Ampere";
    default: return "unknown implementer";
  }
}

CpuIdentity identify_cpu() {
  const unsigned long hwcap = getauxval(AT_HWCAP);
  if (!(hwcap & HWCAP_ASIMD)) fail("host has no Advanced SIMD (NEON); Strata's aarch64 backend needs it");
  CpuIdentity id;
  id.kernels = neon_kernels();
  id.isa_evidence = "HWCAP reports ASIMD (NEON)";
  int64_t implementer = -1, part = -1;
  parse_int(cpuinfo_value("CPU implementer"), &implementer);
  parse_int(cpuinfo_value("CPU part"), &part);
  id.fma_latency_basis =
      "the published FMLA (vector) latency of Cortex-A76 and later and of Neoverse N1/N2/V1/V2 (Arm software "
      "optimization guides), not measured; older cores such as Cortex-A72 are slower";
  id.model = implementer < 0 ? std::string("aarch64 CPU (no implementer in /proc/cpuinfo)")
                             : fmt::format("{} CPU (implementer {:#x}, part {:#x})", implementer_name(implementer),
                                           implementer, part);
  return id;
}

#endif

// ---------------------------------------------------------------------------------------------------------------
// Cache hierarchy
// ---------------------------------------------------------------------------------------------------------------

struct CacheFacts {
  int level = 0;
  bool unified = false;
  int64_t size = 0;
  int line = 0;
  int ways = 0;
  int64_t sets = 0;
  int shared_by = 1;
  std::string origin;   // where the facts came from
  std::string sharing;  // how shared_by was found
  std::string note;     // adjustments made to keep the descriptor consistent
};

void add_note(CacheFacts& c, const std::string& note) { c.note += (c.note.empty() ? "" : "; ") + note; }

std::vector<CacheFacts> sysfs_caches(int cpu, const std::vector<int>& usable) {
  std::vector<CacheFacts> caches;
  for (int index = 0;; ++index) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}/", cpu, index);
    std::string type, size, shared;
    CacheFacts c;
    c.level = static_cast<int>(read_int(dir + "level", 0));
    if (c.level <= 0 || !read_line(dir + "type", &type)) break;
    if (type != "Data" && type != "Unified") continue;
    c.unified = type == "Unified";
    c.size = read_line(dir + "size", &size) ? parse_size(size) : 0;
    c.line = static_cast<int>(read_int(dir + "coherency_line_size", 0));
    c.ways = static_cast<int>(read_int(dir + "ways_of_associativity", 0));
    c.sets = read_int(dir + "number_of_sets", 0);
    c.origin = fmt::format("/sys/devices/system/cpu/cpu{}/cache/index{}", cpu, index);
    if (read_line(dir + "shared_cpu_list", &shared)) {
      const std::vector<int> sharers = parse_cpu_list(shared);
      const auto n = std::count_if(sharers.begin(), sharers.end(),
                                   [&](int s) { return std::find(usable.begin(), usable.end(), s) != usable.end(); });
      c.shared_by = std::max(1, static_cast<int>(n));
      c.sharing = static_cast<size_t>(n) == sharers.size()
                      ? fmt::format("shared_cpu_list {}", shared)
                      : fmt::format("shared_cpu_list {}, of which {} usable by this process", shared, n);
    } else {
      c.sharing = "no shared_cpu_list; assumed private";
    }
    caches.push_back(c);
  }
  return caches;
}

#if defined(__x86_64__)
// Deterministic cache parameters: Intel leaf 4, AMD leaf 0x8000001D (same layout). Used when sysfs has no cache
// directory, as in some containers.
std::vector<CacheFacts> cpuid_caches(bool amd, int cores) {
  std::vector<CacheFacts> caches;
  CpuidRegs ext;
  if (amd && !(cpuid(0x80000001, 0, &ext) && (ext.c & (1u << 22)))) return caches;  // no TOPOEXT
  const unsigned leaf = amd ? 0x8000001D : 4;
  for (unsigned sub = 0; sub < 32; ++sub) {
    CpuidRegs r;
    if (!cpuid(leaf, sub, &r) || (r.a & 0x1f) == 0) break;
    const unsigned type = r.a & 0x1f;  // 1 data, 2 instruction, 3 unified
    if (type == 2) continue;
    CacheFacts c;
    c.level = static_cast<int>((r.a >> 5) & 0x7);
    c.unified = type == 3;
    c.line = static_cast<int>((r.b & 0xfff) + 1);
    const int64_t partitions = ((r.b >> 12) & 0x3ff) + 1;
    c.ways = static_cast<int>(((r.b >> 22) & 0x3ff) + 1);
    c.sets = (static_cast<int64_t>(r.c) + 1) * partitions;  // partitions fold into sets: same capacity
    c.size = c.sets * c.ways * c.line;
    const int sharing = static_cast<int>(((r.a >> 14) & 0xfff) + 1);
    c.shared_by = std::min(sharing, cores);
    c.origin = fmt::format("CPUID leaf {:#x} subleaf {}", leaf, sub);
    c.sharing = sharing <= cores ? fmt::format("CPUID: shared by up to {} logical CPUs", sharing)
                                 : fmt::format("CPUID: shared by up to {} logical CPUs, {} usable by this process",
                                               sharing, cores);
    caches.push_back(c);
  }
  return caches;
}
#endif

// The loader requires capacity = sets x ways x line for an integer number of sets. sysfs normally satisfies it;
// some hypervisors report ways or sets that do not. The capacity is what matters to the model, so it is kept and
// the geometry adjusted, with a note in the source.
void make_consistent(CacheFacts& c) {
  if (c.line <= 0) {
    c.line = 64;
    add_note(c, "no line size reported; 64 bytes assumed");
  }
  if (c.size % c.line != 0) {
    add_note(c, fmt::format("reported size {} is not a whole number of lines; rounded down", c.size));
    c.size -= c.size % c.line;
  }
  const int64_t lines = c.size / c.line;
  if (c.ways > 0 && lines % c.ways == 0) {
    if (c.sets > 0 && c.sets * c.ways != lines)
      add_note(c, fmt::format("reported number_of_sets {} disagrees with the size; {} sets", c.sets, lines / c.ways));
  } else if (c.sets > 0 && lines % c.sets == 0 && lines / c.sets <= 65536) {
    add_note(c, fmt::format("reported {} ways do not divide the size; ways = size / (sets x line)", c.ways));
    c.ways = static_cast<int>(lines / c.sets);
  } else {
    int ways = static_cast<int>(std::min<int64_t>(std::max(c.ways, 1), lines));
    while (lines % ways != 0) --ways;
    add_note(
        c, fmt::format("reported {} ways and {} sets do not fit the size; written as {} ways", c.ways, c.sets, ways));
    c.ways = ways;
  }
  c.sets = lines / c.ways;
}

// Data and unified caches, innermost first, one per level, each no smaller than the one inside it.
std::vector<CacheFacts> read_caches(const CpuIdentity& cpu, const std::vector<int>& usable) {
  std::vector<CacheFacts> found = sysfs_caches(usable.front(), usable);
#if defined(__x86_64__)
  if (found.empty()) found = cpuid_caches(cpu.amd, static_cast<int>(usable.size()));
#else
  (void)cpu;
#endif
  std::stable_sort(found.begin(), found.end(),
                   [](const CacheFacts& a, const CacheFacts& b) { return a.level < b.level; });
  std::vector<CacheFacts> caches;
  std::string dropped;
  for (CacheFacts& c : found) {
    if (c.size <= 0 || (!caches.empty() && caches.back().level == c.level)) continue;
    make_consistent(c);
    if (!caches.empty() && c.size < caches.back().size) {
      dropped += fmt::format("level {} cache ({}) omitted: smaller than the level inside it; ", c.level,
                             format_bytes(c.size));
      continue;
    }
    if (!dropped.empty()) {
      add_note(c, dropped.substr(0, dropped.size() - 2));
      dropped.clear();
    }
    caches.push_back(c);
  }
  if (caches.empty())
    fail(fmt::format(
        "cannot read the host's cache hierarchy: no data or unified cache in "
        "/sys/devices/system/cpu/cpu{}/cache{}",
        usable.front(),
#if defined(__x86_64__)
        " nor in CPUID"
#else
        ""
#endif
        ));
  return caches;
}

std::string cache_name(const CacheFacts& c) {
  return c.level == 1 && !c.unified ? std::string("l1d") : fmt::format("l{}", c.level);
}

// ---------------------------------------------------------------------------------------------------------------
// Measurement
// ---------------------------------------------------------------------------------------------------------------

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

template <class Work>
double seconds_of(Work&& work, int64_t n) {
  const Clock::time_point start = Clock::now();
  work(n);
  return seconds_since(start);
}

// The n for which work(n) takes about target_s: n doubles until one call takes >= 1 ms (which doubles as
// warm-up), then scales.
template <class Work>
int64_t calibrate(Work&& work, double target_s) {
  int64_t n = 1;
  double t = 0;
  while ((t = seconds_of(work, n)) < 1e-3) n *= 2;
  return std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(n) * target_s / t));
}

// The best n / seconds of `reps` calls of work(n), each taking about target_s. Best, not mean: on a shared or
// virtual machine interference only ever slows a run down.
template <class Work>
double best_rate(Work&& work, double target_s, int reps) {
  const int64_t n = calibrate(work, target_s);
  double best = 0;
  for (int r = 0; r < reps; ++r) best = std::max(best, static_cast<double>(n) / seconds_of(work, n));
  return best;
}

// Runs fn(0..threads-1) concurrently, released together once all threads exist; the caller runs fn(0).
template <class Fn>
void run_together(int threads, Fn&& fn) {
  if (threads <= 1) {
    fn(0);
    return;
  }
  std::atomic<int> arrived{0};
  auto body = [&](int t) {
    arrived.fetch_add(1);
    while (arrived.load() < threads) std::this_thread::yield();
    fn(t);
  };
  std::vector<std::thread> pool;
  try {
    for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  } catch (...) {
    arrived.store(threads);  // release the threads that did start, so that they finish and can be joined
    for (std::thread& th : pool) th.join();
    throw;
  }
  body(0);
  for (std::thread& th : pool) th.join();
}

struct ComputeFacts {
  double scalar_ghz = 0;       // dependent adds alone
  double loaded_ghz = 0;       // dependent adds with vector FMAs interleaved
  double fma_gflops = 0;       // one core
  double half_fma_gflops = 0;  // one core, on vectors of half the width (0: not measured, see Kernels)
};

ComputeFacts measure_compute(const Kernels& k) {
  // ~30 ms of busy work first, so that a core idling at a low frequency has ramped up.
  const Clock::time_point start = Clock::now();
  while (seconds_since(start) < 0.03) add_chain(1 << 14);
  ComputeFacts f;
  f.scalar_ghz = kChainAdds * best_rate([](int64_t n) { add_chain(n); }, 0.01, 3) / 1e9;
  // fma_pipes is the ratio of the next two figures, so their windows alternate: a passing disturbance (another
  // tenant of a virtual machine, an interrupt storm) then spoils neighbouring windows of both, and each best
  // comes from undisturbed ones. Both loops are FMA-dense, so the core stays in one frequency licence throughout;
  // windows of ~10 ms also keep the ~0.5 ms licence transition out of the best.
  auto loaded = [&](int64_t n) { k.add_chain_loaded(n); };
  auto fma = [&](int64_t n) { k.fma_loop(n); };
  // The half-width loop (where the ISA has one) joins the alternation, so that it is measured at the same clock.
  auto half = [&](int64_t n) { k.half_fma_loop(n); };
  const int64_t n_loaded = calibrate(loaded, 0.01), n_fma = calibrate(fma, 0.01);
  const int64_t n_half = k.half_fma_loop != nullptr ? calibrate(half, 0.01) : 0;
  double loaded_rate = 0, fma_rate = 0, half_rate = 0;
  for (int round = 0; round < 6; ++round) {
    loaded_rate = std::max(loaded_rate, static_cast<double>(n_loaded) / seconds_of(loaded, n_loaded));
    fma_rate = std::max(fma_rate, static_cast<double>(n_fma) / seconds_of(fma, n_fma));
    if (n_half > 0) half_rate = std::max(half_rate, static_cast<double>(n_half) / seconds_of(half, n_half));
  }
  f.loaded_ghz = kChainAdds * loaded_rate / 1e9;
  f.fma_gflops = 2.0 * k.fma_chains * k.lanes() * fma_rate / 1e9;
  f.half_fma_gflops = 2.0 * k.fma_chains * (k.lanes() / 2) * half_rate / 1e9;
  return f;
}

struct FreeDeleter {
  void operator()(char* p) const { std::free(p); }
};
using Buffer = std::unique_ptr<char, FreeDeleter>;

// Buffers of 1 MiB and more are 2 MiB aligned and asked for transparent huge pages, to keep TLB misses out of
// the latency figures; the request may be ignored, which only makes those figures a little pessimistic.
Buffer allocate(int64_t bytes) {
  const int64_t align = bytes >= (int64_t{1} << 20) ? (int64_t{2} << 20) : 4096;
  const int64_t rounded = (bytes + align - 1) / align * align;
  void* p = std::aligned_alloc(static_cast<size_t>(align), static_cast<size_t>(rounded));
  if (!p) fail(fmt::format("cannot allocate a {} measurement buffer", format_bytes(bytes)));
  if (align > 4096) madvise(p, static_cast<size_t>(rounded), MADV_HUGEPAGE);
  return Buffer(static_cast<char*>(p));
}

// Streams [p, p + bytes) for about window_s; returns bytes read per second.
double stream_rate(const Kernels& k, const char* p, int64_t bytes, double window_s) {
  // Several passes between clock reads, so that reading the clock costs nothing next to an L1-sized pass.
  const int64_t passes = std::max<int64_t>(1, (int64_t{256} << 10) / bytes);
  int64_t done = 0;
  double t = 0;
  const Clock::time_point start = Clock::now();
  do {
    k.sum(p, p + bytes, passes);
    done += passes;
    t = seconds_since(start);
  } while (t < window_s);
  return static_cast<double>(done) * static_cast<double>(bytes) / t;
}

constexpr int64_t kChaseLines = int64_t{1} << 18;

// Links one line from each of kChaseLines equal segments of the buffer (every line when it has fewer) into a
// single cycle in random order (fixed seed), so hardware prefetchers cannot follow it. Returns the start and
// the number of lines linked.
std::pair<const void*, int64_t> build_chase(char* base, int64_t bytes, int line) {
  const int64_t lines = bytes / line;
  const int64_t count = std::min(lines, kChaseLines);
  const int64_t stride = lines / count;
  std::mt19937_64 rng(0x5715a7a);
  std::vector<int64_t> order(static_cast<size_t>(count));
  for (int64_t i = 0; i < count; ++i) order[i] = i * stride + static_cast<int64_t>(rng() % stride);
  for (int64_t i = count - 1; i > 0; --i) std::swap(order[i], order[rng() % (i + 1)]);  // Fisher-Yates
  for (int64_t i = 0; i < count; ++i) {
    const char* next = base + order[(i + 1) % count] * line;
    std::memcpy(base + order[i] * line, &next, sizeof next);
  }
  return {base + order[0] * line, count};
}

struct Probe {
  double gbps = 0;
  double latency_ns = 0;
  int64_t bytes = 0;        // buffer size actually used
  int threads = 1;          // bandwidth threads
  int64_t chase_lines = 0;  // lines in the latency cycle
};

// Read bandwidth of `threads` threads streaming their own share of a `bytes` buffer at once (summed, best of 4
// windows of ~8 ms), then single-thread load-to-use latency by a pointer chase through the same buffer.
Probe probe_memory(const Kernels& k, int64_t bytes, int threads, int line) {
  Probe p;
  p.threads = std::max(1, threads);
  const int64_t part = std::max<int64_t>(4096, bytes / p.threads / 4096 * 4096);
  p.bytes = part * p.threads;
  Buffer buffer = allocate(p.bytes);
  char* base = buffer.get();
  // Each thread fills its own part, so first-touch places the pages near the thread that reads them.
  run_together(p.threads, [&](int t) {
    std::fill_n(reinterpret_cast<float*>(base + t * part), part / static_cast<int64_t>(sizeof(float)), 1.0f);
  });
  std::vector<double> rates(static_cast<size_t>(p.threads));
  for (int rep = 0; rep < 4; ++rep) {
    run_together(p.threads, [&](int t) { rates[t] = stream_rate(k, base + t * part, part, 0.008); });
    double total = 0;
    for (double r : rates) total += r;
    p.gbps = std::max(p.gbps, total / 1e9);
  }
  const auto chain = build_chase(base, p.bytes, line);
  p.chase_lines = chain.second;
  const void* at = chain.first;
  p.latency_ns = 1e9 / best_rate([&](int64_t n) { at = chase(at, n); }, 0.008, 3);
  return p;
}

std::string probe_text(const Kernels& k, const Probe& p, int line) {
  const std::string who =
      p.threads == 1 ? std::string("1 thread") : fmt::format("{} threads at once, each on its own share", p.threads);
  return fmt::format(
      "bandwidth measured: {} read loop ({} independent add chains) over a {} buffer on {}, best of 4 windows of "
      "~8 ms; latency measured: single-thread pointer chase through {} {}-byte lines of that buffer linked in "
      "random order (fixed seed)",
      k.load_insn, 8, format_bytes(p.bytes), who, p.chase_lines, line);
}

// ---------------------------------------------------------------------------------------------------------------
// Assembling the descriptor
// ---------------------------------------------------------------------------------------------------------------

struct HostFacts {
  CpuIdentity cpu;
  std::vector<int> cpus;
  int cores = 0;           // usable logical CPUs: the outermost level's parallel units
  int physical_cores = 0;  // distinct cores among them, for the machine's peak
  int64_t memory_bytes = 0;
  std::vector<CacheFacts> caches;
};

MemorySpec cache_memory(const Kernels& k, const CacheFacts& c, const CacheFacts* inner) {
  // Half the capacity, so the buffer fits with room for the rest of the program. For a shared cache one thread
  // per sharing CPU streams at once (its bandwidth is the instance's), but each share must stay well above the
  // cache inside it, or the inner caches would serve the reads.
  const int64_t half = c.size / 2;
  int threads = c.shared_by;
  if (inner) threads = static_cast<int>(std::clamp<int64_t>(half / (2 * inner->size), 1, c.shared_by));
  const Probe p = probe_memory(k, half, threads, c.line);
  MemorySpec m;
  m.name = cache_name(c);
  m.kind = MemoryKind::cache;
  m.capacity_bytes = c.size;
  m.shared_by = c.shared_by;
  m.bandwidth_gbps = round_sig(p.gbps);
  m.latency_ns = round_sig(p.latency_ns);
  m.line_bytes = c.line;
  m.associativity = c.ways;
  std::string partial;
  if (p.threads < c.shared_by)
    partial = fmt::format(" (only {} of the {} sharing CPUs stream, so the bandwidth is a lower bound)", p.threads,
                          c.shared_by);
  m.source = fmt::format("capacity, geometry and sharing from {}: {} sets x {} ways x {}-byte lines, {}{}; {}{}",
                         c.origin, c.sets, c.ways, c.line, c.sharing, c.note.empty() ? "" : " (" + c.note + ")",
                         probe_text(k, p, c.line), partial);
  return m;
}

MemorySpec dram_memory(const Kernels& k, const HostFacts& h) {
  // Far larger than all outer-level cache instances together, and each thread's share far larger than its
  // private caches, so that streaming misses every cache: at least 64 MiB, at most 1 GiB or a quarter of memory.
  const CacheFacts& outer = h.caches.back();
  const int64_t instances = (h.cores + outer.shared_by - 1) / outer.shared_by;
  int64_t bytes = std::max<int64_t>(int64_t{64} << 20, 4 * outer.size * instances);
  if (h.caches.size() >= 2) bytes = std::max(bytes, int64_t{4} * h.cores * h.caches[h.caches.size() - 2].size);
  bytes = std::min({bytes, int64_t{1} << 30, h.memory_bytes / 4});
  const Probe p = probe_memory(k, bytes, h.cores, outer.line);
  MemorySpec m;
  m.name = "dram";
  m.kind = MemoryKind::dram;
  m.capacity_bytes = h.memory_bytes;
  m.shared_by = h.cores;
  m.bandwidth_gbps = round_sig(p.gbps);
  m.latency_ns = round_sig(p.latency_ns);
  m.source = fmt::format(
      "capacity: physical memory from sysconf(_SC_PHYS_PAGES x _SC_PAGESIZE); {}; huge pages "
      "requested (madvise) to keep TLB misses out of the latency",
      probe_text(k, p, outer.line));
  return m;
}

MemorySpec register_memory(const Kernels& k, const CpuIdentity& cpu, const MemorySpec& l1) {
  MemorySpec m;
  m.name = "registers";
  m.kind = MemoryKind::registers;
  m.capacity_bytes = int64_t{k.vector_registers} * k.vector_bits / 8;
  m.shared_by = 1;
  m.bandwidth_gbps = l1.bandwidth_gbps;
  m.latency_ns = 0;
  m.source = fmt::format(
      "{} architectural {}-bit {} registers ({}); bandwidth is the measured {} read bandwidth, "
      "since register tiles are loaded from it; latency 0 by convention",
      k.vector_registers, k.vector_bits, k.isa_name, cpu.isa_evidence, l1.name);
  return m;
}

// cache_block: L2 when it is private to a core, else the largest such cache (the innermost cache when none is).
// SMT siblings share a core's caches, so up to `smt` sharing CPUs still count as private. cores: the outermost
// cache.
std::vector<LevelSpec> host_levels(const std::vector<MemorySpec>& memories, int cores, int smt) {
  const MemorySpec* block = nullptr;
  auto per_core = [&](const MemorySpec& m) { return m.shared_by <= smt; };
  for (const MemorySpec& m : memories) {
    if (m.kind != MemoryKind::cache) continue;
    if (!block) block = &m;
    if (per_core(m) && (!per_core(*block) || m.capacity_bytes > block->capacity_bytes)) block = &m;
    if (m.name == "l2" && per_core(m)) {
      block = &m;
      break;
    }
  }
  const MemorySpec& outer = memories[memories.size() - 2];  // last cache, before dram
  std::vector<LevelSpec> levels(3);
  levels[0].name = "register_tile";
  levels[0].memory = "registers";
  levels[0].memory_index = 0;
  levels[0].parallel_units = 1;
  levels[0].analyzer = Analyzer::profile;
  levels[1].name = "cache_block";
  levels[1].memory = block->name;
  levels[1].memory_index = static_cast<int>(block - memories.data());
  levels[1].parallel_units = 1;
  // Level 1 profiled too (Helix's "levels 0 and 1 profiled"): the descriptor describes the machine that generates,
  // so its blocks can be timed, and a register tile whose packed panels outgrow L1 runs far below its level-0 time
  // in a call, which the model, fed the level-0 time and a streaming read bandwidth of L2, does not see (a 4x64 tile
  // profiled at 201 GFLOP/s ran 24x3072x768's tiles at 112 on a 2-vCPU Intel Xeon VM). In tools/bench there,
  // packages so generated beat the level-0-only ones by 3-5% overall (see the README, strata generate).
  levels[1].analyzer = Analyzer::profile;
  // Up to 48: a k block of 48 k-unrolled steps (e.g. 8 x 48 = 384, BLIS's KC) amortises draining C.
  levels[1].tile_multiples = {1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48};
  levels[2].name = "cores";
  levels[2].memory = outer.name;
  levels[2].memory_index = static_cast<int>(memories.size() - 2);
  levels[2].parallel_units = cores;
  levels[2].analyzer = Analyzer::model;
  levels[2].tile_multiples = {1, 2, 4, 8, 16};
  return levels;
}

IsaInfo host_isa(const Kernels& k, const HostFacts& h, const ComputeFacts& m) {
  // The FMA loop and the loaded clock loop run in the same frequency licence, so their ratio is flops per cycle.
  const double flops_per_cycle = m.fma_gflops / m.loaded_ghz;
  const double pipes_measured = flops_per_cycle / (2.0 * k.lanes());
  IsaInfo isa;
  isa.vector = k.isa;
  isa.vector_bits = k.vector_bits;
  isa.vector_registers = k.vector_registers;
  isa.fma_latency_cycles = h.cpu.fma_latency_cycles;
  isa.fma_pipes = static_cast<int>(std::clamp<long>(std::lround(pipes_measured), 1, k.max_fma_pipes));
  isa.fma_broadcast = k.broadcast;
  isa.k_unroll = {1, 2, 4, 8};
  const bool ambiguous = std::fabs(pipes_measured - std::round(pipes_measured)) > 0.25;
  isa.source = fmt::format(
      "{}: {}; {} architectural vector registers; fma_latency_cycles {} is {}; fma_pipes {} from measurement: {} "
      "independent {} chains in registers reach {:.1f} flop/cycle = {:.2f} x 2 x {} lanes{}, at the {:.3g} GHz "
      "clock measured by a chain of dependent 1-cycle integer adds interleaved with {} FMAs (the same adds alone: "
      "{:.3g} GHz); clock_ghz is that FMA-loaded clock",
      h.cpu.model, h.cpu.isa_evidence, k.vector_registers, isa.fma_latency_cycles, h.cpu.fma_latency_basis,
      isa.fma_pipes, k.fma_chains, k.fma_insn, flops_per_cycle, pipes_measured, k.lanes(),
      ambiguous ? " (far from a whole number: the host was probably busy; rerun on an idle machine)" : "",
      m.loaded_ghz, k.isa_name, m.scalar_ghz);
  if (m.half_fma_gflops > 0) {
    const double half_pipes_measured = m.half_fma_gflops / m.loaded_ghz / (2.0 * (k.lanes() / 2));
    isa.half_width_fma_pipes =
        static_cast<int>(std::clamp<long>(std::lround(half_pipes_measured), 1, 2 * k.max_fma_pipes));
    isa.source += fmt::format(
        "; half_width_fma_pipes {} from measurement: the same chains as {} reach {:.2f} x 2 x {} lanes a cycle",
        isa.half_width_fma_pipes, k.half_fma_insn, half_pipes_measured, k.lanes() / 2);
  }
  return isa;
}

ComputeSpec host_compute(const Kernels& k, const HostFacts& h, const ComputeFacts& m) {
  ComputeSpec fma;
  fma.unit = ComputeUnit::cpu_fma;
  fma.input = DataType::f32;
  fma.peak_gflops = round_sig(m.fma_gflops * h.physical_cores);
  fma.source = fmt::format(
      "measured: {} independent {} chains in registers on one thread, best of 6 windows of ~10 ms, {:.4g} GFLOP/s "
      "per core; times {} cores (distinct core_id among the {} usable CPUs in /sys/devices/system/cpu)",
      k.fma_chains, k.fma_insn, m.fma_gflops, h.physical_cores, h.cores);
  return fma;
}

Arch build_host_arch() {
  HostFacts h;
  h.cpu = identify_cpu();
  const Kernels& k = h.cpu.kernels;
  h.cpus = usable_cpus();
  h.cores = static_cast<int>(h.cpus.size());
  h.physical_cores = physical_cores(h.cpus);
  h.memory_bytes = physical_memory_bytes();
  h.caches = read_caches(h.cpu, h.cpus);
  const ComputeFacts measured = measure_compute(k);

  Arch a;
  a.name = std::string("host_") + to_string(k.isa);
  a.description = fmt::format("{}, {} usable CPUs ({} cores), {}; measured by strata's host detection", h.cpu.model,
                              h.cores, h.physical_cores, k.isa_name);
#if defined(__x86_64__)
  a.target = Target::x86_64;
#else
  a.target = Target::aarch64;
#endif
  a.clock_ghz = round_sig(measured.loaded_ghz);
  a.launch_overhead_ns = 50;
  a.launch_source = "default estimate for a C function call plus the generated dispatch; not measured";
  a.isa = host_isa(k, h, measured);
  a.compute.push_back(host_compute(k, h, measured));
  std::vector<MemorySpec> caches;
  for (size_t i = 0; i < h.caches.size(); ++i)
    caches.push_back(cache_memory(k, h.caches[i], i == 0 ? nullptr : &h.caches[i - 1]));
  a.memories.push_back(register_memory(k, h.cpu, caches.front()));
  a.memories.insert(a.memories.end(), caches.begin(), caches.end());
  a.memories.push_back(dram_memory(k, h));
  a.levels = host_levels(a.memories, h.cores, std::max(1, h.cores / std::max(1, h.physical_cores)));
  return a;
}

}  // namespace

Arch detect_host_arch() {
  try {
    return build_host_arch();
  } catch (const Error&) {
    throw;
  } catch (const std::exception& e) {  // std::thread or allocation failures
    fail(std::string("host detection failed: ") + e.what());
  }
}

}  // namespace strata

#else  // not Linux on x86-64 or aarch64

namespace strata {

Arch detect_host_arch() {
  throw Error(SourcePos{"<host>", 0, 0},
              "host detection supports Linux on x86-64 and aarch64 only; write an architecture descriptor by hand "
              "(see archs/REFERENCE.md)");
}

}  // namespace strata

#endif
