// Timing: the clock, interleaved measurement of several libraries on one problem, and statistics.
#ifndef STRATA_TOOLS_BENCH_TIMING_H_
#define STRATA_TOOLS_BENCH_TIMING_H_

#include <vector>

#include "library.h"

namespace strata_bench {

double NowSeconds();
double Median(std::vector<double> values);  // NaN for an empty vector
double GeoMean(const std::vector<double>& values);  // NaN for an empty vector

// How many timed samples to take.
struct RepsPolicy {
  int fixed = 0;                 // > 0: exactly this many samples per library
  double target_seconds = 0.1;   // otherwise: about this much timed work per library...
  int min_reps = 5;              // ...but at least this many samples
  int max_reps = 50;             // ...and at most this many
};

// One library on one problem: the call it makes (its own C buffer) and what the measurement found.
struct Contender {
  Library* library = nullptr;
  GemmArgs args{};

  CallStatus status = CallStatus::kOk;  // set by the warm-up; only kOk contenders are timed
  int batch = 1;                        // calls per sample
  int samples = 0;
  double median_s = 0.0;  // per call
  double min_s = 0.0;
};

// Warms every contender up (untimed calls, which also size its batch: short calls are timed in batches so that
// the clock's resolution and overhead do not dominate), then takes the samples round-robin, one sample per
// contender per round, starting each round at the next contender so that no library always runs right after the
// same other one. Interleaving spreads slow drifts of the machine (other load, frequency) evenly over the
// libraries, and the median discards the samples an interrupt or a neighbour disturbed.
void MeasureInterleaved(const RepsPolicy& policy, std::vector<Contender>* contenders);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_TIMING_H_
