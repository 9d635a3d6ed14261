#include "timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

namespace strata_bench {

namespace {

// A sample shorter than this is dominated by the clock reads around it.
constexpr double kMinSampleSeconds = 200e-6;
// Warm-up: calls until this much time has passed (at least one call), which also estimates the call's time.
constexpr double kWarmupSeconds = 2e-3;
constexpr int kMaxWarmupCalls = 100000;

// Warm-up calls (unless the checked call was long enough to be the warm-up); returns the time of one call.
double WarmUp(Contender* c) {
  if (c->first_call_s >= kWarmupSeconds) return c->first_call_s;
  int calls = 0;
  const double start = NowSeconds();
  double elapsed = 0.0;
  do {
    c->status = c->library->Gemm(c->args);
    ++calls;
    elapsed = NowSeconds() - start;
  } while (c->status == CallStatus::kOk && elapsed < kWarmupSeconds && calls < kMaxWarmupCalls);
  return elapsed / calls;
}

int RepsFor(const RepsPolicy& policy, double longest_sample) {
  if (policy.fixed > 0) return policy.fixed;
  if (!(longest_sample > 0.0)) return policy.min_reps;
  int reps = static_cast<int>(
      std::clamp<double>(std::ceil(policy.target_seconds / longest_sample), policy.min_reps, policy.max_reps));
  if (reps * longest_sample > policy.max_seconds) {
    reps = std::max(policy.floor_reps, static_cast<int>(policy.max_seconds / longest_sample));
  }
  return reps;
}

}  // namespace

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

double ClockReadSeconds() {
  static const double seconds = [] {
    std::vector<double> intervals(1001);
    for (double& interval : intervals) {
      const double start = NowSeconds();
      interval = NowSeconds() - start;
    }
    return Median(intervals);
  }();
  return seconds;
}

double Median(std::vector<double> values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  const size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + mid, values.end());
  if (values.size() % 2 == 1) return values[mid];
  const double upper = values[mid];
  return (*std::max_element(values.begin(), values.begin() + mid) + upper) / 2;
}

double GeoMean(const std::vector<double>& values) {
  if (values.empty()) return std::numeric_limits<double>::quiet_NaN();
  double log_sum = 0.0;
  for (double v : values) log_sum += std::log(v);
  return std::exp(log_sum / static_cast<double>(values.size()));
}

void MeasureInterleaved(const RepsPolicy& policy, std::vector<Contender>* contenders) {
  std::vector<double> per_call(contenders->size(), 0.0);
  double fastest = 0.0;
  for (size_t i = 0; i < contenders->size(); ++i) {
    Contender& c = (*contenders)[i];
    if (c.status != CallStatus::kOk) continue;
    per_call[i] = WarmUp(&c);
    if (c.status == CallStatus::kOk && (fastest == 0.0 || per_call[i] < fastest)) fastest = per_call[i];
  }
  double longest_sample = 0.0;
  for (size_t i = 0; i < contenders->size(); ++i) {
    Contender& c = (*contenders)[i];
    if (c.status != CallStatus::kOk) continue;
    if (policy.prune_factor > 0.0 && c.prunable && per_call[i] > policy.prune_factor * fastest) {
      c.pruned = true;
      c.median_s = c.min_s = per_call[i];
      continue;
    }
    c.batch = static_cast<int>(std::max(1.0, std::ceil(kMinSampleSeconds / std::max(per_call[i], 1e-9))));
    longest_sample = std::max(longest_sample, per_call[i] * c.batch);
  }
  const int reps = RepsFor(policy, longest_sample);

  const size_t count = contenders->size();
  std::vector<std::vector<double>> samples(count);
  for (int rep = 0; rep < reps; ++rep) {
    for (size_t offset = 0; offset < count; ++offset) {
      Contender& c = (*contenders)[(static_cast<size_t>(rep) + offset) % count];
      if (c.status != CallStatus::kOk || c.pruned) continue;
      const double start = NowSeconds();
      for (int i = 0; i < c.batch; ++i) c.status = c.library->Gemm(c.args);
      const double elapsed = NowSeconds() - start;
      samples[(static_cast<size_t>(rep) + offset) % count].push_back(elapsed / c.batch);
    }
  }
  for (size_t i = 0; i < count; ++i) {
    Contender& c = (*contenders)[i];
    if (c.status != CallStatus::kOk || c.pruned || samples[i].empty()) continue;
    c.samples = static_cast<int>(samples[i].size());
    c.median_s = Median(samples[i]);
    c.min_s = *std::min_element(samples[i].begin(), samples[i].end());
  }
}

}  // namespace strata_bench
