// What a run measured, and the files it writes: results.csv, oracle.csv, overhead.csv and summary.md.
#ifndef STRATA_TOOLS_BENCH_REPORT_H_
#define STRATA_TOOLS_BENCH_REPORT_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "peak.h"
#include "shapes.h"

namespace strata_bench {

// One library on one shape at one thread count.
struct ResultRow {
  Shape shape;
  int threads = 0;
  std::string library;
  std::string status;                  // "pass", "fail" (wrong result), "unsupported", "error"
  double median_s = 0.0, min_s = 0.0;  // per call; meaningful for "pass" and "fail"
  int samples = 0, batch = 0;
  int64_t checked = 0;       // C entries compared with the reference
  double worst_ratio = 0.0;  // largest |error| / tolerance among them
};

// The dispatcher against every kernel of the package forced by id, on one shape at one thread count.
struct OracleRow {
  Shape shape;
  int threads = 0;
  int plan_kernel = -1, plan_threads = 0;
  bool plan_packed = false;
  double predicted_s = 0.0;      // the cost model's estimate for the dispatcher's plan
  double dispatch_s = 0.0;       // the dispatcher, measured in the same interleaved rounds as the kernels
  std::vector<double> kernel_s;  // per kernel id; NaN where the forced call failed or gave a wrong result
  int best_kernel = -1;
  double best_s = 0.0;
  std::vector<int> failed_kernels;  // ids whose result was wrong or whose call failed
  std::vector<int> pruned_kernels;  // ids timed by their warm-up only: far slower than the fastest
  // (id, timed as): an id whose plan runs the same computation as a lower one shares that one's measurement
  std::vector<std::pair<int, int>> shared_kernels;
};

// The dispatcher's planning time against the whole call.
struct OverheadRow {
  Shape shape;
  int threads = 0;
  double plan_cached_s = 0.0;  // the same shape again: the plan cache answers
  double plan_cold_s = 0.0;    // after other shapes pushed it out of the cache: the model runs
  double call_s = 0.0;         // the dispatcher's median time for the whole call (from results)
};

struct LibraryInfo {
  std::string name, description;
};

struct RunInfo {
  std::string machine;
  // /proc/loadavg (1, 5 and 15 minutes) when the run started and ended: other work on the machine disturbs the
  // timings, most of all at the higher thread counts.
  std::string load_start, load_end;
  std::string package;
  int kernel_count = 0;
  std::string command_line;
  std::vector<LibraryInfo> libraries;  // Strata first
  std::vector<std::string> notes;      // peers skipped and why, and the like
  std::vector<Peak> peaks;             // one per thread count
  std::vector<int> threads;
  float alpha = 1.0f, beta = 0.0f;
  std::string layout = "NN";  // op(A) op(B), as --layout
  std::string reps_policy;
  std::string threading_environment;  // the environment variables that change how the runtimes wait and spin
  double oracle_prune_factor = 0.0;
  double elapsed_s = 0.0;
};

struct RunData {
  RunInfo info;
  std::vector<ResultRow> results;
  std::vector<OracleRow> oracle;
  std::vector<OverheadRow> overhead;
};

// Each returns false with *error set when the file cannot be written.
bool WriteResultsCsv(const RunData& data, const std::string& path, std::string* error);
bool WriteOracleCsv(const RunData& data, const std::string& path, std::string* error);
bool WriteOverheadCsv(const RunData& data, const std::string& path, std::string* error);
bool WriteSummary(const RunData& data, const std::string& path, std::string* error);

// The peak (FLOP/s) measured for this thread count, or 0 when none was.
double PeakFor(const RunInfo& info, int threads);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_REPORT_H_
