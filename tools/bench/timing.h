// Timing: the clock, interleaved measurement of several libraries on one problem, and statistics.
#ifndef STRATA_TOOLS_BENCH_TIMING_H_
#define STRATA_TOOLS_BENCH_TIMING_H_

#include <vector>

#include "library.h"

namespace strata_bench {

double NowSeconds();
// What an interval timed with two NowSeconds() reads overstates: the median of empty intervals (measured once). A
// single call of tens of nanoseconds, timed alone, is corrected by it.
double ClockReadSeconds();
double Median(std::vector<double> values);          // NaN for an empty vector
double GeoMean(const std::vector<double>& values);  // NaN for an empty vector

// How many timed samples to take.
struct RepsPolicy {
  int fixed = 0;                // > 0: exactly this many samples per library
  double target_seconds = 0.1;  // otherwise: about this much timed work per library...
  int min_reps = 5;             // ...but at least this many samples
  int max_reps = 50;            // ...and at most this many;
  // and for long calls, no more samples than fit in this many seconds per library, down to floor_reps: a call of
  // a second varies far less, relative to its length, than one of a millisecond.
  double max_seconds = 1.0;
  int floor_reps = 3;
  // > 0: a contender whose warm-up time is more than this many times the fastest one's is not timed further (its
  // warm-up time stands as its result). For the oracle, where only the fastest kernel matters.
  double prune_factor = 0.0;
};

// One library on one problem: the call it makes (its own C buffer) and what the measurement found.
struct Contender {
  Library* library = nullptr;
  GemmArgs args{};
  double first_call_s = 0.0;  // the checked call made before the measurement (it warms up too)
  bool prunable = true;       // see RepsPolicy::prune_factor

  CallStatus status = CallStatus::kOk;  // only kOk contenders are timed
  bool pruned = false;
  int batch = 1;  // calls per sample
  int samples = 0;
  double median_s = 0.0;  // per call
  double min_s = 0.0;
};

// Warms every contender up (untimed calls, which also size its batch: short calls are timed in batches so that
// the clock's resolution and overhead do not dominate; a call longer than the warm-up time is warm after its
// first, checked call), then takes the samples round-robin, one sample per contender per round, starting each
// round at the next contender so that no library always runs right after the same other one. Interleaving
// spreads slow drifts of the machine (other load, frequency) evenly over the libraries, and the median discards
// the samples an interrupt or a neighbour disturbed.
void MeasureInterleaved(const RepsPolicy& policy, std::vector<Contender>* contenders);

}  // namespace strata_bench

#endif  // STRATA_TOOLS_BENCH_TIMING_H_
