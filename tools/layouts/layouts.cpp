// Times one package's four layouts (NN, NT, TN, TT: A's and B's transposes) per shape, interleaved: each round calls
// every layout once, and the medians of the rounds are printed as CSV with each layout's time over NN's.
// Usage: layouts THREADS SHAPES_FILE   (one M,N,K per line, or category,M,N,K as in ../shared/shapes)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include PKG_HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PKG, CAT(_, name))

namespace {

constexpr int kRounds = 9;
constexpr double kRoundFlops = 2e8;  // each layout's calls per round do about this much work

bool ParseShape(const std::string& line, long long* m, long long* n, long long* k) {
  if (std::sscanf(line.c_str(), "%lld,%lld,%lld", m, n, k) == 3) return true;
  const size_t comma = line.find(',');
  return comma != std::string::npos && std::sscanf(line.c_str() + comma + 1, "%lld,%lld,%lld", m, n, k) == 3;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: layouts THREADS SHAPES_FILE\n");
    return 2;
  }
  if (API(set_num_threads)(std::atoi(argv[1])) != 0) return 2;
  std::ifstream in(argv[2]);
  if (!in) return 2;
  std::printf("M,N,K,threads,nn_s,nt_s,tn_s,tt_s,nt_over_nn,tn_over_nn,tt_over_nn\n");
  std::string line;
  while (std::getline(in, line)) {
    long long m = 0, n = 0, k = 0;
    if (line.empty() || line[0] == '#' || !ParseShape(line, &m, &n, &k)) continue;
    std::vector<float> a(static_cast<size_t>(std::max(1LL, m * k)), 0.5f),
        b(static_cast<size_t>(std::max(1LL, k * n)), 0.25f), c(static_cast<size_t>(std::max(1LL, m * n)), 0.0f);
    const double work = 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k);
    const int calls = static_cast<int>(std::max(1.0, std::min(2000.0, kRoundFlops / std::max(work, 1.0))));
    std::vector<double> seconds[4];  // by layout bits: 1 A transposed, 2 B transposed
    for (int round = 0; round <= kRounds; ++round)
      for (int layout = 0; layout < 4; ++layout) {
        const bool ta = (layout & 1) != 0, tb = (layout & 2) != 0;
        const auto start = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) {
          const auto status = API(gemm)(static_cast<API(transpose)>(ta), static_cast<API(transpose)>(tb), m, n, k,
                                        1.0f, a.data(), std::max(1LL, ta ? m : k), b.data(),
                                        std::max(1LL, tb ? k : n), 0.0f, c.data(), std::max(1LL, n));
          if (status != 0) return 1;
        }
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (round > 0) seconds[layout].push_back(elapsed / calls);  // round 0 warms up
      }
    double median[4];
    for (int l = 0; l < 4; ++l) {
      std::sort(seconds[l].begin(), seconds[l].end());
      median[l] = seconds[l][seconds[l].size() / 2];
    }
    std::printf("%lld,%lld,%lld,%s,%.4e,%.4e,%.4e,%.4e,%.3f,%.3f,%.3f\n", m, n, k, argv[1], median[0], median[2],
                median[1], median[3], median[2] / median[0], median[1] / median[0], median[3] / median[0]);
    std::fflush(stdout);
  }
  return 0;
}
