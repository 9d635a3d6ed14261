// Interleaved A/B timing of two generated packages in one process (see tools/ab.sh): for each shape, the two
// packages' calls alternate, so that both see the same machine state, and their times are compared. The results of
// the two are checked against each other (both are checked against a reference by their own self-tests).
//
// Build with -DAB_A=<package A's name> -DAB_B=<package B's name> and both packages' include directories.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#define AB_STR2(x) #x
#define AB_STR(x) AB_STR2(x)
#define AB_CAT2(a, b) a##b
#define AB_CAT(a, b) AB_CAT2(a, b)  // AB_CAT(AB_A, _suffix): package A's function _suffix
#include AB_STR(AB_A.h)
#include AB_STR(AB_B.h)

namespace {

using Clock = std::chrono::steady_clock;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int Usage() {
  std::fprintf(stderr, "usage: ab [--threads T] [--rounds R] M,N,K ...\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 1, rounds = 15;
  std::vector<std::vector<long>> shapes;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if ((arg == "--threads" || arg == "--rounds") && i + 1 < argc) {
      (arg == "--threads" ? threads : rounds) = std::atoi(argv[++i]);
    } else {
      long m = 0, n = 0, k = 0;
      if (std::sscanf(arg.c_str(), "%ld,%ld,%ld", &m, &n, &k) != 3 || m < 0 || n < 0 || k < 0) return Usage();
      shapes.push_back({m, n, k});
    }
  }
  if (shapes.empty() || threads < 1 || rounds < 1) return Usage();
  AB_CAT(AB_A, _set_num_threads)(threads);
  AB_CAT(AB_B, _set_num_threads)(threads);
  std::printf("M,N,K,threads,a_median_s,b_median_s,b_speedup,b_speedup_paired,b_speedup_fastest\n");
  int status = 0;
  for (const auto& s : shapes) {
    const long M = s[0], N = s[1], K = s[2];
    std::vector<float> a(static_cast<size_t>(std::max(1L, M * K))), b(static_cast<size_t>(std::max(1L, K * N)));
    std::vector<float> c_a(static_cast<size_t>(std::max(1L, M * N))), c_b(c_a.size());
    for (size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7919) % 97) / 97.0f - 0.5f;
    for (size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 104729) % 89) / 89.0f - 0.5f;
    // Enough calls per sample for about a millisecond, so that the clock's resolution does not matter.
    const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) * static_cast<double>(K);
    const int calls = static_cast<int>(std::clamp(1e6 / std::max(flops / 50.0, 1.0), 1.0, 10000.0));
    std::vector<double> t_a, t_b;
    for (int r = 0; r <= rounds; ++r) {  // round 0 warms up
      for (int turn = 0; turn < 2; ++turn) {
        const int which = (turn + r) % 2;  // alternate who goes first, so that neither always follows the other
        const auto start = Clock::now();
        for (int c = 0; c < calls; ++c) {
          const int st = which == 0
                             ? static_cast<int>(AB_A(M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c_a.data(), N))
                             : static_cast<int>(AB_B(M, N, K, 1.0f, a.data(), K, b.data(), N, 0.0f, c_b.data(), N));
          if (st != 0) {
            std::fprintf(stderr, "ab: package %c returned status %d on %ldx%ldx%ld\n", which == 0 ? 'A' : 'B', st, M,
                         N, K);
            return 1;
          }
        }
        const double seconds = std::chrono::duration<double>(Clock::now() - start).count() / calls;
        if (r > 0) (which == 0 ? t_a : t_b).push_back(seconds);
      }
    }
    for (size_t i = 0; i < c_a.size() && M * N > 0; ++i)
      if (std::fabs(c_a[i] - c_b[i]) > 1e-4f * (1.0f + std::fabs(c_a[i]))) {
        std::fprintf(stderr, "ab: %ldx%ldx%ld: A and B differ at element %zu (%g, %g)\n", M, N, K, i, c_a[i], c_b[i]);
        status = 1;
        break;
      }
    // Besides the ratio of the medians: the median of each round's ratio, which cancels a drift slower than a round,
    // and the ratio of the fastest samples, what each side does when the machine leaves it alone.
    std::vector<double> ratios;
    for (size_t i = 0; i < t_a.size(); ++i) ratios.push_back(t_a[i] / t_b[i]);
    const double ma = median(t_a), mb = median(t_b);
    const double fastest_a = *std::min_element(t_a.begin(), t_a.end());
    const double fastest_b = *std::min_element(t_b.begin(), t_b.end());
    std::printf("%ld,%ld,%ld,%d,%.6e,%.6e,%.3f,%.3f,%.3f\n", M, N, K, threads, ma, mb, ma / mb, median(ratios),
                fastest_a / fastest_b);
  }
  return status;
}
