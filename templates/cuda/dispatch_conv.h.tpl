// Part of the dispatcher of {{PACKAGE}} (included by dispatch.cpp in convolution packages): 2-D convolution as an
// implicit GEMM. The kernels gather A from the input as they copy it to shared memory (GemmParams::conv), so no
// im2col buffer and no padded copy of the input exist; the filter is B ({{FILTER_LAYOUT}}), read in place where the
// kernels read B in its order and transposed into workspace otherwise; the output is C, M x out_c. The call then
// runs as a GEMM call does (dispatch_calls.h): one plan by the model, split-K, the fused epilogue.

namespace {

// The op spec's facts: a value the package fixes, or kConvRuntime where a call gives it.
constexpr int64_t kConvRuntime = -1;
constexpr int64_t kConvStrideH = {{STRIDE_H}}, kConvStrideW = {{STRIDE_W}};
constexpr int64_t kConvPadH = {{PAD_H}}, kConvPadW = {{PAD_W}};
constexpr int64_t kConvDilationH = {{DILATION_H}}, kConvDilationW = {{DILATION_W}};
constexpr bool kConvFilterKrsc = {{FILTER_KRSC}};

constexpr int64_t fact_or(int64_t fact, int64_t value) { return fact == kConvRuntime ? value : fact; }

// out = (in + 2 pad - dilation (kernel - 1) - 1) / stride + 1, checked: SIZE_OVERFLOW where a step overflows,
// INVALID_SIZE where the padded input is smaller than the dilated filter (no output pixel would fit). *padded: the
// padded extent.
{{PACKAGE}}_status output_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation,
                                 int64_t* padded, int64_t* out) {
  const int64_t max = std::numeric_limits<int64_t>::max();
  if (pad > (max - in) / 2 || mul_overflows(dilation, kernel - 1) || dilation * (kernel - 1) > max - 1)
    return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  *padded = in + 2 * pad;
  const int64_t reach = dilation * (kernel - 1) + 1;
  if (*padded < reach) return {{PACKAGE_UPPER}}_INVALID_SIZE;
  *out = (*padded - reach) / stride + 1;
  return {{PACKAGE_UPPER}}_OK;
}

// A convolution's GEMM: M = batch * out_h * out_w output pixels, N = out_c, K = kernel_h * kernel_w * in_c, and the
// geometry the kernels gather A with.
struct ConvShape {
  ConvParams geometry;
  int64_t M, N, K;
};

// Checks a description in the order the header lists the statuses and works out its GEMM. The kernels index within
// an image in 32-bit arithmetic: a padded extent or a K past 2^31 - 1 is SIZE_OVERFLOW.
{{PACKAGE}}_status conv_shape(const {{PACKAGE}}_conv2d_t* conv, ConvShape* shape) {
  if (conv == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  const {{PACKAGE}}_conv2d_t& c = *conv;
  if (c.batch < 0 || c.in_h < 0 || c.in_w < 0 || c.in_c < 0 || c.out_c < 0 || c.kernel_h < 1 || c.kernel_w < 1)
    return {{PACKAGE_UPPER}}_INVALID_SIZE;
  if (c.stride_h < 1 || c.stride_w < 1 || c.dilation_h < 1 || c.dilation_w < 1 || c.pad_h < 0 || c.pad_w < 0)
    return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  if (fact_or(kConvStrideH, c.stride_h) != c.stride_h || fact_or(kConvStrideW, c.stride_w) != c.stride_w ||
      fact_or(kConvPadH, c.pad_h) != c.pad_h || fact_or(kConvPadW, c.pad_w) != c.pad_w ||
      fact_or(kConvDilationH, c.dilation_h) != c.dilation_h || fact_or(kConvDilationW, c.dilation_w) != c.dilation_w)
    return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
  int64_t padded_h = 0, padded_w = 0, out_h = 0, out_w = 0;
  if (const {{PACKAGE}}_status s =
          output_extent(c.in_h, c.kernel_h, c.stride_h, c.pad_h, c.dilation_h, &padded_h, &out_h);
      s != {{PACKAGE_UPPER}}_OK)
    return s;
  if (const {{PACKAGE}}_status s =
          output_extent(c.in_w, c.kernel_w, c.stride_w, c.pad_w, c.dilation_w, &padded_w, &out_w);
      s != {{PACKAGE_UPPER}}_OK)
    return s;
  // The input's, the output's and the filter's bytes, each within reach of 64-bit offsets.
  const int64_t max = std::numeric_limits<int64_t>::max();
  int64_t input = c.batch, pixels = c.batch, taps = c.kernel_h;
  for (const int64_t f : {c.in_h, c.in_w, c.in_c}) {
    if (mul_overflows(input, f)) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    input *= f;
  }
  for (const int64_t f : {out_h, out_w}) {
    if (mul_overflows(pixels, f)) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    pixels *= f;
  }
  for (const int64_t f : {c.kernel_w, c.in_c}) {
    if (mul_overflows(taps, f)) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
    taps *= f;
  }
  if (input > max / {{A_BYTES}} || mul_overflows(pixels, c.out_c) || pixels * c.out_c > max / 4 ||
      mul_overflows(taps, c.out_c) || taps * c.out_c > max / {{B_BYTES}})
    return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  const int64_t int32_max = std::numeric_limits<int32_t>::max();
  if (padded_h > int32_max || padded_w > int32_max || taps > int32_max) return {{PACKAGE_UPPER}}_SIZE_OVERFLOW;
  // Below 2^31 now: every extent is at most its padded one, and a stride or dilation that matters (more than one
  // output row, a filter taller than one) at most the padded extent; one that does not is stored as 1.
  auto narrow = [](int64_t x) { return static_cast<int32_t>(x); };
  ConvParams& g = shape->geometry;
  g.in_h = narrow(c.in_h);
  g.in_w = narrow(c.in_w);
  g.in_c = narrow(c.in_c);
  g.out_h = narrow(out_h);
  g.out_w = narrow(out_w);
  g.kernel_w = narrow(c.kernel_w);
  g.stride_h = narrow(out_h > 1 ? c.stride_h : 1);
  g.stride_w = narrow(out_w > 1 ? c.stride_w : 1);
  g.pad_h = narrow(c.pad_h);
  g.pad_w = narrow(c.pad_w);
  g.dilation_h = narrow(c.kernel_h > 1 ? c.dilation_h : 1);
  g.dilation_w = narrow(c.kernel_w > 1 ? c.dilation_w : 1);
  shape->M = pixels;
  shape->N = c.out_c;
  shape->K = taps;
  return {{PACKAGE_UPPER}}_OK;
}

// The GEMM call of a checked convolution: A the input (gathered), B the filter as stored, C the dense output.
Call conv_gemm_call(const ConvShape& shape, float alpha, const void* input, const void* filter, float beta,
                    float* output, const {{PACKAGE}}_epilogue_t* epilogue) {
  const int64_t k = shape.K > 1 ? shape.K : 1, n = shape.N > 1 ? shape.N : 1;
  // KRSC is B stored N x K (transposed), RSCK B stored K x N.
  const int32_t trans_b = kConvFilterKrsc ? {{PACKAGE_UPPER}}_TRANS : {{PACKAGE_UPPER}}_NO_TRANS;
  Call c{ {{PACKAGE_UPPER}}_NO_TRANS, trans_b, shape.M, shape.N, shape.K, alpha, input, k, 0, filter,
         kConvFilterKrsc ? k : n, 0, beta, output, n, 0, 1, epilogue, 0, 0};
  c.conv = &shape.geometry;
  return c;
}

}  // namespace

extern "C" {

{{PACKAGE}}_status {{PACKAGE}}_conv2d_output_size(const {{PACKAGE}}_conv2d_t* conv, int64_t* out_h, int64_t* out_w) {
  return guarded([&] {
    if (out_h == nullptr || out_w == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
    ConvShape shape;
    const {{PACKAGE}}_status status = conv_shape(conv, &shape);
    if (status != {{PACKAGE_UPPER}}_OK) return status;
    *out_h = shape.geometry.out_h;
    *out_w = shape.geometry.out_w;
    return {{PACKAGE_UPPER}}_OK;
  });
}

{{PACKAGE}}_status {{PACKAGE}}_conv2d(const {{PACKAGE}}_conv2d_t* conv, float alpha, const {{A_CTYPE}}* input,
                                     const {{B_CTYPE}}* filter, float beta, float* output,
                                     {{PACKAGE}}_stream stream) {
  return {{PACKAGE}}_conv2d_epilogue(conv, alpha, input, filter, beta, output, nullptr, stream);
}

{{PACKAGE}}_status {{PACKAGE}}_conv2d_epilogue(const {{PACKAGE}}_conv2d_t* conv, float alpha,
                                              const {{A_CTYPE}}* input, const {{B_CTYPE}}* filter, float beta,
                                              float* output, const {{PACKAGE}}_epilogue_t* epilogue,
                                              {{PACKAGE}}_stream stream) {
  return guarded([&] {
    ConvShape shape;
    const {{PACKAGE}}_status status = conv_shape(conv, &shape);
    if (status != {{PACKAGE_UPPER}}_OK) return status;
    return run_call(conv_gemm_call(shape, alpha, input, filter, beta, output, epilogue), stream);
  });
}

{{PACKAGE}}_status {{PACKAGE}}_conv2d_plan(const {{PACKAGE}}_conv2d_t* conv, {{PACKAGE}}_plan_t* plan) {
  return guarded([&] {
    if (plan == nullptr) return {{PACKAGE_UPPER}}_INVALID_ARGUMENT;
    ConvShape shape;
    {{PACKAGE}}_status status = conv_shape(conv, &shape);
    if (status != {{PACKAGE_UPPER}}_OK) return status;
    static const float operand = 0;
    const Call c = conv_gemm_call(shape, 1.0f, &operand, &operand, 0.0f, const_cast<float*>(&operand), nullptr);
    Staging s;
    status = check_call(c);
    if (status == {{PACKAGE_UPPER}}_OK) status = staging_of(c, &s);
    if (status != {{PACKAGE_UPPER}}_OK) return status;
    bool aligned = false;
    plan_call(c, s, nullptr, plan, &aligned);
    return {{PACKAGE_UPPER}}_OK;
  });
}

}  // extern "C"
