// What the benchmark tools share: a package's C API by its name (PKG, given by the build), GEMM shape suites, medians
// and the check of a contender's result.
#ifndef STRATA_TOOLS_BENCH_COMMON_H_
#define STRATA_TOOLS_BENCH_COMMON_H_

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define STRATA_BENCH_CAT2(a, b) a##b
#define STRATA_BENCH_CAT(a, b) STRATA_BENCH_CAT2(a, b)
#define API(name) STRATA_BENCH_CAT(PKG, STRATA_BENCH_CAT(_, name))

namespace bench {

struct GemmShape {
  std::string category;
  int64_t m, n, k;
};

// A suite CSV with the header category,M,N,K (../shared/shapes/*.csv); rows that do not parse are skipped.
inline std::vector<GemmShape> read_gemm_suite(const char* path) {
  std::ifstream in(path);
  std::vector<GemmShape> shapes;
  std::string line;
  std::getline(in, line);  // header
  while (std::getline(in, line)) {
    std::stringstream fields(line);
    GemmShape s;
    std::string m, n, k;
    if (std::getline(fields, s.category, ',') && std::getline(fields, m, ',') && std::getline(fields, n, ',') &&
        std::getline(fields, k, ',')) {
      s.m = std::stoll(m), s.n = std::stoll(n), s.k = std::stoll(k);
      shapes.push_back(s);
    }
  }
  return shapes;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// The largest difference between c and want relative to want's largest magnitude.
inline double relative_error(const std::vector<float>& c, const std::vector<float>& want) {
  double worst = 0, scale = 1e-30;
  for (size_t i = 0; i < c.size(); ++i) {
    worst = std::max(worst, std::fabs(static_cast<double>(c[i]) - want[i]));
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  return worst / scale;
}

}  // namespace bench

#endif  // STRATA_TOOLS_BENCH_COMMON_H_
