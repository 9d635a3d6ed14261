// Self-test for {{PACKAGE}}: 2-D convolutions through _conv2d against a direct reference convolution, on the edges
// of the gather (padding wider than the filter, strides longer than it, dilation, single rows, columns and channels),
// and their bad arguments. A part of test/selftest.cpp, which includes it after the helpers it uses.
#ifndef {{PACKAGE_UPPER}}_SELFTEST_CONV_H_
#define {{PACKAGE_UPPER}}_SELFTEST_CONV_H_

namespace {

// ---- (j) convolution ----------------------------------------------------------------------------------------------

using Conv = {{PACKAGE}}_conv2d_t;

// The stride, padding and dilation the op spec fixes ([h, w] each), -1 where a call gives them: a case takes the
// fixed values in place of its own.
constexpr int64_t kConvFacts[6] = { {{FACT_STRIDE_H}}, {{FACT_STRIDE_W}}, {{FACT_PAD_H}}, {{FACT_PAD_W}},
                                    {{FACT_DILATION_H}}, {{FACT_DILATION_W}} };

Conv WithFacts(Conv c) {
  int64_t* const values[6] = {&c.stride_h, &c.stride_w, &c.pad_h, &c.pad_w, &c.dilation_h, &c.dilation_w};
  for (int i = 0; i < 6; ++i)
    if (kConvFacts[i] >= 0) *values[i] = kConvFacts[i];
  return c;
}

std::string ConvName(const Conv& c) {
  return Format("conv batch=%lld in=%lldx%lldx%lld out_c=%lld filter=%lldx%lld stride=%lldx%lld pad=%lldx%lld "
                "dilation=%lldx%lld",
                static_cast<long long>(c.batch), static_cast<long long>(c.in_h), static_cast<long long>(c.in_w),
                static_cast<long long>(c.in_c), static_cast<long long>(c.out_c), static_cast<long long>(c.kernel_h),
                static_cast<long long>(c.kernel_w), static_cast<long long>(c.stride_h),
                static_cast<long long>(c.stride_w), static_cast<long long>(c.pad_h), static_cast<long long>(c.pad_w),
                static_cast<long long>(c.dilation_h), static_cast<long long>(c.dilation_w));
}

int64_t OutExtent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  return (in + 2 * pad - dilation * (kernel - 1) - 1) / stride + 1;
}

// The filter's element for output channel o, tap (r, s) and input channel c, in the package's filter layout.
size_t FilterIndex(const Conv& c, int64_t o, int64_t r, int64_t s, int64_t ch) {
  const int64_t krsc = ((o * c.kernel_h + r) * c.kernel_w + s) * c.in_c + ch;
  const int64_t rsck = ((r * c.kernel_w + s) * c.in_c + ch) * c.out_c + o;
  return static_cast<size_t>({{FILTER_KRSC}} ? krsc : rsck);
}

// Runs one convolution at alpha = 1, beta = 0 over an output of NaN, at alpha = -0.5, beta = 2 over an output of
// data, and with an epilogue (see below), and compares each with a direct convolution in double, within a tolerance
// of the sum of magnitudes; the float after the output must stay a sentinel.
void CheckConv(Tally& tally, const Conv& given, int threads, uint64_t seed) {
  const Conv c = WithFacts(given);
  const int64_t out_h = OutExtent(c.in_h, c.kernel_h, c.stride_h, c.pad_h, c.dilation_h);
  const int64_t out_w = OutExtent(c.in_w, c.kernel_w, c.stride_w, c.pad_w, c.dilation_w);
  const std::string name = Format("%s, %d threads", ConvName(c).c_str(), threads);
  int64_t got_h = -1, got_w = -1;
  const Status sized = {{PACKAGE}}_conv2d_output_size(&c, &got_h, &got_w);
  tally.Expect(sized == kOk && got_h == out_h && got_w == out_w,
               Format("%s: output_size returned %s, %lldx%lld, want %lldx%lld", name.c_str(), StatusName(sized),
                      static_cast<long long>(got_h), static_cast<long long>(got_w), static_cast<long long>(out_h),
                      static_cast<long long>(out_w)));
  Lcg random(seed);
  std::vector<float> input(static_cast<size_t>(c.batch * c.in_h * c.in_w * c.in_c));
  std::vector<float> filter(static_cast<size_t>(c.out_c * c.kernel_h * c.kernel_w * c.in_c));
  for (float& x : input) x = random.Next();
  for (float& x : filter) x = random.Next();
  const size_t outputs = static_cast<size_t>(c.batch * out_h * out_w * c.out_c);
  std::vector<double> want(outputs, 0.0), magnitude(outputs, 0.0);
  for (int64_t n = 0; n < c.batch; ++n)
    for (int64_t oh = 0; oh < out_h; ++oh)
      for (int64_t ow = 0; ow < out_w; ++ow)
        for (int64_t o = 0; o < c.out_c; ++o) {
          double sum = 0.0, abs_sum = 0.0;
          for (int64_t r = 0; r < c.kernel_h; ++r)
            for (int64_t s = 0; s < c.kernel_w; ++s) {
              const int64_t ih = oh * c.stride_h - c.pad_h + r * c.dilation_h;
              const int64_t iw = ow * c.stride_w - c.pad_w + s * c.dilation_w;
              if (ih < 0 || ih >= c.in_h || iw < 0 || iw >= c.in_w) continue;
              for (int64_t ch = 0; ch < c.in_c; ++ch) {
                const double x = input[static_cast<size_t>(((n * c.in_h + ih) * c.in_w + iw) * c.in_c + ch)];
                const double w = filter[FilterIndex(c, o, r, s, ch)];
                sum += x * w;
                abs_sum += (x < 0 ? -x : x) * (w < 0 ? -w : w);
              }
            }
          const size_t at = static_cast<size_t>(((n * out_h + oh) * out_w + ow) * c.out_c + o);
          want[at] = sum;
          magnitude[at] = abs_sum;
        }
  const double scale = 1e-5 * static_cast<double>(c.kernel_h * c.kernel_w * c.in_c + 1);
  // The third runs a residual block's epilogue: a bias per output channel, a residual image (pixels ldr apart) and
  // ReLU.
  const int64_t pixels = c.batch * out_h * out_w, ldr = c.out_c + 3;
  std::vector<float> bias(static_cast<size_t>(c.out_c) + 1), residual(static_cast<size_t>(pixels * ldr) + 1);
  for (float& x : bias) x = random.Next();
  for (float& x : residual) x = random.Next();
  Epilogue block{};  // the op spec's where it fixes one
  block.bias_kind = {{PACKAGE_UPPER}}_BIAS_PER_COLUMN, block.bias = bias.data();
  block.residual = residual.data(), block.ldr = ldr;
  block.activation = {{PACKAGE_UPPER}}_ACTIVATION_RELU;
  if (kEpilogueFixedByOp) block = FixedEpilogue(bias.data(), nullptr, residual.data(), ldr);
  // The fourth and fifth run on the filter packed once (conv2d_pack_filter into caller memory at an odd offset, or
  // conv2d_pack_filter_alloc), the fifth with the epilogue.
  const float* weights = filter.empty() ? nullptr : filter.data();
  const size_t packed_bytes = {{PACKAGE}}_packed_b_size(c.out_c, c.kernel_h * c.kernel_w * c.in_c);
  std::vector<unsigned char> packed_memory(packed_bytes + 3);
  void* allocated = nullptr;
  const Status packed_status =
      seed % 2 == 0 ? {{PACKAGE}}_conv2d_pack_filter(&c, weights, packed_memory.data() + 3, packed_bytes)
                    : {{PACKAGE}}_conv2d_pack_filter_alloc(&c, weights, &allocated);
  const void* packed_filter = allocated != nullptr ? allocated : packed_memory.data() + 3;
  tally.Expect(packed_status == kOk, Format("%s: conv2d_pack_filter%s returned %s", name.c_str(),
                                            seed % 2 == 0 ? "" : "_alloc", StatusName(packed_status)));
  const struct {
    float alpha, beta;
    const Epilogue* epilogue;
    bool packed;
  } combos[5] = { {1.0f, 0.0f, nullptr, false}, {-0.5f, 2.0f, nullptr, false}, {1.0f, 0.5f, &block, false},
                  {0.75f, 0.0f, nullptr, true}, {1.0f, -1.0f, &block, true} };
  for (const auto& combo : combos) {
    if (combo.packed && packed_status != kOk) continue;
    std::vector<float> output(outputs + 1, kNaN), before(outputs);
    if (combo.beta != 0.0f)
      for (size_t i = 0; i < outputs; ++i) output[i] = before[i] = random.Next();
    output[outputs] = kSentinel;
    const float* in = input.empty() ? nullptr : input.data();
    const Status status =
        combo.packed ? {{PACKAGE}}_conv2d_packed(&c, combo.alpha, in, packed_filter, combo.beta, output.data(),
                                                 combo.epilogue)
        : combo.epilogue == nullptr
            ? {{PACKAGE}}_conv2d(&c, combo.alpha, in, weights, combo.beta, output.data())
            : {{PACKAGE}}_conv2d_epilogue(&c, combo.alpha, in, weights, combo.beta, output.data(), combo.epilogue);
    std::string problem;
    if (status != kOk) problem = Format("returned %s", StatusName(status));
    for (size_t i = 0; problem.empty() && i < outputs; ++i) {
      const double old = combo.beta == 0.0f ? 0.0 : static_cast<double>(combo.beta) * before[i];
      double expected = combo.alpha * want[i] + old;
      double tolerance = scale * (std::fabs(combo.alpha) * magnitude[i] + std::fabs(old)) + 1e-6;
      if (combo.epilogue != nullptr) {
        const int64_t pixel = static_cast<int64_t>(i) / c.out_c, channel = static_cast<int64_t>(i) % c.out_c;
        if (combo.epilogue->bias_kind == {{PACKAGE_UPPER}}_BIAS_PER_COLUMN)
          expected += bias[static_cast<size_t>(channel)];
        if (combo.epilogue->residual != nullptr) expected += residual[static_cast<size_t>(pixel * ldr + channel)];
        expected = EpilogueReference(*combo.epilogue, expected, tolerance, &tolerance);
      }
      const double error = std::fabs(static_cast<double>(output[i]) - expected);
      if (!(error <= tolerance))
        problem = Format("output[%lld] = %.9g, want %.9g", static_cast<long long>(i),
                         static_cast<double>(output[i]), expected);
    }
    if (problem.empty() && BitsOf(output[outputs]) != kSentinelBits) problem = "wrote past the output";
    const std::string epilogue = combo.epilogue != nullptr ? ", " + EpilogueName(*combo.epilogue) : "";
    tally.Expect(problem.empty(), Format("%s, alpha %g beta %g%s%s: %s", name.c_str(),
                                         static_cast<double>(combo.alpha), static_cast<double>(combo.beta),
                                         epilogue.c_str(), combo.packed ? ", packed filter" : "", problem.c_str()));
  }
  {{PACKAGE}}_packed_b_free(allocated);
}

Conv MakeConv(int64_t batch, int64_t in_h, int64_t in_w, int64_t in_c, int64_t out_c, int64_t kernel_h,
              int64_t kernel_w, int64_t stride_h, int64_t stride_w, int64_t pad_h, int64_t pad_w, int64_t dilation_h,
              int64_t dilation_w) {
  Conv c;
  c.batch = batch, c.in_h = in_h, c.in_w = in_w, c.in_c = in_c, c.out_c = out_c;
  c.kernel_h = kernel_h, c.kernel_w = kernel_w, c.stride_h = stride_h, c.stride_w = stride_w;
  c.pad_h = pad_h, c.pad_w = pad_w, c.dilation_h = dilation_h, c.dilation_w = dilation_w;
  return c;
}

void CheckConvolutions(Tally& tally) {
  const Conv cases[] = {
      MakeConv(1, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1),         // the common 3x3
      MakeConv(2, 7, 9, 5, 7, 3, 3, 2, 2, 1, 1, 1, 1),         // stride 2, two images
      MakeConv(1, 6, 6, 4, 5, 2, 2, 3, 3, 0, 0, 1, 1),         // stride longer than the filter
      MakeConv(1, 4, 4, 2, 3, 1, 1, 1, 1, 2, 2, 1, 1),         // 1x1 with padding wider than the filter
      MakeConv(1, 3, 5, 2, 3, 3, 3, 1, 1, 4, 3, 1, 1),         // padding wider than the filter and the input
      MakeConv(1, 9, 9, 3, 5, 3, 3, 1, 1, 2, 2, 2, 2),         // dilation
      MakeConv(1, 1, 7, 3, 5, 1, 3, 1, 1, 0, 1, 1, 1),         // H of 1: one output row
      MakeConv(1, 8, 1, 3, 5, 3, 1, 1, 1, 1, 0, 1, 1),         // W of 1: one output column
      MakeConv(3, 5, 5, 1, 9, 3, 3, 1, 1, 1, 1, 1, 1),         // one input channel, odd output channels
      MakeConv(1, 3, 3, 4, 5, 3, 3, 1, 1, 0, 0, 1, 1),         // a 1x1 output
      MakeConv(0, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1),         // batch 0
      MakeConv(2, 4, 4, 3, 0, 3, 3, 1, 1, 1, 1, 1, 1),         // no output channels
      MakeConv(1, 4, 4, 0, 3, 3, 3, 1, 1, 1, 1, 1, 1),         // no input channels: output = beta * output
      MakeConv(2, 7, 7, 37, 29, 1, 1, 1, 1, 0, 0, 1, 1),       // 1x1, stride 1: the GEMM with no gather
      MakeConv(1, 9, 9, 16, 33, 1, 1, 2, 2, 0, 0, 1, 1),       // 1x1, stride 2: gathered
      MakeConv(1, 32, 32, 3, 64, 7, 7, 2, 2, 3, 3, 1, 1),      // a network's first layer: runs of 3 channels
      MakeConv(1, 11, 13, 19, 17, 3, 5, 1, 2, 1, 2, 2, 1),     // every extent different
      MakeConv(2, 14, 14, 64, 67, 3, 3, 1, 1, 1, 1, 1, 1),     // several k blocks and thread shares
      MakeConv(1, 30, 30, 37, 130, 5, 5, 2, 2, 2, 2, 1, 1),    // K = 925 over several k blocks
  };
  const int32_t threads_before = {{PACKAGE}}_get_num_threads();
  const int thread_counts[2] = {1, threads_before > 1 ? static_cast<int>(threads_before) : 2};
  uint64_t seed = 9000;
  for (const int threads : thread_counts) {
    if (g_quick && threads == 1) continue;  // --quick (under an emulator): the threaded run alone
    if (!SetThreads(tally, threads)) continue;
    for (const Conv& c : cases) {
      ++seed;
      // --quick: no convolution of more multiply-adds than its GEMM shapes get (kQuickMaxWork).
      const Conv f = WithFacts(c);
      const double work = static_cast<double>(f.batch * f.out_c * f.kernel_h * f.kernel_w * f.in_c) *
                          static_cast<double>(OutExtent(f.in_h, f.kernel_h, f.stride_h, f.pad_h, f.dilation_h) *
                                              OutExtent(f.in_w, f.kernel_w, f.stride_w, f.pad_w, f.dilation_w));
      if (g_quick && work > kQuickMaxWork) continue;
      CheckConv(tally, c, threads, seed);
    }
  }
  {{PACKAGE}}_set_num_threads(threads_before);
}

void CheckConvArguments(Tally& tally) {
  const Conv good = WithFacts(MakeConv(1, 5, 5, 3, 4, 3, 3, 1, 1, 1, 1, 1, 1));
  float input[75] = {}, filter[108] = {}, output[100] = {};
  const auto expect = [&](const Conv& c, Status want, const char* what) {
    const Status got = {{PACKAGE}}_conv2d(&c, 1.0f, input, filter, 0.0f, output);
    tally.Expect(got == want, Format("conv2d with %s returned %s, want %s", what, StatusName(got), StatusName(want)));
  };
  tally.Expect({{PACKAGE}}_conv2d(nullptr, 1.0f, input, filter, 0.0f, output) == kInvalidArgument,
               "conv2d with a null description did not return INVALID_ARGUMENT");
  int64_t h = 0, w = 0;
  tally.Expect({{PACKAGE}}_conv2d_output_size(&good, nullptr, &w) == kInvalidArgument &&
                   {{PACKAGE}}_conv2d_output_size(&good, &h, nullptr) == kInvalidArgument,
               "conv2d_output_size with a null extent did not return INVALID_ARGUMENT");
  Conv c = good;
  c.stride_w = 0;
  expect(c, kInvalidArgument, "stride_w 0");
  c = good;
  c.dilation_h = 0;
  expect(c, kInvalidArgument, "dilation_h 0");
  c = good;
  c.pad_w = -1;
  expect(c, kInvalidArgument, "pad_w -1");
  c = good;
  c.batch = -1;
  expect(c, kInvalidSize, "batch -1");
  c = good;
  c.in_c = -3;
  expect(c, kInvalidSize, "in_c -3");
  c = good;
  c.kernel_h = 0;
  expect(c, kInvalidSize, "kernel_h 0");
  c = good;  // a 7x7 filter over a 5x5 input padded by 0 leaves no output pixel
  c.kernel_h = c.kernel_w = 7;
  c.pad_h = c.pad_w = 0;
  if (WithFacts(c).pad_h == 0) expect(c, kInvalidSize, "a filter larger than the padded input");
  c = good;
  c.in_h = int64_t{1} << 62;
  c.pad_h = int64_t{1} << 62;
  if (WithFacts(c).pad_h == c.pad_h) expect(c, kSizeOverflow, "a padded height past 2^63");
  c = good;
  c.batch = int64_t{1} << 40;
  c.in_c = int64_t{1} << 30;
  expect(c, kSizeOverflow, "an input of 2^70 elements");
  c = good;
  c.dilation_w = int64_t{1} << 62;
  c.kernel_w = 5;
  if (WithFacts(c).dilation_w == c.dilation_w) expect(c, kSizeOverflow, "a dilated filter past 2^63");
  tally.Expect({{PACKAGE}}_conv2d(&good, 1.0f, input, filter, 0.0f, nullptr) == kNullPointer,
               "conv2d with a null output did not return NULL_POINTER");
  tally.Expect({{PACKAGE}}_conv2d(&good, 1.0f, nullptr, filter, 0.0f, output) == kNullPointer,
               "conv2d with a null input did not return NULL_POINTER");
  tally.Expect({{PACKAGE}}_conv2d(&good, 1.0f, input, nullptr, 0.0f, output) == kNullPointer,
               "conv2d with a null filter did not return NULL_POINTER");
  // A packed filter serves descriptions of its extent and channels only, and only this package's.
  void* packed = nullptr;
  const Status packed_status = {{PACKAGE}}_conv2d_pack_filter_alloc(&good, filter, &packed);
  tally.Expect(packed_status == kOk, Format("conv2d_pack_filter_alloc returned %s", StatusName(packed_status)));
  if (packed_status == kOk) {
    Conv other = good;  // the same K = kernel_h * kernel_w * in_c, another filter extent
    other.kernel_h = 1, other.kernel_w = 1, other.in_c = 27, other.pad_h = other.pad_w = 0;
    Conv wider = good;  // another out_c
    wider.out_c += 1;
    for (const Conv& bad : {WithFacts(other), wider}) {
      const Status got = {{PACKAGE}}_conv2d_packed(&bad, 1.0f, input, packed, 0.0f, output, nullptr);
      tally.Expect(got == kPackedBMismatch,
                   Format("conv2d_packed with a filter packed for another description returned %s", StatusName(got)));
    }
    const Status plain_gemm = {{PACKAGE}}_gemm_packed_b({{PACKAGE_UPPER}}_NO_TRANS, 4, good.out_c, 27, 1.0f, input, 27,
                                                        packed, 0.0f, output, good.out_c, nullptr);
    tally.Expect(plain_gemm == kPackedBMismatch,
                 Format("gemm_packed_b with a packed filter returned %s", StatusName(plain_gemm)));
    tally.Expect({{PACKAGE}}_conv2d_packed(&good, 1.0f, input, nullptr, 0.0f, output, nullptr) == kNullPointer,
                 "conv2d_packed with a null packed filter did not return NULL_POINTER");
  }
  {{PACKAGE}}_packed_b_free(packed);
  tally.Expect({{PACKAGE}}_conv2d_pack_filter(&good, filter, output, 1) == kWorkspaceTooSmall,
               "conv2d_pack_filter into one byte did not return WORKSPACE_TOO_SMALL");
  c = good;
  c.kernel_h = 0;
  tally.Expect({{PACKAGE}}_conv2d_pack_filter_alloc(&c, filter, &packed) == kInvalidSize && packed == nullptr,
               "conv2d_pack_filter_alloc with kernel_h 0 did not return INVALID_SIZE and a null pointer");
  {{PACKAGE}}_plan_t plan;
  tally.Expect({{PACKAGE}}_conv2d_plan(&good, &plan) == kOk && plan.threads >= 1,
               "conv2d_plan of a 3x3 convolution failed");
  tally.Expect({{PACKAGE}}_conv2d_plan(&good, nullptr) == kInvalidArgument,
               "conv2d_plan with a null plan did not return INVALID_ARGUMENT");
  for (int i = 0; i < 6; ++i) {  // a value the op spec fixes, given otherwise
    if (kConvFacts[i] < 0) continue;
    c = good;
    int64_t* const values[6] = {&c.stride_h, &c.stride_w, &c.pad_h, &c.pad_w, &c.dilation_h, &c.dilation_w};
    *values[i] = kConvFacts[i] + 1;
    expect(c, kInvalidArgument, "a value other than the op spec's fact");
  }
}

}  // namespace

#endif  // {{PACKAGE_UPPER}}_SELFTEST_CONV_H_
