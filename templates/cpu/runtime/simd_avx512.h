// The vector layer of the AVX-512F micro-kernels: the vector and mask types, the few operations the kernels
// (kernel_tile.h, kernel_paths.h) use, and the in-register transpose. Fixed text, copied verbatim into every package
// whose kernels use this ISA; the kernel files that include it are compiled with the ISA's flags. Internal linkage
// (an anonymous namespace): every kernel file has its own copy, compiled for its own ISA.
#ifndef STRATA_SIMD_AVX512_H_
#define STRATA_SIMD_AVX512_H_

#include <immintrin.h>

#include "tile_args.h"

// AVX-512 kernels also run strips of few columns on 256-bit halves (see half_strip in kernel_paths.h).
#define STRATA_SIMD_HALF_VECTORS 1

namespace STRATA_PACKAGE_INTERNAL {
namespace {

using Vec = __m512;
using Mask = __mmask16;
constexpr int kLanes = 16;

inline Vec vzero() { return _mm512_setzero_ps(); }
inline void vstore(float* p, Vec v) { _mm512_storeu_ps(p, v); }
inline Vec vload(const float* p) { return _mm512_loadu_ps(p); }
inline Vec vbroadcast(const float* p) { return _mm512_set1_ps(*p); }
inline Vec vset1(float x) { return _mm512_set1_ps(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return _mm512_fmadd_ps(a, b, c); }
// c += a * b, an FMA of a tile's k loop, whose tile is kVecs vectors wide. Where it is several, each broadcast of A
// is multiplied into all of them; given the intrinsic, GCC 12 writes the last of those products into the broadcast's
// register (the FMA form that overwrites a multiplicand), then moves accumulators between registers and spills two to
// the stack in the unrolled loop of the 8x48 tile (8 moves and 2 spills per 4 k steps). Written into c's own
// register, the loop has neither (measurements: docs/perf/2026-11-27-cpu-runtime-evidence.md, "accumulate-avx512"). A
// one-vector tile keeps the intrinsic, whose broadcast from memory AVX-512 folds into the FMA.
template <int kVecs>
inline void accumulate(Vec a, Vec b, Vec& c) {
  if constexpr (kVecs > 1)
    asm("vfmadd231ps %2, %1, %0" : "+v"(c) : "v"(a), "v"(b));
  else
    c = vfma(a, b, c);
}
// c + b * a[kLane]: what a lane-broadcast tile multiplies. x86 descriptors broadcast A from memory (the generator
// refuses lane broadcast for them), so only Strata's own tests of the fixed sources run this.
template <int kLane>
inline Vec vfma_lane(Vec c, Vec b, Vec a) {
  // The zero-masking form: GCC 12's unmasked one starts from _mm512_undefined_ps and trips -Wmaybe-uninitialized.
  return _mm512_fmadd_ps(b, _mm512_maskz_permutexvar_ps(0xffff, _mm512_set1_epi32(kLane), a), c);
}
inline Vec vmul(Vec a, Vec b) { return _mm512_mul_ps(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return _mm512_add_ps(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+v"(v));
  return v;
}
inline Mask lane_mask(int lanes) { return static_cast<Mask>((1u << lanes) - 1u); }
inline Vec vload_masked(const float* p, Mask m) { return _mm512_maskz_loadu_ps(m, p); }
inline void vstore_masked(float* p, Mask m, Vec v) { _mm512_mask_storeu_ps(p, m, v); }
// Halves folded with whole-lane shuffles, in their zero-masking forms: GCC 12's unmasked forms (and
// _mm512_reduce_add_ps, built on them) start from _mm512_undefined_ps and trip -Wmaybe-uninitialized.
inline float vsum(Vec v) {
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, 0x4e));  // plus the other 256-bit half
  v = _mm512_add_ps(v, _mm512_maskz_shuffle_f32x4(0xffff, v, v, 0xb1));  // plus the neighbouring 128-bit lane
  __m128 x = _mm512_maskz_extractf32x4_ps(0xf, v, 0);
  x = _mm_add_ps(x, _mm_movehl_ps(x, x));
  return _mm_cvtss_f32(_mm_add_ss(x, _mm_movehdup_ps(x)));
}
// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
// Pairs of rows interleave element by element, then pairs of those by 64-bit pairs, then 128-bit lanes twice over.
// Zero-masking forms that keep every lane: GCC 12's unmasked forms start from _mm512_undefined_ps and trip
// -Wmaybe-uninitialized.
inline void transpose(Vec* v) {
  constexpr Mask all = 0xffff;
  Vec t[kLanes];
  for (int i = 0; i < kLanes; i += 2) {
    t[i] = _mm512_maskz_unpacklo_ps(all, v[i], v[i + 1]);
    t[i + 1] = _mm512_maskz_unpackhi_ps(all, v[i], v[i + 1]);
  }
  for (int i = 0; i < kLanes; i += 4) {
    v[i] = _mm512_maskz_shuffle_ps(all, t[i], t[i + 2], 0x44);
    v[i + 1] = _mm512_maskz_shuffle_ps(all, t[i], t[i + 2], 0xee);
    v[i + 2] = _mm512_maskz_shuffle_ps(all, t[i + 1], t[i + 3], 0x44);
    v[i + 3] = _mm512_maskz_shuffle_ps(all, t[i + 1], t[i + 3], 0xee);
  }
  for (int i = 0; i < kLanes; i += 8)
    for (int j = 0; j < 4; ++j) {
      t[i + j] = _mm512_maskz_shuffle_f32x4(all, v[i + j], v[i + j + 4], 0x88);
      t[i + j + 4] = _mm512_maskz_shuffle_f32x4(all, v[i + j], v[i + j + 4], 0xdd);
    }
  for (int j = 0; j < 8; ++j) {
    v[j] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0x88);
    v[j + 8] = _mm512_maskz_shuffle_f32x4(all, t[j], t[j + 8], 0xdd);
  }
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_SIMD_AVX512_H_
