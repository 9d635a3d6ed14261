// The CSV files. Times are seconds per call; a field is empty where there is nothing to report.
#include "report.h"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <tuple>

namespace strata_bench {

namespace {

std::string Number(double value) {
  if (!std::isfinite(value)) return "";
  char text[32];
  std::snprintf(text, sizeof(text), "%.6g", value);
  return text;
}

std::string ShapeFields(const Shape& s) {
  return s.category + "," + std::to_string(s.m) + "," + std::to_string(s.n) + "," + std::to_string(s.k);
}

bool WriteFile(const std::string& path, const std::string& text, std::string* error) {
  std::ofstream out(path, std::ios::binary);
  out << text;
  out.close();
  if (!out) {
    *error = "cannot write " + path;
    return false;
  }
  return true;
}

// Space-separated, so that a list stays one CSV field.
std::string IdList(const std::vector<int>& ids) {
  std::string text;
  for (size_t i = 0; i < ids.size(); ++i) text += (i > 0 ? " " : "") + std::to_string(ids[i]);
  return text;
}

using ShapeKey = std::tuple<std::string, int64_t, int64_t, int64_t, int>;
ShapeKey KeyOf(const Shape& s, int threads) { return ShapeKey{s.category, s.m, s.n, s.k, threads}; }

}  // namespace

double PeakFor(const RunInfo& info, int threads) {
  for (const Peak& p : info.peaks) {
    if (p.threads == threads) return p.flops_per_second;
  }
  return 0.0;
}

bool WriteResultsCsv(const RunData& data, const std::string& path, std::string* error) {
  // The dispatcher's time per shape, so each row can carry its ratio to it.
  std::map<ShapeKey, double> strata_s;
  for (const ResultRow& r : data.results) {
    if (r.library == "strata" && r.status == "pass") strata_s[KeyOf(r.shape, r.threads)] = r.median_s;
  }
  std::ostringstream out;
  out << "category,M,N,K,flops,threads,library,status,median_s,min_s,samples,batch,gflops,fraction_of_peak,"
         "time_over_strata,checked_entries,worst_error_over_tolerance\n";
  for (const ResultRow& r : data.results) {
    const bool timed = r.status == "pass" || r.status == "fail";
    const double gflops = timed ? r.shape.Flops() / r.median_s / 1e9 : NAN;
    const double peak = PeakFor(data.info, r.threads);
    const auto strata = strata_s.find(KeyOf(r.shape, r.threads));
    const double ratio = r.status == "pass" && strata != strata_s.end() ? r.median_s / strata->second : NAN;
    out << ShapeFields(r.shape) << "," << Number(r.shape.Flops()) << "," << r.threads << "," << r.library << ","
        << r.status << "," << (timed ? Number(r.median_s) : "") << "," << (timed ? Number(r.min_s) : "") << ","
        << r.samples << "," << r.batch << "," << Number(gflops) << ","
        << (peak > 0.0 ? Number(gflops * 1e9 / peak) : "") << "," << Number(ratio) << "," << r.checked << ","
        << Number(r.worst_ratio) << "\n";
  }
  return WriteFile(path, out.str(), error);
}

bool WriteOracleCsv(const RunData& data, const std::string& path, std::string* error) {
  std::ostringstream out;
  out << "category,M,N,K,threads,dispatch_kernel,dispatch_threads,packed,predicted_s,dispatch_s,best_kernel,"
         "best_s,oracle_fraction";
  for (int id = 0; id < data.info.kernel_count; ++id) out << ",k" << id << "_s";
  out << ",failed_kernels,pruned_kernels,shared_kernels\n";
  for (const OracleRow& r : data.oracle) {
    out << ShapeFields(r.shape) << "," << r.threads << "," << r.plan_kernel << "," << r.plan_threads << ","
        << (r.plan_packed ? 1 : 0) << "," << Number(r.predicted_s) << "," << Number(r.dispatch_s) << ","
        << r.best_kernel << "," << Number(r.best_s) << "," << Number(r.best_s / r.dispatch_s);
    for (double t : r.kernel_s) out << "," << Number(t);
    out << "," << IdList(r.failed_kernels) << "," << IdList(r.pruned_kernels) << ",";
    for (size_t i = 0; i < r.shared_kernels.size(); ++i)
      out << (i > 0 ? " " : "") << r.shared_kernels[i].first << "=" << r.shared_kernels[i].second;
    out << "\n";
  }
  return WriteFile(path, out.str(), error);
}

bool WriteOverheadCsv(const RunData& data, const std::string& path, std::string* error) {
  std::ostringstream out;
  out << "category,M,N,K,threads,plan_cached_s,plan_cold_s,call_s,cached_fraction,cold_fraction\n";
  for (const OverheadRow& r : data.overhead) {
    out << ShapeFields(r.shape) << "," << r.threads << "," << Number(r.plan_cached_s) << "," << Number(r.plan_cold_s)
        << "," << Number(r.call_s) << "," << Number(r.plan_cached_s / r.call_s) << ","
        << Number(r.plan_cold_s / r.call_s) << "\n";
  }
  return WriteFile(path, out.str(), error);
}

}  // namespace strata_bench
