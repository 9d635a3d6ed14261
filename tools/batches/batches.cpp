// Times a generated CPU package's strided batches on attention's products against its own calls one product at a
// time, a loop of OpenBLAS cblas_sgemm calls and oneDNN's matmul with a batch dimension, interleaved: each round
// runs every contender once, and the medians of the rounds are printed as CSV with the package's batched time against
// each (> 1: the package faster). Every contender's C is checked against the package's.
//   qk: S = Q K^T per head: M = N = seq, K = 64, B stored N x K (transposed)
//   pv: O = P V per head:   M = seq, N = 64, K = seq
// Usage: batches THREADS
#include <cblas.h>
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <dnnl.hpp>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.h"
#include PKG_HEADER


namespace {

constexpr int kRounds = 7;
constexpr double kRoundFlops = 4e8;  // each contender's calls per round do about this much work
constexpr int64_t kHeadDim = 64;

struct Batch {
  const char* product;
  int64_t count, m, n, k;
  bool b_transposed;
  int64_t lda() const { return k; }
  int64_t ldb() const { return b_transposed ? k : n; }
  int64_t ldc() const { return n; }
  int64_t stride_a() const { return m * k; }
  int64_t stride_b() const { return k * n; }
  int64_t stride_c() const { return m * n; }
};


// oneDNN's matmul over the batch: src count x M x K, weights count x K x N (strides for a transposed B), dst
// count x M x N, made once, outside the timing.
struct OneDnnBatch {
  dnnl::engine engine{dnnl::engine::kind::cpu, 0};
  dnnl::stream stream{engine};
  dnnl::matmul matmul;
  dnnl::memory a, b, c;
  OneDnnBatch(const Batch& t, float* a_data, float* b_data, float* c_data) {
    using dims = dnnl::memory::dims;
    const auto f32 = dnnl::memory::data_type::f32;
    const dnnl::memory::desc a_md(dims{t.count, t.m, t.k}, f32, dims{t.stride_a(), t.lda(), 1});
    const dnnl::memory::desc b_md(dims{t.count, t.k, t.n}, f32,
                                  t.b_transposed ? dims{t.stride_b(), 1, t.ldb()} : dims{t.stride_b(), t.ldb(), 1});
    const dnnl::memory::desc c_md(dims{t.count, t.m, t.n}, f32, dims{t.stride_c(), t.ldc(), 1});
    const dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(a_md, b_md, c_md), engine);
    matmul = dnnl::matmul(pd);
    a = dnnl::memory(a_md, engine, a_data);
    b = dnnl::memory(b_md, engine, b_data);
    c = dnnl::memory(c_md, engine, c_data);
  }
  void run() {
    matmul.execute(stream, {{DNNL_ARG_SRC, a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, c}});
    stream.wait();
  }
};


}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: batches THREADS\n");
    return 2;
  }
  const int threads = std::atoi(argv[1]);
  if (threads < 1 || API(set_num_threads)(threads) != 0) return 2;
  openblas_set_num_threads(threads);
  omp_set_num_threads(threads);
  std::printf("product,batch,M,N,K,threads,batched_s,one_by_one_s,openblas_loop_s,onednn_s,"
              "over_one_by_one,over_openblas,over_onednn\n");
  for (int64_t count : {12, 96, 384})
    for (int64_t seq : {16, 64, 128, 256, 512})
      for (const Batch& t : {Batch{"qk", count, seq, seq, kHeadDim, true}, Batch{"pv", count, seq, kHeadDim, seq, false}}) {
        std::vector<float> a(static_cast<size_t>(t.count * t.stride_a())), b(static_cast<size_t>(t.count * t.stride_b()));
        for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16.0f;
        for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 16.0f;
        std::vector<float> want(static_cast<size_t>(t.count * t.stride_c()));
        std::vector<float> c[4] = {want, want, want, want};
        const auto trans_b = static_cast<API(transpose)>(t.b_transposed ? 1 : 0);
        OneDnnBatch onednn(t, a.data(), b.data(), c[3].data());
        const std::function<int()> contenders[4] = {
            [&] {
              return static_cast<int>(API(gemm_batched)(static_cast<API(transpose)>(0), trans_b, t.m, t.n, t.k, 1.0f,
                                                        a.data(), t.lda(), t.stride_a(), b.data(), t.ldb(),
                                                        t.stride_b(), 0.0f, c[0].data(), t.ldc(), t.stride_c(),
                                                        t.count));
            },
            [&] {
              for (int64_t i = 0; i < t.count; ++i)
                if (API(gemm)(static_cast<API(transpose)>(0), trans_b, t.m, t.n, t.k, 1.0f, a.data() + i * t.stride_a(),
                              t.lda(), b.data() + i * t.stride_b(), t.ldb(), 0.0f, c[1].data() + i * t.stride_c(),
                              t.ldc()) != 0)
                  return 1;
              return 0;
            },
            [&] {
              for (int64_t i = 0; i < t.count; ++i)
                cblas_sgemm(CblasRowMajor, CblasNoTrans, t.b_transposed ? CblasTrans : CblasNoTrans,
                            static_cast<int>(t.m), static_cast<int>(t.n), static_cast<int>(t.k), 1.0f,
                            a.data() + i * t.stride_a(), static_cast<int>(t.lda()), b.data() + i * t.stride_b(),
                            static_cast<int>(t.ldb()), 0.0f, c[2].data() + i * t.stride_c(), static_cast<int>(t.ldc()));
              return 0;
            },
            [&] {
              onednn.run();
              return 0;
            },
        };
        const double work = 2.0 * static_cast<double>(t.count * t.m * t.n * t.k);
        const int calls = static_cast<int>(std::max(1.0, std::min(1000.0, kRoundFlops / work)));
        std::vector<double> seconds[4];
        for (int round = 0; round <= kRounds; ++round)
          for (int who = 0; who < 4; ++who) {
            const auto start = std::chrono::steady_clock::now();
            for (int call = 0; call < calls; ++call)
              if (contenders[who]() != 0) return 1;
            const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
            if (round > 0) seconds[who].push_back(elapsed / calls);  // round 0 warms up
          }
        for (int who = 1; who < 4; ++who)
          if (!(bench::relative_error(c[who], c[0]) < 1e-4)) {
            std::fprintf(stderr, "%s batch %lld seq: contender %d differs from the package's batched result\n",
                         t.product, static_cast<long long>(t.count), who);
            return 1;
          }
        double med[4];
        for (int who = 0; who < 4; ++who) med[who] = bench::median(seconds[who]);
        std::printf("%s,%lld,%lld,%lld,%lld,%d,%.4e,%.4e,%.4e,%.4e,%.3f,%.3f,%.3f\n", t.product,
                    static_cast<long long>(t.count), static_cast<long long>(t.m), static_cast<long long>(t.n),
                    static_cast<long long>(t.k), threads, med[0], med[1], med[2], med[3], med[1] / med[0],
                    med[2] / med[0], med[3] / med[0]);
        std::fflush(stdout);
      }
  return 0;
}
