// A convolution's implicit GEMM operand A, gathered from the input image while it is packed: no im2col buffer is
// ever written. Fixed text, copied verbatim into convolution packages; a kernel file instantiates gather_a after its
// ISA's vector layer, so that the gather's panels have the kernel's compile-time height and its vectors.
//
// The GEMM view of a 2-D convolution (NHWC input, output NHWC):
//   row m of A and C   = output pixel (n, oh, ow), m = (n * out_h + oh) * out_w + ow;
//   column q of A      = filter tap and input channel (kh, kw, c), q = (kh * kernel_w + kw) * in_c + c;
//   A[m, q]            = input[n, ih, iw, c] with ih = oh * stride_h - pad_h + kh * dilation_h and
//                        iw = ow * stride_w - pad_w + kw * dilation_w, or 0 where that pixel lies in the padding.
// For one row and one tap, the in_c channels of A are a contiguous run of the input (or all padding): the gather
// copies such runs, and writes zeros for padding instead of reading a padded copy of the input.
#ifndef STRATA_CONV_GATHER_H_
#define STRATA_CONV_GATHER_H_

#include <cstddef>
#include <cstdint>

#include "conv_geometry.h"
#include "tile_args.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// `run` columns of the rows at src[0..h) (null: a row in the padding, all zeros) into a micro-panel of kMR rows,
// element (r, j) at out[j * kMR + r]. As pack_transposing does for a plain A, kLanes columns at a time the rows are
// loaded as vectors in groups of kLanes, each group transposed in registers and its columns stored; a run shorter
// than half a vector, or a panel of few rows, is copied element by element.
template <int kMR>
inline void gather_run(const float* const* src, int64_t h, int64_t run, float* out) {
  int64_t j = 0;
  if (h >= 2 && 4 * h >= kLanes && 2 * run >= kLanes) {
    for (; j < run; j += kLanes) {
      const int w = run - j < kLanes ? static_cast<int>(run - j) : kLanes;
      const Mask columns = lane_mask(w);
      for (int64_t g = 0; g < h; g += kLanes) {
        const int64_t n = h - g < kLanes ? h - g : kLanes;
        Vec v[kLanes];
        for (int r = 0; r < kLanes; ++r) {
          const float* row = r < n ? src[g + r] : nullptr;
          v[r] = row == nullptr ? vzero() : w == kLanes ? vload(row + j) : vload_masked(row + j, columns);
        }
        transpose(v);
        float* const to = out + j * kMR + g;
        if (n == kLanes) {
          for (int c = 0; c < w; ++c) vstore(to + c * kMR, v[c]);
        } else {
          const Mask rows = lane_mask(static_cast<int>(n));
          for (int c = 0; c < w; ++c) vstore_masked(to + c * kMR, rows, v[c]);
        }
      }
    }
    return;
  }
  for (int64_t r = 0; r < h; ++r) {
    const float* row = src[r];
    if (row == nullptr) {
      for (int64_t c = 0; c < run; ++c) out[c * kMR + r] = 0.0f;
    } else {
      for (int64_t c = 0; c < run; ++c) out[c * kMR + r] = row[c];
    }
  }
}

// Rows [row, row + rows) of A over k [p, p + depth) into MR-tall micro-panels, the layout pack_a writes.
template <class Shape>
void gather_a(const ConvGeometry& cv, int64_t row, int64_t p, int64_t rows, int64_t depth, float* out) {
  constexpr int kMR = Shape::kTileRows;
  constexpr size_t kRows = static_cast<size_t>(kMR);  // the panel's arrays
  const int64_t stride_h = fact_or(kConvStrideH, cv.stride_h), stride_w = fact_or(kConvStrideW, cv.stride_w);
  const int64_t pad_h = fact_or(kConvPadH, cv.pad_h), pad_w = fact_or(kConvPadW, cv.pad_w);
  const int64_t dilation_h = fact_or(kConvDilationH, cv.dilation_h);
  const int64_t dilation_w = fact_or(kConvDilationW, cv.dilation_w);
  const int64_t image_floats = cv.in_h * cv.in_w * cv.in_c;
  for (int64_t i0 = 0; i0 < rows; i0 += kMR, out += depth * kMR) {
    const int64_t h = rows - i0 < kMR ? rows - i0 : kMR;
    const float* image[kRows];
    int64_t top[kRows], left[kRows];
    for (int64_t r = 0; r < h; ++r) {
      const int64_t m = row + i0 + r, ow = m % cv.out_w, pixel_row = m / cv.out_w;
      const int64_t oh = pixel_row % cv.out_h, n = pixel_row / cv.out_h;
      image[r] = cv.input + n * image_floats;
      top[r] = oh * stride_h - pad_h;
      left[r] = ow * stride_w - pad_w;
    }
    const int64_t tap = p / cv.in_c;
    int64_t c = p % cv.in_c, kw = tap % cv.kernel_w, kh = tap / cv.kernel_w;
    for (int64_t q = 0; q < depth;) {
      // With no dilation along w, a row's taps kw to kernel_w - 1 of one filter row are adjacent pixels, one run of
      // the input, wherever every row of the panel has all of them inside the image or lies in the padding: then
      // they are copied as one run (a network's first layer, 3 channels a tap, gathers 7 taps at once).
      bool merged = dilation_w == 1 && kw + 1 < cv.kernel_w;
      const float* src[kRows];
      for (int64_t r = 0; r < h; ++r) {
        const int64_t ih = top[r] + kh * dilation_h, iw = left[r] + kw * dilation_w;
        const bool row_inside = ih >= 0 && ih < cv.in_h;
        const bool inside = row_inside && iw >= 0 && iw < cv.in_w;
        merged = merged && (!row_inside || (iw >= 0 && left[r] + cv.kernel_w - 1 < cv.in_w));
        src[r] = inside ? image[r] + (ih * cv.in_w + iw) * cv.in_c + c : nullptr;
      }
      const int64_t taps = merged ? cv.kernel_w - kw : 1;
      const int64_t run = taps * cv.in_c - c < depth - q ? taps * cv.in_c - c : depth - q;
      gather_run<kMR>(src, h, run, out + q * kMR);
      q += run;
      c = 0;
      kw += taps;
      if (kw == cv.kernel_w) {
        kw = 0;
        ++kh;
      }
    }
  }
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_CONV_GATHER_H_
