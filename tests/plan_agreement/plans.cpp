// Prints a package's plan for each shape of a file (one M,N,K per line, '#' lines skipped) in each layout and at each
// thread count given, in `strata plan`'s CSV columns. Usage: plans SHAPES_FILE LAYOUTS THREADS...
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

#include PKG_HEADER

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define API(name) CAT(PKG, CAT(_, name))

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: plans SHAPES_FILE LAYOUTS THREADS...  (LAYOUTS: e.g. NN,NT,TN,TT)\n");
    return 2;
  }
  std::printf("M,N,K,layout,max_threads,kernel,name,packed,row_shares,threads,seconds\n");
  const std::string layouts = argv[2];
  for (size_t at = 0; at + 1 < layouts.size(); at += 3) {
    const char trans_a = layouts[at], trans_b = layouts[at + 1];
    for (int arg = 3; arg < argc; ++arg) {
      const int threads = std::atoi(argv[arg]);
      if (API(set_num_threads)(threads) != 0) return 1;  // OK is 0
      std::ifstream in(argv[1]);
      std::string line;
      while (std::getline(in, line)) {
        long long m = 0, n = 0, k = 0;
        if (line.empty() || line[0] == '#' || std::sscanf(line.c_str(), "%lld,%lld,%lld", &m, &n, &k) != 3) continue;
        API(plan_t) plan;
        if (API(gemm_plan)(static_cast<API(transpose)>(trans_a == 'T'), static_cast<API(transpose)>(trans_b == 'T'),
                           m, n, k, &plan) != 0)
          return 1;
        std::printf("%lld,%lld,%lld,%c%c,%d,%d,-,%d,%d,%d,%.17g\n", m, n, k, trans_a, trans_b, threads,
                    plan.kernel_id, plan.packed, plan.row_shares, plan.threads, plan.predicted_seconds);
      }
    }
  }
  return 0;
}
