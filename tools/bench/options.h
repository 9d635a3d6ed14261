// Command-line options of the benchmark driver.
#ifndef STRATA_TOOLS_BENCH_OPTIONS_H_
#define STRATA_TOOLS_BENCH_OPTIONS_H_

#include <string>
#include <vector>

#include "shapes.h"
#include "timing.h"

namespace strata_bench {

struct Options {
  std::vector<Shape> shapes;  // from --suite files, --shape, or the default suites
  std::vector<int> threads{1, 2};
  RepsPolicy reps;         // peers and the dispatcher
  RepsPolicy oracle_reps;  // every kernel of the package forced by id
  std::string out_dir = "bench_out";
  std::string peer_dir;            // where libpeer_<name>.so live
  bool all_peers = true;           // every plugin found in peer_dir...
  std::vector<std::string> peers;  // ...or just these
  std::string plot_script;         // empty: no PNG
  std::string python = "python3";  // runs plot_script; needs matplotlib
  int64_t square = 2048;           // the square shape for the %-of-peak line; 0: none
  // Make idle threads of the OpenMP and OpenBLAS runtimes sleep (as Strata's do) unless the environment says
  // otherwise; see SetPassiveWaiting in bench.cpp.
  bool passive_wait = true;
  bool oracle = true;
  bool overhead = true;
  float alpha = 1.0f, beta = 0.0f;
  std::string layout = "NN";  // op(A) op(B): N as stored, T transposed (A stored K x M, B N x K)
};

enum class ParseResult { kRun, kHelp, kBadUsage };

// Fills *options; on kBadUsage a message is already on stderr.
ParseResult ParseOptions(int argc, char** argv, Options* options);
void PrintUsage();

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_OPTIONS_H_
