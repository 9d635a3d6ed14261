// Self-test of {{PACKAGE}}'s convolutions (included by selftest.cpp in convolution packages, after
// selftest_calls.h): the argument checks and plans, which need no GPU, then convolutions through conv2d and
// conv2d_epilogue against a direct reference convolution in double, on the edges of the gather (padding wider than
// the filter, strides longer than it, dilation, single rows, columns and channels, channel counts that break the
// 16-byte copies) and deep enough for split-K.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_CONV_H_
#define {{PACKAGE_UPPER}}_SELFTEST_CONV_H_

namespace {

using Conv = {{PACKAGE}}_conv2d_t;

// The stride, padding and dilation the op spec fixes ([h, w] each), -1 where a call gives them: a case takes the
// fixed values in place of its own.
constexpr int64_t kConvFacts[6] = { {{FACT_STRIDE_H}}, {{FACT_STRIDE_W}}, {{FACT_PAD_H}}, {{FACT_PAD_W}},
                                    {{FACT_DILATION_H}}, {{FACT_DILATION_W}} };
constexpr bool kFilterKrsc = {{FILTER_KRSC}};

Conv with_facts(Conv c) {
  int64_t* const values[6] = {&c.stride_h, &c.stride_w, &c.pad_h, &c.pad_w, &c.dilation_h, &c.dilation_w};
  for (int i = 0; i < 6; ++i)
    if (kConvFacts[i] >= 0) *values[i] = kConvFacts[i];
  return c;
}

Conv make_conv(int64_t batch, int64_t in_h, int64_t in_w, int64_t in_c, int64_t out_c, int64_t kernel_h,
               int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
               int64_t dilation_w) {
  return with_facts(Conv{batch, in_h, in_w, in_c, out_c, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w,
                         dilation_h, dilation_w});
}

int64_t out_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

void check_conv_arguments() {
  const Conv good = make_conv(1, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1);
  float dummy[64] = {};
  const AElem* input = reinterpret_cast<const AElem*>(dummy);
  const BElem* filter = reinterpret_cast<const BElem*>(dummy);
  float* output = dummy + 32;
  auto run = [&](const Conv& c) { return {{PACKAGE}}_conv2d(&c, 1.0f, input, filter, 0.0f, output, nullptr); };
  expect({{PACKAGE}}_conv2d(nullptr, 1.0f, input, filter, 0.0f, output, nullptr) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT,
         "conv2d: null description");
  int64_t h = 0, w = 0;
  expect({{PACKAGE}}_conv2d_output_size(&good, nullptr, &w) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT,
         "conv2d_output_size: null extent");
  expect({{PACKAGE}}_conv2d_output_size(&good, &h, &w) == {{PACKAGE_UPPER}}_OK && h == 5 && w == 5,
         "conv2d_output_size of a padded 3x3");
  const struct {
    int field;  // index into the description's fields
    int64_t value;
    {{PACKAGE}}_status want;
    const char* what;
  } bad[] = {
      {7, 0, {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "stride_h 0"},
      {12, 0, {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "dilation_w 0"},
      {10, -1, {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "pad_w -1"},
      {0, -1, {{PACKAGE_UPPER}}_INVALID_SIZE, "batch -1"},
      {3, -3, {{PACKAGE_UPPER}}_INVALID_SIZE, "in_c -3"},
      {5, 0, {{PACKAGE_UPPER}}_INVALID_SIZE, "kernel_h 0"},
      {5, 9, {{PACKAGE_UPPER}}_INVALID_SIZE, "a filter taller than the padded input"},
      {0, int64_t{1} << 58, {{PACKAGE_UPPER}}_SIZE_OVERFLOW, "an input past 2^63 elements"},
      {1, int64_t{1} << 31, {{PACKAGE_UPPER}}_SIZE_OVERFLOW, "a padded height past 2^31 - 1"},
      {3, int64_t{1} << 28, {{PACKAGE_UPPER}}_SIZE_OVERFLOW, "K = 9 in_c past 2^31 - 1"},
  };
  for (const auto& b : bad) {
    Conv c = good;
    int64_t* const fields[13] = {&c.batch,    &c.in_h,     &c.in_w,  &c.in_c,  &c.out_c,      &c.kernel_h,
                                 &c.kernel_w, &c.stride_h, &c.stride_w, &c.pad_h, &c.pad_w, &c.dilation_h,
                                 &c.dilation_w};
    *fields[b.field] = b.value;
    if (with_facts(c).stride_h != c.stride_h || with_facts(c).pad_w != c.pad_w ||
        with_facts(c).dilation_w != c.dilation_w)
      continue;  // a fact of the op spec: covered below
    expect(run(c) == b.want, std::string("conv2d: ") + b.what);
  }
  for (int i = 0; i < 6; ++i) {  // a value the op spec fixes, given otherwise
    if (kConvFacts[i] < 0) continue;
    Conv c = good;
    int64_t* const values[6] = {&c.stride_h, &c.stride_w, &c.pad_h, &c.pad_w, &c.dilation_h, &c.dilation_w};
    *values[i] = kConvFacts[i] + 1;
    expect(run(c) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "conv2d: a value other than the op spec's fact");
  }
  expect({{PACKAGE}}_conv2d(&good, 1.0f, input, filter, 0.0f, nullptr, nullptr) == {{PACKAGE_UPPER}}_NULL_POINTER,
         "conv2d: null output");
  expect({{PACKAGE}}_conv2d(&good, 1.0f, nullptr, filter, 0.0f, output, nullptr) == {{PACKAGE_UPPER}}_NULL_POINTER,
         "conv2d: null input");
  const Conv empty = make_conv(0, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1);
  expect({{PACKAGE}}_conv2d(&empty, 1.0f, nullptr, nullptr, 0.0f, nullptr, nullptr) == {{PACKAGE_UPPER}}_OK,
         "conv2d: batch 0 without pointers");
  {{PACKAGE}}_epilogue_t e{};
  e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN;
  expect({{PACKAGE}}_conv2d_epilogue(&good, 1.0f, input, filter, 0.0f, output, &e, nullptr) ==
             {{PACKAGE_UPPER}}_NULL_POINTER,
         "conv2d_epilogue: bias null");

  // Plans: the GEMM of the convolution, priced as the model prices that GEMM, with the filter's copy where the
  // kernels read B the other way.
  {{PACKAGE}}_plan_t plan{}, gemm{};
  expect({{PACKAGE}}_conv2d_plan(&good, nullptr) == {{PACKAGE_UPPER}}_INVALID_ARGUMENT, "conv2d_plan: null plan");
  const Conv layer = make_conv(16, 56, 56, 64, 64, 3, 3, 1, 1, 1, 1, 1, 1);
  const int64_t M = 16 * 56 * 56, N = 64, K = 9 * 64;
  const {{PACKAGE}}_transpose filter_trans = kFilterKrsc ? kTrans : kNo;
  expect({{PACKAGE}}_conv2d_plan(&layer, &plan) == {{PACKAGE_UPPER}}_OK &&
             {{PACKAGE}}_gemm_plan(kNo, filter_trans, M, N, K, 1, &gemm) == {{PACKAGE_UPPER}}_OK,
         "conv2d_plan of a ResNet layer");
  expect(plan.wgmma == 0 && plan.kernel_id == gemm.kernel_id && plan.split_k == gemm.split_k &&
             plan.workspace_bytes == gemm.workspace_bytes && plan.predicted_seconds == gemm.predicted_seconds,
         "conv2d_plan: the plan of its GEMM");
}

// Runs one convolution through conv2d (or conv2d_epilogue with a bias per channel, a residual image and ReLU) and
// compares every output element, and the padding after the output, with the reference.
void run_conv_case(const Conv& c, float alpha, float beta, bool epilogue, std::mt19937& rng) {
  const int64_t out_h = out_extent(c.in_h, c.kernel_h, c.stride_h, c.pad_h, c.dilation_h);
  const int64_t out_w = out_extent(c.in_w, c.kernel_w, c.stride_w, c.pad_w, c.dilation_w);
  const int64_t pixels = c.batch * out_h * out_w, outputs = pixels * c.out_c, ldr = c.out_c + 3;
  const std::vector<AElem> input = random_matrix<AElem>(rng, 1, c.batch * c.in_h * c.in_w * c.in_c);
  const std::vector<BElem> filter = random_matrix<BElem>(rng, 1, c.out_c * c.kernel_h * c.kernel_w * c.in_c);
  std::vector<float> out0 = random_matrix<float>(rng, 1, outputs + 4);  // 4 floats past the output stay as they are
  const std::vector<float> bias = random_matrix<float>(rng, 1, c.out_c);
  const std::vector<float> residual = random_matrix<float>(rng, 1, pixels * ldr);
  if (beta == 0.0f)
    for (int64_t i = 0; i < outputs; ++i) out0[static_cast<size_t>(i)] = std::numeric_limits<float>::quiet_NaN();
  DeviceBuffer<AElem> din(input.size());
  DeviceBuffer<BElem> dfilter(filter.size());
  DeviceBuffer<float> dout(out0.size()), dbias(bias.size()), dres(residual.size());
  if (!din.get() || !dfilter.get() || !dout.get() || !dbias.get() || !dres.get() ||
      !upload(din.get(), input.data(), input.size() * sizeof(AElem)) ||
      !upload(dfilter.get(), filter.data(), filter.size() * sizeof(BElem)) ||
      !upload(dout.get(), out0.data(), out0.size() * sizeof(float)) ||
      !upload(dbias.get(), bias.data(), bias.size() * sizeof(float)) ||
      !upload(dres.get(), residual.data(), residual.size() * sizeof(float))) {
    expect(false, "device allocation or copy failed");
    return;
  }
  {{PACKAGE}}_epilogue_t e{};
  e.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN;
  e.bias = dbias.get();
  e.residual = dres.get();
  e.ldr = ldr;
  e.activation = {{PACKAGE_UPPER}}_ACTIVATION_RELU;
  char label[256];
  std::snprintf(label, sizeof label,
                "conv batch=%lld in=%lldx%lldx%lld out_c=%lld filter=%lldx%lld stride=%lldx%lld pad=%lldx%lld "
                "dilation=%lldx%lld alpha=%g beta=%g%s",
                static_cast<long long>(c.batch), static_cast<long long>(c.in_h), static_cast<long long>(c.in_w),
                static_cast<long long>(c.in_c), static_cast<long long>(c.out_c), static_cast<long long>(c.kernel_h),
                static_cast<long long>(c.kernel_w), static_cast<long long>(c.stride_h),
                static_cast<long long>(c.stride_w), static_cast<long long>(c.pad_h), static_cast<long long>(c.pad_w),
                static_cast<long long>(c.dilation_h), static_cast<long long>(c.dilation_w), alpha, beta,
                epilogue ? " bias+residual+ReLU" : "");
  const {{PACKAGE}}_status status =
      epilogue ? {{PACKAGE}}_conv2d_epilogue(&c, alpha, din.get(), dfilter.get(), beta, dout.get(), &e, nullptr)
               : {{PACKAGE}}_conv2d(&c, alpha, din.get(), dfilter.get(), beta, dout.get(), nullptr);
  expect(status == {{PACKAGE_UPPER}}_OK, std::string("status ") + status_text(status) + ": " + label);
  std::vector<float> out(out0.size());
  if (cudaDeviceSynchronize() != cudaSuccess || !download(out.data(), dout.get(), out.size() * sizeof(float))) {
    expect(false, std::string("kernel or copy failed: ") + label);
    return;
  }
  int64_t bad = 0;
  for (int64_t i = outputs; i < outputs + 4; ++i)
    if (std::memcmp(&out[static_cast<size_t>(i)], &out0[static_cast<size_t>(i)], sizeof(float)) != 0) ++bad;
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oh = 0; oh < out_h; ++oh)
      for (int64_t ow = 0; ow < out_w; ++ow)
        for (int64_t o = 0; o < c.out_c; ++o) {
          double sum = 0;
          for (int64_t r = 0; r < c.kernel_h; ++r)
            for (int64_t s = 0; s < c.kernel_w; ++s) {
              const int64_t ih = oh * c.stride_h - c.pad_h + r * c.dilation_h;
              const int64_t iw = ow * c.stride_w - c.pad_w + s * c.dilation_w;
              if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) continue;
              for (int64_t ch = 0; ch < c.in_c; ++ch) {
                const int64_t f = kFilterKrsc ? ((o * c.kernel_h + r) * c.kernel_w + s) * c.in_c + ch
                                              : ((r * c.kernel_w + s) * c.in_c + ch) * c.out_c + o;
                sum += static_cast<double>(to_float(input[static_cast<size_t>(((n * c.in_h + ih) * c.in_w + iw) *
                                                                                  c.in_c +
                                                                              ch)])) *
                       to_float(filter[static_cast<size_t>(f)]);
              }
            }
          const int64_t pixel = (n * out_h + oh) * out_w + ow;
          const size_t at = static_cast<size_t>(pixel * c.out_c + o);
          const double c_term = beta == 0.0f ? 0.0 : beta * static_cast<double>(out0[at]);
          double v = alpha * sum + c_term, magnitude = std::fabs(alpha * sum) + std::fabs(c_term);
          if (epilogue) {
            v += bias[static_cast<size_t>(o)] + residual[static_cast<size_t>(pixel * ldr + o)];
            magnitude += std::fabs(bias[static_cast<size_t>(o)]) +
                         std::fabs(residual[static_cast<size_t>(pixel * ldr + o)]);
            v = activate(1, v);
          }
          // Exact sums (see the host values above); the rounding of the epilogue's few operations is left.
          const double tolerance = std::ldexp(1.0, -20) * (magnitude + std::fabs(v)) + 1e-30;
          if (!(std::fabs(out[at] - v) <= tolerance)) {
            if (bad == 0)
              expect(false, std::string(label) + ": output[" + std::to_string(at) + "] = " + std::to_string(out[at]) +
                                ", expected " + std::to_string(v));
            ++bad;
          }
        }
  expect(bad == 0, std::string(label) + ": " + std::to_string(bad) + " wrong elements");
}

void run_conv_cases(std::mt19937& rng) {
  const Conv cases[] = {
      make_conv(1, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1),          // the common 3x3, 16-byte copies
      make_conv(2, 7, 9, 5, 7, 3, 3, 2, 2, 1, 1, 1, 1),          // stride 2, two images, 5 channels: element-wise
      make_conv(1, 6, 6, 16, 5, 2, 2, 3, 3, 0, 0, 1, 1),         // stride longer than the filter
      make_conv(1, 4, 4, 8, 3, 1, 1, 1, 1, 2, 2, 1, 1),          // 1x1 with padding wider than the filter
      make_conv(1, 3, 5, 8, 3, 3, 3, 1, 1, 4, 3, 1, 1),          // padding wider than the filter and the input
      make_conv(1, 9, 9, 8, 5, 3, 3, 1, 1, 2, 2, 2, 2),          // dilation
      make_conv(1, 1, 7, 8, 5, 1, 3, 1, 1, 0, 1, 1, 1),          // H of 1: one output row
      make_conv(1, 8, 1, 8, 5, 3, 1, 1, 1, 1, 0, 1, 1),          // W of 1: one output column
      make_conv(3, 5, 5, 1, 9, 3, 3, 1, 1, 1, 1, 1, 1),          // one input channel, odd output channels
      make_conv(1, 3, 3, 8, 5, 3, 3, 1, 1, 0, 0, 1, 1),          // a 1x1 output
      make_conv(0, 5, 5, 8, 4, 3, 3, 1, 1, 1, 1, 1, 1),          // batch 0
      make_conv(1, 4, 4, 0, 3, 3, 3, 1, 1, 1, 1, 1, 1),          // no input channels: output = beta * output
      make_conv(2, 7, 7, 40, 29, 1, 1, 1, 1, 0, 0, 1, 1),        // 1x1, stride 1
      make_conv(1, 32, 32, 3, 64, 7, 7, 2, 2, 3, 3, 1, 1),       // a network's first layer: runs of 3 channels
      make_conv(1, 11, 13, 24, 17, 3, 5, 1, 2, 1, 2, 2, 1),      // every extent different
      make_conv(2, 14, 14, 64, 67, 3, 3, 1, 1, 1, 1, 1, 1),      // many block tiles
      make_conv(1, 4, 4, 256, 16, 3, 3, 1, 1, 1, 1, 1, 1),       // 16 pixels, K = 2304: split-K
      make_conv(1, 30, 30, 37, 130, 5, 5, 2, 2, 2, 2, 1, 1),     // K = 925, element-wise, several k tiles
  };
  int variant = 0;
  for (const Conv& c : cases) {
    run_conv_case(c, variant % 3 == 0 ? 1.0f : -1.5f, variant % 2 == 0 ? 0.0f : 0.5f, variant % 4 == 3, rng);
    ++variant;
  }
  run_conv_case(cases[0], 1.0f, 0.5f, true, rng);
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_CONV_H_
