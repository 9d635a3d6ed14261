// Times a generated CPU package's GEMM on a B packed once (pack_b, then gemm_packed_b) against its plain GEMM on the
// same B as stored (gemm), for each distinct weight matrix (N x K) of a shape suite, stored K x N (NN) and N x K (NT,
// a linear layer's [out_features, in_features] weights), at M = 1, 2, 4, 8, 16 and 32: the rows of inference's
// calls, where each call reads all of B for few rows of A. B is packed for M up to 32. Interleaved: each round runs
// both contenders once, and the medians of the rounds are printed as CSV with the packed call's speed against the
// plain one (> 1: packed faster), and the one-time packing's time. Each packed result is checked against the plain.
// Usage: packed_b SUITE_CSV THREADS   (SUITE_CSV: header category,M,N,K)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <set>
#include <utility>

#include "bench_common.h"
#include PKG_HEADER

namespace {

constexpr int kRounds = 9;
constexpr double kRoundFlops = 1e8;  // each contender's calls per round do about this much work
constexpr int64_t kMaxM = 32;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: packed_b SUITE_CSV THREADS\n");
    return 2;
  }
  const std::vector<bench::GemmShape> shapes = bench::read_gemm_suite(argv[1]);
  const int threads = std::atoi(argv[2]);
  if (shapes.empty() || threads < 1 || API(set_num_threads)(threads) != 0) return 2;
  std::set<std::pair<int64_t, int64_t>> seen;
  std::printf("N,K,layout,M,threads,packed_s,plain_s,packed_over_plain,pack_once_s,kernel,packed_plan_threads\n");
  const auto no = static_cast<API(transpose)>(0), yes = static_cast<API(transpose)>(1);
  for (const bench::GemmShape& s : shapes) {
    if (!seen.insert({s.n, s.k}).second) continue;
    std::vector<float> a(static_cast<size_t>(kMaxM * s.k)), b(static_cast<size_t>(s.n * s.k));
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>(static_cast<int>(i * 7 % 13) - 6) / 16.0f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>(static_cast<int>(i * 5 % 11) - 5) / 16.0f;
    for (const bool transposed : {false, true}) {
      const API(transpose) trans_b = transposed ? yes : no;
      const int64_t ldb = transposed ? s.k : s.n;
      void* packed = nullptr;
      const auto pack_start = std::chrono::steady_clock::now();
      if (API(pack_b_alloc)(trans_b, s.n, s.k, kMaxM, b.data(), ldb, &packed) != 0) return 1;
      const double pack_s = seconds_since(pack_start);
      for (int64_t m = 1; m <= kMaxM; m *= 2) {
        std::vector<float> c_packed(static_cast<size_t>(m * s.n)), c_plain(c_packed.size());
        API(plan_t) plan{};
        if (API(gemm_packed_b_plan)(no, m, s.n, s.k, packed, &plan) != 0) return 1;
        const std::function<int()> contenders[2] = {
            [&] {
              return static_cast<int>(API(gemm_packed_b)(no, m, s.n, s.k, 1.0f, a.data(), s.k, packed, 0.0f,
                                                         c_packed.data(), s.n, nullptr));
            },
            [&] {
              return static_cast<int>(API(gemm)(no, trans_b, m, s.n, s.k, 1.0f, a.data(), s.k, b.data(), ldb, 0.0f,
                                                c_plain.data(), s.n));
            },
        };
        const double work = 2.0 * static_cast<double>(m * s.n * s.k);
        const int calls = static_cast<int>(std::max(1.0, std::min(2000.0, kRoundFlops / work)));
        std::vector<double> seconds[2];
        for (int round = 0; round <= kRounds; ++round)
          for (int who = 0; who < 2; ++who) {
            const auto start = std::chrono::steady_clock::now();
            for (int call = 0; call < calls; ++call)
              if (contenders[who]() != 0) return 1;
            if (round > 0) seconds[who].push_back(seconds_since(start) / calls);  // round 0 warms up
          }
        if (!(bench::relative_error(c_packed, c_plain) < 1e-5)) {
          std::fprintf(stderr, "%lldx%lldx%lld: the packed call differs from the plain one\n",
                       static_cast<long long>(m), static_cast<long long>(s.n), static_cast<long long>(s.k));
          return 1;
        }
        const double packed_s = bench::median(seconds[0]), plain_s = bench::median(seconds[1]);
        std::printf("%lld,%lld,%s,%lld,%d,%.4e,%.4e,%.3f,%.4e,%dx%d,%d\n", static_cast<long long>(s.n),
                    static_cast<long long>(s.k), transposed ? "NT" : "NN", static_cast<long long>(m), threads,
                    packed_s, plain_s, plain_s / packed_s, pack_s, plan.mr, plan.nr, plan.threads);
        std::fflush(stdout);
      }
      API(packed_b_free)(packed);
    }
  }
  return 0;
}
