// Times a generated CPU package's fused epilogue, y = GELU(x W^T + b) (bias per column, GELU in its tanh form), on a
// shape suite against (1) the package's plain GEMM followed by a separate pass over C (the package's own vectorised
// epilogue, run as a call with K = 0 and beta = 1 on a share of C's rows per thread) and (2) oneDNN's matmul with the
// same bias and post-op; the plain GEMM alone is timed beside them, for the epilogue's share. Interleaved: each round
// runs every contender once, and the medians of the rounds are printed as CSV with the fused call's speed against
// each (> 1: fused faster). Every contender's C is checked against the fused one's.
// Usage: epilogues SUITE_CSV THREADS   (SUITE_CSV: header category,M,N,K)
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "bench_common.h"
#include PKG_HEADER


namespace {

constexpr int kRounds = 7;
constexpr double kRoundFlops = 4e8;  // each contender's calls per round do about this much work

// oneDNN's matmul: src M x K, weights K x N read from W stored N x K, a bias of 1 x N and GELU (tanh) as a post-op.
struct OneDnnLinear {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul matmul;
  dnnl::memory a, w, bias, c;
  OneDnnLinear(const bench::GemmShape& s, float* a_data, float* w_data, float* bias_data, float* c_data) {
    using dims = dnnl::memory::dims;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc a_md(dims{s.m, s.k}, f32, dims{s.k, 1});
    const dnnl::memory::desc w_md(dims{s.k, s.n}, f32, dims{1, s.k});
    const dnnl::memory::desc bias_md(dims{1, s.n}, f32, dims{s.n, 1});
    const dnnl::memory::desc c_md(dims{s.m, s.n}, f32, dims{s.n, 1});
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_tanh, 0.0f, 0.0f);
    dnnl::primitive_attr attr;
    attr.set_post_ops(ops);
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, w_md, bias_md, c_md), attr, engine);
    matmul = dnnl::matmul(pd);
    a = dnnl::memory(a_md, engine, a_data);
    w = dnnl::memory(w_md, engine, w_data);
    bias = dnnl::memory(bias_md, engine, bias_data);
    c = dnnl::memory(c_md, engine, c_data);
  }
  void run() {
    matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, w}, {DNNL_ARG_BIAS, bias}, {DNNL_ARG_DST, c}});
    stream.wait();
  }
};


}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: epilogues SUITE_CSV THREADS\n");
    return 2;
  }
  const std::vector<bench::GemmShape> shapes = bench::read_gemm_suite(argv[1]);
  const int threads = std::atoi(argv[2]);
  if (shapes.empty() || threads < 1 || API(set_num_threads)(threads) != 0) return 2;
  omp_set_num_threads(threads);
  std::printf("category,M,N,K,threads,fused_s,separate_s,onednn_s,plain_gemm_s,over_separate,over_onednn,"
              "plain_over_fused\n");
  const auto no = static_cast<API(transpose)>(0), yes = static_cast<API(transpose)>(1);
  for (const bench::GemmShape& s : shapes) {
    std::vector<float> a(static_cast<size_t>(s.m * s.k)), w(static_cast<size_t>(s.n * s.k)),
        bias(static_cast<size_t>(s.n));
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16.0f;
    for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 16.0f;
    for (size_t i = 0; i < bias.size(); ++i) bias[i] = static_cast<float>(static_cast<int>(i % 9) - 4) / 8.0f;
    std::vector<float> c[4];
    for (auto& x : c) x.assign(static_cast<size_t>(s.m * s.n), 0.0f);
    API(epilogue_t) epilogue{};
    epilogue.bias_kind = static_cast<API(bias)>(1);         // per column
    epilogue.bias = bias.data();
    epilogue.activation = static_cast<API(activation)>(2);  // GELU, tanh form
    OneDnnLinear onednn(s, a.data(), w.data(), bias.data(), c[2].data());
    constexpr int kContenders = 4;  // the last, the plain GEMM, computes no epilogue and is not checked
    const std::function<int()> contenders[kContenders] = {
        [&] {
          return static_cast<int>(API(gemm_epilogue)(no, yes, s.m, s.n, s.k, 1.0f, a.data(), s.k, w.data(), s.k, 0.0f,
                                                     c[0].data(), s.n, &epilogue));
        },
        [&] {
          if (API(gemm)(no, yes, s.m, s.n, s.k, 1.0f, a.data(), s.k, w.data(), s.k, 0.0f, c[1].data(), s.n) != 0)
            return 1;
          int failed = 0;
          const int64_t shares = std::min<int64_t>(threads, s.m);
#pragma omp parallel for num_threads(static_cast<int>(shares)) reduction(+ : failed)
          for (int64_t t = 0; t < shares; ++t) {
            const int64_t begin = s.m * t / shares, end = s.m * (t + 1) / shares;
            failed += API(gemm_epilogue)(no, no, end - begin, s.n, 0, 1.0f, a.data(), 1, w.data(), s.n, 1.0f,
                                         c[1].data() + begin * s.n, s.n, &epilogue) != 0;
          }
          return failed;
        },
        [&] {
          onednn.run();
          return 0;
        },
        [&] {
          return static_cast<int>(
              API(gemm)(no, yes, s.m, s.n, s.k, 1.0f, a.data(), s.k, w.data(), s.k, 0.0f, c[3].data(), s.n));
        },
    };
    const double work = 2.0 * static_cast<double>(s.m * s.n * s.k);
    const int calls = static_cast<int>(std::max(1.0, std::min(1000.0, kRoundFlops / work)));
    std::vector<double> seconds[kContenders];
    for (int round = 0; round <= kRounds; ++round)
      for (int who = 0; who < kContenders; ++who) {
        const auto start = std::chrono::steady_clock::now();
        for (int call = 0; call < calls; ++call)
          if (contenders[who]() != 0) return 1;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (round > 0) seconds[who].push_back(elapsed / calls);  // round 0 warms up
      }
    for (int who = 1; who < 3; ++who)
      if (!(bench::relative_error(c[who], c[0]) < 1e-4)) {
        std::fprintf(stderr, "%lldx%lldx%lld: contender %d differs from the fused result\n",
                     static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), who);
        return 1;
      }
    double med[kContenders];
    for (int who = 0; who < kContenders; ++who) med[who] = bench::median(seconds[who]);
    std::printf("%s,%lld,%lld,%lld,%d,%.4e,%.4e,%.4e,%.4e,%.3f,%.3f,%.3f\n", s.category.c_str(),
                static_cast<long long>(s.m), static_cast<long long>(s.n), static_cast<long long>(s.k), threads, med[0],
                med[1], med[2], med[3], med[1] / med[0], med[2] / med[0], med[3] / med[0]);
    std::fflush(stdout);
  }
  return 0;
}
