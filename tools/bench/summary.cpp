// summary.md: the run's headline numbers in Markdown, with the comparison table in the form of the Helix paper's
// Table 7 (per category and peer: the share of shapes where Strata is faster and the geometric-mean speedup).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

#include "report.h"
#include "timing.h"

namespace strata_bench {

namespace {

constexpr int kWorstShown = 5;
constexpr int kFailuresShown = 20;
// A forced kernel this close to the dispatcher's time counts as a tie: the two are within timing noise.
constexpr double kTieTolerance = 0.03;

std::string Format(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof(text), format, value);
  return text;
}

std::string Seconds(double s) {
  if (!std::isfinite(s)) return "-";
  if (s < 1e-6) return Format("%.0f ns", s * 1e9);
  if (s < 1e-3) return Format("%.1f us", s * 1e6);
  if (s < 1.0) return Format("%.2f ms", s * 1e3);
  return Format("%.2f s", s);
}

std::string Percent(double fraction) { return std::isfinite(fraction) ? Format("%.1f%%", 100.0 * fraction) : "-"; }

std::string ThreadsLabel(int threads) { return std::to_string(threads) + (threads == 1 ? " thread" : " threads"); }

std::string ShapeText(const Shape& s) { return s.category + " " + s.Label(); }

// Results indexed by shape, thread count and library.
class ResultIndex {
 public:
  explicit ResultIndex(const std::vector<ResultRow>& rows) {
    std::set<std::tuple<std::string, int64_t, int64_t, int64_t>> seen;
    for (const ResultRow& r : rows) {
      index_[Key(r.shape, r.threads, r.library)] = &r;
      if (seen.insert({r.shape.category, r.shape.m, r.shape.n, r.shape.k}).second) shapes_.push_back(r.shape);
    }
  }
  const std::vector<Shape>& shapes() const { return shapes_; }
  // The median of a correct result, or NaN.
  double PassTime(const Shape& s, int threads, const std::string& library) const {
    const auto it = index_.find(Key(s, threads, library));
    return it != index_.end() && it->second->status == "pass" ? it->second->median_s : NAN;
  }

 private:
  using K = std::tuple<std::string, int64_t, int64_t, int64_t, int, std::string>;
  static K Key(const Shape& s, int threads, const std::string& library) {
    return K{s.category, s.m, s.n, s.k, threads, library};
  }
  std::map<K, const ResultRow*> index_;
  std::vector<Shape> shapes_;
};

// Speedups of Strata over one peer (or the per-shape best peer) on a set of shapes.
struct SpeedupStats {
  int compared = 0, faster = 0;
  std::vector<double> speedups;
  std::string Cells() const {
    if (compared == 0) return "- | -";
    return Format("%.0f%%", 100.0 * faster / compared) + " (" + std::to_string(faster) + "/" +
           std::to_string(compared) + ") | " + Format("%.2fx", GeoMean(speedups));
  }
};

SpeedupStats Compare(const ResultIndex& index, const std::vector<Shape>& shapes, int threads,
                     const std::vector<std::string>& peers) {
  SpeedupStats stats;
  for (const Shape& s : shapes) {
    const double strata = index.PassTime(s, threads, "strata");
    double peer = NAN;
    for (const std::string& p : peers) {
      const double t = index.PassTime(s, threads, p);
      if (std::isfinite(t) && !(t >= peer)) peer = t;
    }
    if (!std::isfinite(strata) || !std::isfinite(peer)) continue;
    ++stats.compared;
    if (strata < peer) ++stats.faster;
    stats.speedups.push_back(peer / strata);
  }
  return stats;
}

void WriteHeader(const RunInfo& info, std::ostringstream& out) {
  out << "# Strata benchmark: " << info.package << " against its peers\n\n";
  out << "- Machine: " << info.machine << "\n";
  out << "- Command: `" << info.command_line << "`\n";
  out << "- C = " << info.alpha << " * " << (info.layout[0] == 'T' ? "A^T" : "A") << " * "
      << (info.layout[1] == 'T' ? "B^T" : "B") << " + " << info.beta
      << " * C, row-major fp32 (layout " << info.layout << ": every library reads the same stored operands). Every time is the median of interleaved samples (" << info.reps_policy
      << "), after warm-up; every result is checked against a double-precision reference.\n";
  out << "- Threading environment: " << info.threading_environment
      << ". The libraries run interleaved in one process; unless told otherwise (--spin-wait) the harness sets "
         "OMP_WAIT_POLICY=PASSIVE and OPENBLAS_THREAD_TIMEOUT=4 so that idle threads sleep in every library, as "
         "in Strata's pool, instead of spinning on cores the next library's call needs.\n";
  out << "- Run time: " << Format("%.0f s", info.elapsed_s) << "; load average (1, 5, 15 min) at the start "
      << info.load_start << ", at the end " << info.load_end
      << " (anything above 0 is other work competing for the cores).\n\n";
  out << "| Library | Version and configuration |\n| --- | --- |\n";
  for (const LibraryInfo& l : info.libraries) out << "| " << l.name << " | " << l.description << " |\n";
  out << "\n";
  for (const std::string& note : info.notes) out << "- Note: " << note << "\n";
  if (!info.notes.empty()) out << "\n";
  out << "## Peak\n\nA register-only FMA loop on all threads at once, each thread's FLOPs over its own CPU time "
         "(what the cores do while they run); \"% of peak\" below is against this. The last column divides by wall "
         "time instead: what the run actually got from a shared machine.\n\n";
  out << "| Threads | ISA | GFLOP/s | per thread | GFLOP/s over wall time |\n| --- | --- | --- | --- | --- |\n";
  for (const Peak& p : info.peaks) {
    out << "| " << p.threads << " | " << p.isa << " | " << Format("%.1f", p.flops_per_second / 1e9) << " | "
        << Format("%.1f", p.flops_per_second / 1e9 / p.threads) << " | "
        << Format("%.1f", p.wall_flops_per_second / 1e9) << " |\n";
  }
  out << "\n";
}

void WriteComparison(const RunData& data, const ResultIndex& index, const std::vector<std::string>& peers,
                     std::ostringstream& out) {
  out << "## Strata against each peer (Table 7 form)\n\n"
      << "Speedup = peer time / Strata time, over the shapes where both gave a correct result; \"Strata faster\" "
         "is the share of those shapes where Strata's median is lower. \"best of peers\" takes, per shape, the "
         "fastest peer.\n\n";
  out << "| Category | Peer";
  for (int t : data.info.threads) out << " | " << ThreadsLabel(t) << ": Strata faster | geomean speedup";
  out << " |\n| --- | ---";
  for (size_t i = 0; i < data.info.threads.size(); ++i) out << " | --- | ---";
  out << " |\n";
  std::vector<std::string> categories;
  for (const Shape& s : index.shapes()) {
    if (!s.extra && std::find(categories.begin(), categories.end(), s.category) == categories.end()) {
      categories.push_back(s.category);
    }
  }
  if (categories.size() > 1) categories.push_back("all");
  for (const std::string& category : categories) {
    std::vector<Shape> shapes;
    for (const Shape& s : index.shapes()) {
      if (!s.extra && (category == "all" || s.category == category)) shapes.push_back(s);
    }
    std::vector<std::vector<std::string>> rows;
    for (const std::string& peer : peers) rows.push_back({peer});
    if (peers.size() > 1) rows.push_back(peers);
    for (const std::vector<std::string>& row : rows) {
      const std::string label = row.size() == 1 ? row[0] : "**best of peers**";
      out << "| " << category << " (" << shapes.size() << ") | " << label;
      for (int t : data.info.threads) out << " | " << Compare(index, shapes, t, row).Cells();
      out << " |\n";
    }
  }
  out << "\n";
}

void WriteSquare(const RunData& data, const ResultIndex& index, const std::vector<std::string>& libraries,
                 std::ostringstream& out) {
  const Shape* square = nullptr;
  for (const Shape& s : index.shapes()) {
    if (s.m == 2048 && s.n == 2048 && s.k == 2048) square = &s;
  }
  if (square == nullptr) {
    for (const Shape& s : index.shapes()) {
      if (s.extra) square = &s;
    }
  }
  if (square == nullptr) return;
  out << "## " << square->Label() << ": GFLOP/s and fraction of peak\n\n| Library";
  for (int t : data.info.threads) out << " | " << ThreadsLabel(t) << " GFLOP/s | % of peak";
  out << " |\n| ---";
  for (size_t i = 0; i < data.info.threads.size(); ++i) out << " | --- | ---";
  out << " |\n";
  for (const std::string& library : libraries) {
    out << "| " << library;
    for (int t : data.info.threads) {
      const double s = index.PassTime(*square, t, library);
      const double flops = square->Flops() / s;
      const double peak = PeakFor(data.info, t);
      out << " | " << (std::isfinite(s) ? Format("%.1f", flops / 1e9) : "-") << " | "
          << (std::isfinite(s) && peak > 0.0 ? Percent(flops / peak) : "-");
    }
    out << " |\n";
  }
  out << "\n";
}

void WriteCorrectness(const RunData& data, const std::vector<std::string>& libraries, std::ostringstream& out) {
  out << "## Correctness\n\nEvery call of every library was checked once per shape and thread count (all of C "
         "for small problems, a grid of rows and columns including the edges for large ones)."
      << (data.info.beta == 0.0f ? " With beta = 0, C starts as NaN, which a library must not read." : "")
      << "\n\n| Library | pass | fail | unsupported | error |\n| --- | --- | --- | --- | --- |\n";
  std::vector<const ResultRow*> failures;
  std::map<std::string, std::vector<const ResultRow*>> unsupported;
  for (const std::string& library : libraries) {
    std::map<std::string, int> counts;
    for (const ResultRow& r : data.results) {
      if (r.library != library) continue;
      ++counts[r.status];
      if (r.status == "unsupported") {
        unsupported[library].push_back(&r);
      } else if (r.status != "pass") {
        failures.push_back(&r);
      }
    }
    out << "| " << library << " | " << counts["pass"] << " | " << counts["fail"] << " | " << counts["unsupported"]
        << " | " << counts["error"] << " |\n";
  }
  out << "\n";
  for (const auto& [library, rows] : unsupported) {
    out << "Unsupported by " << library << " (no native path; not timed, left out of its comparisons): ";
    for (size_t i = 0; i < rows.size(); ++i) {
      const bool same_shape = i > 0 && rows[i - 1]->shape.Label() == rows[i]->shape.Label();
      if (!same_shape) out << (i > 0 ? ", " : "") << rows[i]->shape.Label();
    }
    out << ".\n\n";
  }
  if (failures.empty()) return;
  out << "Wrong results and errors"
      << (failures.size() > kFailuresShown ? " (first " + std::to_string(kFailuresShown) + ")" : "") << ":\n\n";
  for (size_t i = 0; i < failures.size() && i < kFailuresShown; ++i) {
    const ResultRow& r = *failures[i];
    out << "- " << r.library << ", " << ShapeText(r.shape) << ", " << ThreadsLabel(r.threads) << ": " << r.status;
    if (r.status == "fail") out << " (worst error " << Format("%.3g", r.worst_ratio) << "x the tolerance)";
    out << "\n";
  }
  out << "\n";
}

void WriteOracle(const RunData& data, std::ostringstream& out) {
  if (data.oracle.empty()) return;
  out << "## Model accuracy: the dispatcher against the oracle\n\n"
      << "Per shape, every one of the package's " << data.info.kernel_count
      << " kernels was forced by id and timed in interleaved rounds; the oracle is the fastest of them. The "
         "dispatcher's time is that of its own plan forced (the same computation), or where none matches, of the "
         "dispatcher timed in the same rounds. Ids whose plans run the same computation (on the direct path, "
         "the ids that share a micro-kernel) are timed once and share that time (oracle.csv's shared_kernels), so "
         "that noise between two runs of one computation never counts as a better pick. "
      << (data.info.oracle_prune_factor > 0.0
              ? "Kernels whose warm-up took over " + Format("%g", data.info.oracle_prune_factor) +
                    " times the fastest one's are not timed further (oracle.csv lists them as pruned). "
              : std::string())
      << "Fraction = oracle time / dispatcher time (1: the dispatcher "
         "picked the fastest kernel). Predicted / measured is the cost model's estimate for the dispatcher's plan "
         "against its measured time.\n\n"
      << "| Threads | shapes | geomean fraction of oracle | pick within " << Percent(kTieTolerance)
      << " of fastest | geomean predicted / measured |\n| --- | --- | --- | --- | --- |\n";
  for (int t : data.info.threads) {
    std::vector<double> fractions, predictions;
    int ties = 0;
    for (const OracleRow& r : data.oracle) {
      if (r.threads != t || !(r.best_s > 0.0) || !(r.dispatch_s > 0.0)) continue;
      fractions.push_back(r.best_s / r.dispatch_s);
      if (r.dispatch_s <= r.best_s * (1.0 + kTieTolerance)) ++ties;
      if (r.predicted_s > 0.0) predictions.push_back(r.predicted_s / r.dispatch_s);
    }
    if (fractions.empty()) continue;
    out << "| " << t << " | " << fractions.size() << " | " << Format("%.3f", GeoMean(fractions)) << " | "
        << Percent(static_cast<double>(ties) / static_cast<double>(fractions.size())) << " | "
        << Format("%.2f", GeoMean(predictions)) << " |\n";
  }
  out << "\nWhere the dispatcher loses most:\n\n"
      << "| Shape | Threads | picked (threads) | its time | fastest | its time | fraction |\n"
      << "| --- | --- | --- | --- | --- | --- | --- |\n";
  for (int t : data.info.threads) {
    std::vector<const OracleRow*> rows;
    for (const OracleRow& r : data.oracle) {
      if (r.threads == t && r.best_s > 0.0 && r.dispatch_s > 0.0) rows.push_back(&r);
    }
    std::sort(rows.begin(), rows.end(), [](const OracleRow* a, const OracleRow* b) {
      return a->best_s / a->dispatch_s < b->best_s / b->dispatch_s;
    });
    for (size_t i = 0; i < rows.size() && i < kWorstShown; ++i) {
      const OracleRow& r = *rows[i];
      out << "| " << ShapeText(r.shape) << " | " << t << " | k" << r.plan_kernel << " (" << r.plan_threads << ") | "
          << Seconds(r.dispatch_s) << " | k" << r.best_kernel << " | " << Seconds(r.best_s) << " | "
          << Format("%.3f", r.best_s / r.dispatch_s) << " |\n";
    }
  }
  std::vector<std::string> failed;
  for (const OracleRow& r : data.oracle) {
    for (int id : r.failed_kernels) {
      failed.push_back("k" + std::to_string(id) + " on " + ShapeText(r.shape) + " at " + ThreadsLabel(r.threads));
    }
  }
  out << "\n";
  if (!failed.empty()) {
    out << "Forced kernels that failed or gave a wrong result: " << failed.size() << " (see oracle.csv), e.g. "
        << failed.front() << ".\n\n";
  }
}

void WriteOverhead(const RunData& data, std::ostringstream& out) {
  if (data.overhead.empty()) return;
  out << "## Runtime overhead: planning against the whole call\n\n"
      << "Cached: the same shape planned again (the per-thread plan cache answers). Cold: the shape planned after "
         "enough other shapes to push it out of the cache, so the cost model runs for every kernel.\n\n"
      << "The last column counts the calls of at least 1 MFLOP whose cold plan takes 1% of the call or more.\n\n"
      << "| Threads | median cached plan | median cold plan | median cached / call | median cold / call | "
         "max cold / call | cold >= 1% (calls >= 1 MFLOP) |\n| --- | --- | --- | --- | --- | --- | --- |\n";
  for (int t : data.info.threads) {
    std::vector<double> cached, cold, cached_share, cold_share;
    int large = 0, large_over = 0;
    for (const OverheadRow& r : data.overhead) {
      if (r.threads != t || !(r.call_s > 0.0)) continue;
      cached.push_back(r.plan_cached_s);
      cold.push_back(r.plan_cold_s);
      cached_share.push_back(r.plan_cached_s / r.call_s);
      cold_share.push_back(r.plan_cold_s / r.call_s);
      if (r.shape.Flops() >= 1e6) {
        ++large;
        if (r.plan_cold_s >= 0.01 * r.call_s) ++large_over;
      }
    }
    if (cached.empty()) continue;
    out << "| " << t << " | " << Seconds(Median(cached)) << " | " << Seconds(Median(cold)) << " | "
        << Percent(Median(cached_share)) << " | " << Percent(Median(cold_share)) << " | "
        << Percent(*std::max_element(cold_share.begin(), cold_share.end())) << " | " << large_over << " of " << large
        << " |\n";
  }
  std::vector<const OverheadRow*> rows;
  for (const OverheadRow& r : data.overhead) {
    if (r.call_s > 0.0) rows.push_back(&r);
  }
  std::sort(rows.begin(), rows.end(), [](const OverheadRow* a, const OverheadRow* b) {
    return a->plan_cold_s / a->call_s > b->plan_cold_s / b->call_s;
  });
  out << "\nLargest shares (cold):\n\n| Shape | Threads | cached plan | cold plan | call | cold / call |\n"
      << "| --- | --- | --- | --- | --- | --- |\n";
  for (size_t i = 0; i < rows.size() && i < kWorstShown; ++i) {
    const OverheadRow& r = *rows[i];
    out << "| " << ShapeText(r.shape) << " | " << r.threads << " | " << Seconds(r.plan_cached_s) << " | "
        << Seconds(r.plan_cold_s) << " | " << Seconds(r.call_s) << " | " << Percent(r.plan_cold_s / r.call_s)
        << " |\n";
  }
  out << "\n";
}

}  // namespace

bool WriteSummary(const RunData& data, const std::string& path, std::string* error) {
  const ResultIndex index(data.results);
  std::vector<std::string> libraries, peers;
  for (const LibraryInfo& l : data.info.libraries) {
    libraries.push_back(l.name);
    if (l.name != "strata") peers.push_back(l.name);
  }
  std::ostringstream out;
  WriteHeader(data.info, out);
  if (!peers.empty()) WriteComparison(data, index, peers, out);
  WriteSquare(data, index, libraries, out);
  WriteCorrectness(data, libraries, out);
  WriteOracle(data, out);
  WriteOverhead(data, out);
  out << "Files: results.csv (every library, shape and thread count), oracle.csv, overhead.csv, speedup.png.\n";
  std::ofstream file(path, std::ios::binary);
  file << out.str();
  file.close();
  if (!file) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

}  // namespace strata_bench
