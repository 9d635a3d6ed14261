#include "detect/timing_kernels.h"

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

namespace strata::detect {

// ---------------------------------------------------------------------------------------------------------------
// Hot loops. They are inline assembly rather than intrinsics so that what runs is exactly the instruction mix the
// sources describe at any optimization level (at -O0, intrinsic accumulators live on the stack and the loops
// measure store forwarding instead of the FMA units), and the assembler needs no -march flag for it.
// Every loop counter must be >= 1.
// ---------------------------------------------------------------------------------------------------------------

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

namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

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

}  // namespace strata::detect

#endif
