// Times a generated convolution package's conv2d, which packs the filter on each call, and its conv2d_packed, on a
// filter packed once (conv2d_pack_filter, outside the timing), against oneDNN's convolution primitive and XNNPACK's
// convolution operator on a suite of layers (../shared/shapes/conv.csv: columns in its README), NHWC fp32,
// interleaved: each round runs every contender once per shape, and the medians of the rounds are printed as CSV with
// each of the package's times against each peer and against the faster of the two (> 1: the package faster). Each
// peer gets what it is built for: oneDNN chooses its algorithm and its filter layout (the filter is reordered once,
// outside the timing), XNNPACK packs the filter when its operator is created. Every output is checked against
// conv2d's.
// Usage: conv_bench SUITE.csv THREADS
#include <omp.h>
#include <pthreadpool.h>
#include <xnnpack.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <functional>
#include <memory>
#include <thread>

#include "bench_common.h"
#include PKG_HEADER

namespace {

constexpr int kRounds = 7;
constexpr double kRoundFlops = 3e8;  // each contender's calls per round do about this much work
constexpr int kPauseMs = 30;

struct Layer {
  std::string category;
  int64_t batch, in_h, in_w, in_c, out_c, kernel_h, kernel_w, stride_h, stride_w, pad_h, pad_w, dil_h, dil_w, groups;
  int64_t out_h() const { return (in_h + 2 * pad_h - dil_h * (kernel_h - 1) - 1) / stride_h + 1; }
  int64_t out_w() const { return (in_w + 2 * pad_w - dil_w * (kernel_w - 1) - 1) / stride_w + 1; }
  double flops() const {
    return 2.0 * static_cast<double>(batch * out_h() * out_w() * out_c * kernel_h * kernel_w * in_c / groups);
  }
};

std::vector<Layer> read_suite(const std::string& path) {
  std::ifstream in(path);
  std::vector<Layer> layers;
  std::string line;
  std::getline(in, line);  // the header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    std::istringstream row(line);
    Layer l;
    std::getline(row, l.category, ',');
    int64_t* const fields[] = {&l.batch,    &l.in_h,     &l.in_w,  &l.in_c,  &l.out_c,  &l.kernel_h, &l.kernel_w,
                               &l.stride_h, &l.stride_w, &l.pad_h, &l.pad_w, &l.dil_h, &l.dil_w,     &l.groups};
    for (int64_t* field : fields) {
      std::string cell;
      std::getline(row, cell, ',');
      *field = std::stoll(cell);
    }
    layers.push_back(l);
  }
  return layers;
}

// oneDNN's forward-inference convolution: NHWC source and destination, the filter in the layout the primitive
// chooses (reordered once from OHWI, which is KRSC), the algorithm oneDNN's dispatcher picks.
struct OneDnnConv {
  OneDnnConv(const Layer& l, const float* input, const float* filter_krsc, float* output) {
    using dims = dnnl::memory::dims;
    using tag = dnnl::memory::format_tag;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc src_md(dims{l.batch, l.in_c, l.in_h, l.in_w}, f32, tag::nhwc);
    const dnnl::memory::desc dst_md(dims{l.batch, l.out_c, l.out_h(), l.out_w()}, f32, tag::nhwc);
    const dnnl::memory::desc any_weights(dims{l.out_c, l.in_c, l.kernel_h, l.kernel_w}, f32, tag::any);
    const dnnl::memory::desc krsc_weights(dims{l.out_c, l.in_c, l.kernel_h, l.kernel_w}, f32, tag::ohwi);
    // oneDNN counts dilation from 0 (no gap).
    const dnnl::convolution_forward::desc desc(
        dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_auto, src_md, any_weights, dst_md,
        dims{l.stride_h, l.stride_w}, dims{l.dil_h - 1, l.dil_w - 1}, dims{l.pad_h, l.pad_w}, dims{l.pad_h, l.pad_w});
    const dnnl::convolution_forward::primitive_desc pd(desc, engine);
    conv = dnnl::convolution_forward(pd);
    src = dnnl::memory(src_md, engine, const_cast<float*>(input));
    dst = dnnl::memory(dst_md, engine, output);
    weights = dnnl::memory(pd.weights_desc(), engine);
    dnnl::memory given(krsc_weights, engine, const_cast<float*>(filter_krsc));
    dnnl::reorder(given, weights).execute(stream, given, weights);
    stream.wait();
  }
  void run() {
    conv.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights}, {DNNL_ARG_DST, dst}});
    stream.wait();
  }
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::convolution_forward conv;
  dnnl::memory src, weights, dst;
};

// XNNPACK's NHWC convolution operator, its filter (KRSC for one group) packed at creation, run on a pthreadpool of
// the thread count.
struct XnnConv {
  XnnConv(const Layer& l, const float* input, const float* filter_krsc, float* output, pthreadpool_t pool)
      : pool(pool) {
    const auto u32 = [](int64_t v) { return static_cast<uint32_t>(v); };
    const auto size = [](int64_t v) { return static_cast<size_t>(v); };
    ok = xnn_create_convolution2d_nhwc_f32(u32(l.pad_h), u32(l.pad_w), u32(l.pad_h), u32(l.pad_w), u32(l.kernel_h),
                                           u32(l.kernel_w), u32(l.stride_h), u32(l.stride_w), u32(l.dil_h),
                                           u32(l.dil_w), 1, size(l.in_c), size(l.out_c), size(l.in_c),
                                           size(l.out_c), filter_krsc, nullptr, -INFINITY, INFINITY, 0,
                                           &op) == xnn_status_success &&
         xnn_setup_convolution2d_nhwc_f32(op, size(l.batch), size(l.in_h), size(l.in_w), input, output, pool) ==
             xnn_status_success;
  }
  ~XnnConv() {
    if (op != nullptr) xnn_delete_operator(op);
  }
  int run() { return xnn_run_operator(op, pool) == xnn_status_success ? 0 : 1; }
  xnn_operator_t op = nullptr;
  pthreadpool_t pool;
  bool ok = false;
};

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: conv_bench SUITE.csv THREADS\n");
    return 2;
  }
  const std::vector<Layer> layers = read_suite(argv[1]);
  const int threads = std::atoi(argv[2]);
  if (layers.empty() || threads < 1 || API(set_num_threads)(threads) != 0) return 2;
  omp_set_num_threads(threads);
  if (xnn_initialize(nullptr) != xnn_status_success) {
    std::fprintf(stderr, "conv_bench: XNNPACK did not initialise\n");
    return 1;
  }
  // pthreadpool runs one thread's work on the caller: a pool of `threads` uses threads - 1 more.
  std::unique_ptr<pthreadpool, void (*)(pthreadpool_t)> pool(
      threads > 1 ? pthreadpool_create(static_cast<size_t>(threads)) : nullptr, pthreadpool_destroy);
  std::printf("category,batch,in_h,in_w,in_c,out_c,kernel_h,kernel_w,stride,pad,dilation,threads,strata_s,"
              "strata_packed_s,onednn_s,xnnpack_s,gflops_strata_packed,over_onednn,over_xnnpack,over_best,"
              "packed_over_onednn,packed_over_xnnpack,packed_over_best\n");
  for (const Layer& l : layers) {
    if (l.groups != 1) {
      std::fprintf(stderr, "conv_bench: skipped a layer with %lld groups (the package computes one)\n",
                   static_cast<long long>(l.groups));
      continue;
    }
    std::vector<float> input(static_cast<size_t>(l.batch * l.in_h * l.in_w * l.in_c));
    std::vector<float> filter(static_cast<size_t>(l.out_c * l.kernel_h * l.kernel_w * l.in_c));
    for (size_t i = 0; i < input.size(); ++i) input[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16.0f;
    for (size_t i = 0; i < filter.size(); ++i)
      filter[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 16.0f;
    const size_t outputs = static_cast<size_t>(l.batch * l.out_h() * l.out_w() * l.out_c);
    constexpr int kContenders = 4;  // conv2d, conv2d_packed, oneDNN, XNNPACK
    std::vector<float> out[kContenders];
    for (auto& o : out) o.assign(outputs, 0.0f);
    API(conv2d_t) conv{l.batch,    l.in_h,     l.in_w,  l.in_c,  l.out_c, l.kernel_h, l.kernel_w,
                       l.stride_h, l.stride_w, l.pad_h, l.pad_w, l.dil_h, l.dil_w};
    void* packed = nullptr;
    if (API(conv2d_pack_filter_alloc)(&conv, filter.data(), &packed) != 0) {
      std::fprintf(stderr, "conv_bench: conv2d_pack_filter_alloc failed\n");
      return 1;
    }
    const std::unique_ptr<void, void (*)(void*)> packed_owner(packed, API(packed_b_free));
    OneDnnConv onednn(l, input.data(), filter.data(), out[2].data());
    XnnConv xnn(l, input.data(), filter.data(), out[3].data(), pool.get());
    if (!xnn.ok) {
      std::fprintf(stderr, "conv_bench: XNNPACK refused a layer\n");
      return 1;
    }
    const std::function<int()> contenders[kContenders] = {
        [&] { return static_cast<int>(API(conv2d)(&conv, 1.0f, input.data(), filter.data(), 0.0f, out[0].data())); },
        [&] {
          return static_cast<int>(
              API(conv2d_packed)(&conv, 1.0f, input.data(), packed, 0.0f, out[1].data(), nullptr));
        },
        [&] {
          onednn.run();
          return 0;
        },
        [&] { return xnn.run(); },
    };
    const int calls = static_cast<int>(std::max(1.0, std::min(1000.0, kRoundFlops / l.flops())));
    std::vector<double> seconds[kContenders];
    for (int round = 0; round <= kRounds; ++round)
      for (int i = 0; i < kContenders; ++i) {
        const int who = (i + round) % kContenders;  // each round starts at the next contender
        // XNNPACK's pthreadpool workers spin for a while after a run: a contender started then shares its cores
        // with them. Each contender starts after a pause long enough for them to sleep.
        std::this_thread::sleep_for(std::chrono::milliseconds(kPauseMs));
        const auto start = std::chrono::steady_clock::now();
        for (int call = 0; call < calls; ++call)
          if (contenders[who]() != 0) {
            std::fprintf(stderr, "conv_bench: contender %d failed\n", who);
            return 1;
          }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (round > 0) seconds[who].push_back(elapsed / calls);  // round 0 warms up
      }
    for (int who = 1; who < kContenders; ++who)
      if (!(bench::relative_error(out[who], out[0]) < 1e-4)) {
        std::fprintf(stderr, "conv_bench: %s layer %lldx%lldx%lld -> %lld: contender %d differs from conv2d\n",
                     l.category.c_str(), static_cast<long long>(l.in_h), static_cast<long long>(l.in_w),
                     static_cast<long long>(l.in_c), static_cast<long long>(l.out_c), who);
        return 1;
      }
    double med[kContenders];
    for (int who = 0; who < kContenders; ++who) med[who] = bench::median(seconds[who]);
    const double best_peer = std::min(med[2], med[3]);
    std::printf("%s,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%lld,%d,%.4e,%.4e,%.4e,%.4e,%.1f,%.3f,%.3f,%.3f,%.3f,"
                "%.3f,%.3f\n",
                l.category.c_str(), static_cast<long long>(l.batch), static_cast<long long>(l.in_h),
                static_cast<long long>(l.in_w), static_cast<long long>(l.in_c), static_cast<long long>(l.out_c),
                static_cast<long long>(l.kernel_h), static_cast<long long>(l.kernel_w),
                static_cast<long long>(l.stride_h), static_cast<long long>(l.pad_h), static_cast<long long>(l.dil_h),
                threads, med[0], med[1], med[2], med[3], l.flops() / med[1] * 1e-9, med[2] / med[0], med[3] / med[0],
                best_peer / med[0], med[2] / med[1], med[3] / med[1], best_peer / med[1]);
    std::fflush(stdout);
  }
  return 0;
}
