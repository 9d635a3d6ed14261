// Part of the dispatcher in convolution packages: a 2-D convolution as an implicit GEMM over the packed path, its A
// gathered from the input as it is packed (conv_gather.h), and its C API. Fixed text, copied verbatim into
// convolution packages; the op spec's facts come from config.h.
#ifndef STRATA_DISPATCH_CONV_H_
#define STRATA_DISPATCH_CONV_H_

#include "conv_geometry.h"

namespace STRATA_PACKAGE_INTERNAL {
namespace {

// A convolution's sizes checked and turned into its GEMM: M = batch * out_h * out_w output pixels, N = out_c, K =
// kernel_h * kernel_w * in_c. The filter is B: KRSC (out_c x kernel_h x kernel_w x in_c) is B stored N x K, RSCK
// (kernel_h x kernel_w x in_c x out_c) is B stored K x N.
struct ConvCall {
  ConvGeometry geometry;
  int64_t M, N, K;
  bool plain_gemm;  // a 1 x 1 filter, stride 1, no padding: A is the input itself, M x in_c
};

// out = (in + 2 pad - dilation (kernel - 1) - 1) / stride + 1, checked: SIZE_OVERFLOW where a step overflows,
// INVALID_SIZE where the padded input is smaller than the dilated filter (no output pixel would fit).
STRATA_X(status)
output_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation, int64_t* out) {
  int64_t padded = 0, reach = 0;
  if (__builtin_mul_overflow(pad, int64_t{2}, &padded) || __builtin_add_overflow(padded, in, &padded) ||
      __builtin_mul_overflow(dilation, kernel - 1, &reach) || __builtin_add_overflow(reach, int64_t{1}, &reach))
    return STRATA_C(SIZE_OVERFLOW);
  if (padded < reach) return STRATA_C(INVALID_SIZE);
  *out = (padded - reach) / stride + 1;
  return STRATA_C(OK);
}

// Checks a convolution's description in the order the status list gives and works out its GEMM.
STRATA_X(status) conv_call(const STRATA_X(conv2d_t) * conv, ConvCall* call) {
  if (conv == nullptr) return STRATA_C(INVALID_ARGUMENT);
  const STRATA_X(conv2d_t)& c = *conv;
  if (c.batch < 0 || c.in_h < 0 || c.in_w < 0 || c.in_c < 0 || c.out_c < 0 || c.kernel_h < 1 || c.kernel_w < 1)
    return STRATA_C(INVALID_SIZE);
  if (c.stride_h < 1 || c.stride_w < 1 || c.dilation_h < 1 || c.dilation_w < 1 || c.pad_h < 0 || c.pad_w < 0)
    return STRATA_C(INVALID_ARGUMENT);
  if (fact_or(kConvStrideH, c.stride_h) != c.stride_h || fact_or(kConvStrideW, c.stride_w) != c.stride_w ||
      fact_or(kConvPadH, c.pad_h) != c.pad_h || fact_or(kConvPadW, c.pad_w) != c.pad_w ||
      fact_or(kConvDilationH, c.dilation_h) != c.dilation_h || fact_or(kConvDilationW, c.dilation_w) != c.dilation_w)
    return STRATA_C(INVALID_ARGUMENT);
  ConvGeometry& g = call->geometry;
  g = ConvGeometry{nullptr,
                   c.in_h,
                   c.in_w,
                   c.in_c,
                   0,
                   0,
                   c.kernel_w,
                   fact_or(kConvStrideH, c.stride_h),
                   fact_or(kConvStrideW, c.stride_w),
                   fact_or(kConvPadH, c.pad_h),
                   fact_or(kConvPadW, c.pad_w),
                   fact_or(kConvDilationH, c.dilation_h),
                   fact_or(kConvDilationW, c.dilation_w)};
  if (const STRATA_X(status) s = output_extent(g.in_h, c.kernel_h, g.stride_h, g.pad_h, g.dilation_h, &g.out_h);
      s != STRATA_C(OK))
    return s;
  if (const STRATA_X(status) s = output_extent(g.in_w, c.kernel_w, g.stride_w, g.pad_w, g.dilation_w, &g.out_w);
      s != STRATA_C(OK))
    return s;
  // The input's, the output's and the filter's elements, each within reach of 64-bit byte offsets.
  int64_t input = 0, pixels = 0, taps = 0, filter = 0, output = 0, bytes = 0;
  if (__builtin_mul_overflow(c.batch, g.in_h, &input) || __builtin_mul_overflow(input, g.in_w, &input) ||
      __builtin_mul_overflow(input, g.in_c, &input) || __builtin_mul_overflow(input, int64_t{4}, &bytes) ||
      __builtin_mul_overflow(c.batch, g.out_h, &pixels) || __builtin_mul_overflow(pixels, g.out_w, &pixels) ||
      __builtin_mul_overflow(pixels, c.out_c, &output) || __builtin_mul_overflow(output, int64_t{4}, &bytes) ||
      __builtin_mul_overflow(c.kernel_h, c.kernel_w, &taps) || __builtin_mul_overflow(taps, g.in_c, &taps) ||
      __builtin_mul_overflow(taps, c.out_c, &filter) || __builtin_mul_overflow(filter, int64_t{4}, &bytes))
    return STRATA_C(SIZE_OVERFLOW);
  call->M = pixels;
  call->N = c.out_c;
  call->K = taps;
  call->plain_gemm =
      c.kernel_h == 1 && c.kernel_w == 1 && g.stride_h == 1 && g.stride_w == 1 && g.pad_h == 0 && g.pad_w == 0;
  return STRATA_C(OK);
}

// The GEMM of a checked convolution: C = output (M x out_c, NHWC), B = the filter, A = the input, in place for a
// plain GEMM, else gathered (its lda is then only what check() asks of a row-major A).
Gemm conv_gemm(const ConvCall& call, float alpha, const float* input, const float* filter, float beta,
               float* output) {
  const int32_t filter_layout = kConvFilterKrsc ? kTransB : 0;
  const int64_t lda = std::max<int64_t>(1, call.K),
                ldc = std::max<int64_t>(1, call.N);  // at least 1, as check() asks
  const int64_t ldb = kConvFilterKrsc ? lda : ldc;
  Gemm g{call.M, call.N, call.K, alpha, beta, input, lda, filter, ldb, output, ldc, filter_layout};
  if (!call.plain_gemm) {
    g.layout = conv_layout(filter_layout, call.geometry.in_c, call.geometry.out_w);
    g.conv = &call.geometry;
  }
  return g;
}

}  // namespace
}  // namespace STRATA_PACKAGE_INTERNAL

extern "C" {

STRATA_X(status)
STRATA_X(conv2d_output_size)(const STRATA_X(conv2d_t) * conv, int64_t* out_h, int64_t* out_w) {
  STRATA_PACKAGE_INTERNAL::ConvCall call;
  if (out_h == nullptr || out_w == nullptr) return STRATA_C(INVALID_ARGUMENT);
  const STRATA_X(status) status = STRATA_PACKAGE_INTERNAL::conv_call(conv, &call);
  if (status != STRATA_C(OK)) return status;
  *out_h = call.geometry.out_h;
  *out_w = call.geometry.out_w;
  return STRATA_C(OK);
}

STRATA_X(status)
STRATA_X(conv2d)
(const STRATA_X(conv2d_t) * conv, float alpha, const float* input, const float* filter, float beta, float* output) {
  return STRATA_X(conv2d_epilogue)(conv, alpha, input, filter, beta, output, nullptr);
}

STRATA_X(status)
STRATA_X(conv2d_epilogue)
(const STRATA_X(conv2d_t) * conv, float alpha, const float* input, const float* filter, float beta, float* output,
 const STRATA_X(epilogue_t) * epilogue) {
  using namespace STRATA_PACKAGE_INTERNAL;
  ConvCall call;
  const STRATA_X(status) status = conv_call(conv, &call);
  if (status != STRATA_C(OK)) return status;
  call.geometry.input = input;
  return execute_with_epilogue(conv_gemm(call, alpha, input, filter, beta, output), epilogue);
}

STRATA_X(status)
STRATA_X(conv2d_pack_filter)
(const STRATA_X(conv2d_t) * conv, const float* filter, void* packed, size_t packed_bytes) {
  using namespace STRATA_PACKAGE_INTERNAL;
  ConvCall call;
  if (const STRATA_X(status) s = conv_call(conv, &call); s != STRATA_C(OK)) return s;
  const Gemm g = conv_gemm(call, 1.0f, nullptr, filter, 0.0f, nullptr);
  // The kernel is chosen for calls of this description's pixels, gathered as its calls gather them.
  const PackedBUse use{call.plain_gemm ? 0 : g.layout & ~kTransB, conv->kernel_h, conv->kernel_w};
  try {
    return pack_b_into(g.b_transposed() ? STRATA_C(TRANS) : STRATA_C(NO_TRANS), call.N, call.K,
                       std::max<int64_t>(1, call.M), filter, g.ldb, packed, packed_bytes, use);
  } catch (...) {  // the plans' thread count may ask the system for a resource
    return STRATA_C(SYSTEM_ERROR);
  }
}

STRATA_X(status)
STRATA_X(conv2d_pack_filter_alloc)(const STRATA_X(conv2d_t) * conv, const float* filter, void** packed) {
  using namespace STRATA_PACKAGE_INTERNAL;
  if (packed == nullptr) return STRATA_C(NULL_POINTER);
  *packed = nullptr;
  ConvCall call;
  if (const STRATA_X(status) s = conv_call(conv, &call); s != STRATA_C(OK)) return s;
  return pack_allocated(call.N, call.K, packed, [&](void* memory, size_t bytes) {
    return STRATA_X(conv2d_pack_filter)(conv, filter, memory, bytes);
  });
}

STRATA_X(status)
STRATA_X(conv2d_packed)
(const STRATA_X(conv2d_t) * conv, float alpha, const float* input, const void* packed_filter, float beta,
 float* output, const STRATA_X(epilogue_t) * epilogue) {
  using namespace STRATA_PACKAGE_INTERNAL;
  ConvCall call;
  if (const STRATA_X(status) s = conv_call(conv, &call); s != STRATA_C(OK)) return s;
  call.geometry.input = input;
  Gemm g = conv_gemm(call, alpha, input, nullptr, beta, output);
  int32_t forced = 0;
  if (const STRATA_X(status) s = on_packed_b(packed_filter, conv->kernel_h, conv->kernel_w, &g, &forced);
      s != STRATA_C(OK))
    return s;
  return execute_with_epilogue(g, epilogue, forced);
}

STRATA_X(status) STRATA_X(conv2d_plan)(const STRATA_X(conv2d_t) * conv, STRATA_X(plan_t) * plan) {
  using namespace STRATA_PACKAGE_INTERNAL;
  ConvCall call;
  if (plan == nullptr) return STRATA_C(INVALID_ARGUMENT);
  if (const STRATA_X(status) s = conv_call(conv, &call); s != STRATA_C(OK)) return s;
  if (const STRATA_X(status) s = plannable(call.M, call.N, call.K); s != STRATA_C(OK)) return s;
  const Gemm g = conv_gemm(call, 1.0f, nullptr, nullptr, 0.0f, nullptr);
  fill_plan(choose_plan(g.M, g.N, g.K, current_threads(), -1, g.layout), plan);
  return STRATA_C(OK);
}

}  // extern "C"

#endif  // STRATA_DISPATCH_CONV_H_
