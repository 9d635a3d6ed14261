// The vector layer of the AVX2 and FMA micro-kernels: the vector and mask types, the few operations the kernels
// (kernel_tile.h, kernel_paths.h) use, and the in-register transpose. Fixed text, copied verbatim into every package
// whose kernels use this ISA; the kernel files that include it are compiled with the ISA's flags. Internal linkage
// (an anonymous namespace): every kernel file has its own copy, compiled for its own ISA.
#ifndef STRATA_SIMD_AVX2_H_
#define STRATA_SIMD_AVX2_H_

#include <immintrin.h>

#include "tile_args.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

using Vec = __m256;
// The first `lanes` lanes of a vector (lane_mask makes every mask): masked loads take their bits, masked stores their
// count. A VMASKMOVPS store is microcoded on AMD cores (about 22 cycles on Zen 3, where a plain store takes one:
// docs/perf/2026-12-02-zen3-masked-stores/, "masked-store"), so a prefix is stored as at most three plain stores of
// its 4-, 2- and 1-lane parts; a full mask, a constant in every full tile, folds to one vector store.
struct Mask {
  __m256i bits;
  int lanes;
};
constexpr int kLanes = 8;

inline Vec vzero() { return _mm256_setzero_ps(); }
inline void vstore(float* p, Vec v) { _mm256_storeu_ps(p, v); }
inline Vec vload(const float* p) { return _mm256_loadu_ps(p); }
inline Vec vbroadcast(const float* p) { return _mm256_broadcast_ss(p); }
inline Vec vset1(float x) { return _mm256_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm256_fmadd_ps(a, b, c); }
// c += a * b, an FMA of a tile's k loop (see the AVX-512 one). The intrinsic: with 16 registers GCC's choices are no
// worse than an FMA written into c's register (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md,
// "accumulate-avx2").
template <int>
inline void accumulate(Vec a, Vec b, Vec& c) {
  c = vfma(a, b, c);
}
// c + b * a[kLane]: what a lane-broadcast tile multiplies. x86 descriptors broadcast A from memory (the generator
// refuses lane broadcast for them), so only Strata's own tests of the fixed sources run this.
template <int kLane>
inline Vec vfma_lane(Vec c, Vec b, Vec a) {
  return _mm256_fmadd_ps(b, _mm256_permutevar8x32_ps(a, _mm256_set1_epi32(kLane)), c);
}
inline Vec vmul(Vec a, Vec b) { return _mm256_mul_ps(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return _mm256_add_ps(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+x"(v));
  return v;
}
inline Mask lane_mask(int lanes) {
  return Mask{_mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7)), lanes};
}
inline Vec vload_masked(const float* p, Mask m) { return _mm256_maskload_ps(p, m.bits); }
__attribute__((always_inline)) inline void vstore_masked(float* p, Mask m, Vec v) {
  if (m.lanes >= kLanes) {
    _mm256_storeu_ps(p, v);
    return;
  }
  __m128 part = _mm256_castps256_ps128(v);
  if (m.lanes & 4) {
    _mm_storeu_ps(p, part);
    part = _mm256_extractf128_ps(v, 1);
    p += 4;
  }
  if (m.lanes & 2) {
    _mm_storel_pi(reinterpret_cast<__m64*>(p), part);
    part = _mm_movehl_ps(part, part);
    p += 2;
  }
  if (m.lanes & 1) _mm_store_ss(p, part);
}
inline float vsum(Vec v) {
  __m128 x = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}
// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
// Pairs of rows interleave element by element, then pairs of those by 64-bit pairs, then the 128-bit halves swap.
inline void transpose(Vec* v) {
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm256_unpacklo_ps(v[i], v[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(v[i], v[i + 1]);
  }
  for (int i = 0; i < kLanes; i += 4) {
    v[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    v[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee);
    v[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  }
  for (int j = 0; j < 4; ++j) {
    t[j] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x20);
    t[j + 4] = _mm256_permute2f128_ps(v[j], v[j + 4], 0x31);
  }
  for (int j = 0; j < kLanes; ++j) v[j] = t[j];
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_SIMD_AVX2_H_
