// The vector layer of the AArch64 Advanced SIMD (NEON) micro-kernels: the vector and mask types, the few operations
// the kernels (microkernel.h) use, and the in-register transpose. Fixed text, copied verbatim into every package
// whose kernels use this ISA; the kernel files that include it are compiled with the ISA's flags. Internal linkage
// (an anonymous namespace): every kernel file has its own copy, compiled for its own ISA.
#ifndef STRATA_SIMD_NEON_H_
#define STRATA_SIMD_NEON_H_

#include <arm_neon.h>

#include "tile_args.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

using Vec = float32x4_t;
// NEON has no masked loads or stores, so a mask is the number of active lanes, and a partial vector moves lane by
// lane. Only the last vector of a row at the right edge of a tile is ever partial; full vectors take the single
// branch.
using Mask = int;
constexpr int kLanes = 4;

inline Vec vzero() { return vdupq_n_f32(0.0f); }
inline void vstore(float* p, Vec v) { vst1q_f32(p, v); }
inline Vec vload(const float* p) { return vld1q_f32(p); }
inline Vec vbroadcast(const float* p) { return vld1q_dup_f32(p); }
inline Vec vset1(float x) { return vdupq_n_f32(x); }
inline Vec vfma(Vec a, Vec b, Vec c) { return vfmaq_f32(c, a, b); }
// c += a * b, an FMA of a tile's k loop (see the AVX-512 one).
template <int>
inline void accumulate(Vec a, Vec b, Vec& c) {
  c = vfma(a, b, c);
}
// c + b * a[kLane]: NEON's FMA by element (FMLA), which the lane-broadcast tiles use.
template <int kLane>
inline Vec vfma_lane(Vec c, Vec b, Vec a) {
  return vfmaq_laneq_f32(c, b, a, kLane);
}
inline Vec vmul(Vec a, Vec b) { return vmulq_f32(a, b); }
// Only thin tiles add vectors (see thin_tile_body), and a profile kit, which times full tiles, has none.
[[maybe_unused]] inline Vec vadd(Vec a, Vec b) { return vaddq_f32(a, b); }
// The value in a vector register from here on, where the compiler cannot see it (see load_b).
[[maybe_unused]] inline Vec in_register(Vec v) {
  asm("" : "+w"(v));
  return v;
}
inline Mask lane_mask(int lanes) { return lanes; }
inline Vec vload_masked(const float* p, Mask m) {
  if (m >= kLanes) return vld1q_f32(p);
  Vec v = vzero();
  if (m > 0) v = vld1q_lane_f32(p, v, 0);
  if (m > 1) v = vld1q_lane_f32(p + 1, v, 1);
  if (m > 2) v = vld1q_lane_f32(p + 2, v, 2);
  return v;
}
inline void vstore_masked(float* p, Mask m, Vec v) {
  if (m >= kLanes) {
    vst1q_f32(p, v);
    return;
  }
  if (m > 0) vst1q_lane_f32(p, v, 0);
  if (m > 1) vst1q_lane_f32(p + 1, v, 1);
  if (m > 2) vst1q_lane_f32(p + 2, v, 2);
}
inline float vsum(Vec v) { return vaddvq_f32(v); }
// Transposes the kLanes x kLanes block held in v[0..kLanes), one row per vector, in place: v[j] becomes column j.
inline void transpose(Vec* v) {
  const float32x4x2_t t01 = vtrnq_f32(v[0], v[1]);  // {a0 b0 a2 b2}, {a1 b1 a3 b3}
  const float32x4x2_t t23 = vtrnq_f32(v[2], v[3]);
  v[0] = vcombine_f32(vget_low_f32(t01.val[0]), vget_low_f32(t23.val[0]));
  v[1] = vcombine_f32(vget_low_f32(t01.val[1]), vget_low_f32(t23.val[1]));
  v[2] = vcombine_f32(vget_high_f32(t01.val[0]), vget_high_f32(t23.val[0]));
  v[3] = vcombine_f32(vget_high_f32(t01.val[1]), vget_high_f32(t23.val[1]));
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_SIMD_NEON_H_
