// Part of the dispatcher in convolution packages: a convolution run in place, with no gather. Fixed text, copied
// verbatim into convolution packages.
//
// For one output row (n, oh) and one filter tap (kh, kw), the pixels that read the input (not its padding) are a
// range of ow, and for them A's columns of that tap are the input's channels at pixels stride_w apart: a matrix in
// place, in_c wide, its rows stride_w * in_c apart. So the tap is a GEMM of those output pixels with the tap's rows
// of the filter, which the kernels' direct strips run as they run a GEMM in place, adding onto C. C's row is first
// scaled by beta (zeroed for beta = 0, never read), then every tap adds alpha times its product. The filter is read
// row-major (K x N): an RSCK filter as it is, a KRSC one from a row-major copy made per call.
#ifndef STRATA_DISPATCH_CONV_DIRECT_H_
#define STRATA_DISPATCH_CONV_DIRECT_H_

#include "conv_geometry.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// The first output column whose tap at input column offset `offset` (kw * dilation_w - pad_w) reads the input, and
// one past the last, within [0, out_w).
void tap_columns(const ConvGeometry& cv, int64_t offset, int64_t* first, int64_t* end) {
  const int64_t stride = fact_or(kConvStrideW, cv.stride_w);
  // ow * stride + offset >= 0 and ow * stride + offset < in_w.
  int64_t lo = offset >= 0 ? 0 : (-offset + stride - 1) / stride;
  int64_t hi = cv.in_w - offset <= 0 ? 0 : (cv.in_w - offset - 1) / stride + 1;
  *first = lo;
  *end = std::min(hi, cv.out_w);
}

struct DirectConvJob {
  const Gemm* g;  // B row-major K x N
  const Kernel* k;
  int64_t rows;    // output rows, batch * out_h
  int64_t shares;  // tasks, each a run of output rows
};

void direct_conv_rows(const Gemm& g, const Kernel& k, int64_t begin, int64_t end) {
  const ConvGeometry& cv = *g.conv;
  const int64_t stride_h = fact_or(kConvStrideH, cv.stride_h), stride_w = fact_or(kConvStrideW, cv.stride_w);
  const int64_t pad_h = fact_or(kConvPadH, cv.pad_h), pad_w = fact_or(kConvPadW, cv.pad_w);
  const int64_t dilation_h = fact_or(kConvDilationH, cv.dilation_h);
  const int64_t dilation_w = fact_or(kConvDilationW, cv.dilation_w);
  const int64_t kernel_h = g.K / (cv.kernel_w * cv.in_c);
  TileArgs args = tile_args_of(g);
  args.lda = stride_w * cv.in_c;
  args.ldb = g.ldb;
  args.k = cv.in_c;
  const int64_t c_row_floats = cv.out_w * g.N;  // an output row: out_w pixels of N channels, dense
  const int64_t group = conv_row_group(cv.out_w, k.nr);
  for (int64_t first_row = begin; first_row < end; first_row += group) {
    const int64_t last_row = std::min(end, first_row + group);
    float* const c_rows = g.C + first_row * c_row_floats;
    const int64_t c_floats = (last_row - first_row) * c_row_floats;
    if (g.beta == 0.0f)
      std::fill_n(c_rows, c_floats, 0.0f);
    else if (g.beta != 1.0f)
      for (int64_t i = 0; i < c_floats; ++i) c_rows[i] *= g.beta;
    for (int64_t j = 0; j < g.N; j += k.nr) {
      args.cols = static_cast<int32_t>(std::min<int64_t>(k.nr, g.N - j));
      for (int64_t kh = 0; kh < kernel_h; ++kh)
        for (int64_t kw = 0; kw < cv.kernel_w; ++kw) {
          const int64_t offset = kw * dilation_w - pad_w;
          int64_t first = 0, last = 0;
          tap_columns(cv, offset, &first, &last);
          if (first >= last) continue;
          args.b = g.B + (kh * cv.kernel_w + kw) * cv.in_c * g.ldb + j;
          args.rows = last - first;
          for (int64_t row = first_row; row < last_row; ++row) {
            const int64_t n = row / cv.out_h, oh = row % cv.out_h;
            const int64_t ih = oh * stride_h - pad_h + kh * dilation_h;
            if (ih < 0 || ih >= cv.in_h) continue;
            args.a = cv.input + ((n * cv.in_h + ih) * cv.in_w + first * stride_w + offset) * cv.in_c;
            args.c = g.C + row * c_row_floats + first * g.ldc + j;
            k.direct(args);
          }
        }
    }
    finish(g, k, c_rows, c_floats / g.ldc, g.N);
  }
}

void direct_conv_task(void* context, int64_t index) {
  const DirectConvJob& job = *static_cast<const DirectConvJob*>(context);
  const int64_t begin = job.rows * index / job.shares, end = job.rows * (index + 1) / job.shares;
  direct_conv_rows(*job.g, *job.k, begin, end);
}

// Runs a convolution's plan that reads its input in place, on the plan's threads, each a run of output rows.
STRATA_X(status) run_direct_conv(const Gemm& g, const Plan& plan, const Kernel& k) {
  Gemm call = g;
  if (g.b_transposed()) {  // a KRSC filter: a row-major copy (see row_major_copies)
    Gemm b_only = g;
    b_only.layout = kTransB;
    const Gemm copied = row_major_copies(b_only, k);
    if (copied.A == nullptr) return STRATA_C(OUT_OF_MEMORY);
    call.B = copied.B;
    call.ldb = copied.ldb;
  }
  const int64_t rows = g.M / g.conv->out_w;
  DirectConvJob job{&call, &k, rows, std::min<int64_t>(plan.threads, rows)};
  if (job.shares <= 1)
    direct_conv_rows(call, k, 0, rows);
  else
    parallel_for(job.shares, direct_conv_task, &job);
  return STRATA_C(OK);
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

#endif  // STRATA_DISPATCH_CONV_DIRECT_H_
