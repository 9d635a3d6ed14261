// The one-line progress display of host profiling, and the parsing of the profiler's progress reports.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <string>

namespace strata {

// A one-line progress display (stderr, where it is a terminal: the caller enables it only for one), ended cleanly
// when the profile finishes or fails. The line names the stage, how many of its timings are done and the time left
// at the pace so far. The profiler reports every kernel of every round, thousands of lines for AVX-512, so the line
// is redrawn only when the stage changes and at most every kRedrawSeconds: one redraw per report floods slow
// terminals and makes a captured terminal log megabytes long.
class Progress {
 public:
  static constexpr double kRedrawSeconds = 0.5;
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `out` receives the display (nothing when not enabled); `clock` says the time (tests pass their own).
  explicit Progress(bool enabled, std::FILE* out = stderr, Clock clock = std::chrono::steady_clock::now);
  ~Progress() { end(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  // A line of its own, after the current status line.
  void line(const std::string& text);
  // `done` of `total` timings of `stage` are finished.
  void status(const std::string& stage, int64_t done, int64_t total);
  // Ends the status line, if one is open.
  void end();

 private:
  bool enabled_;
  std::FILE* out_;
  Clock clock_;
  bool open_ = false;
  std::string stage_;
  std::chrono::steady_clock::time_point stage_start_, last_draw_;
};

// The stage, timings done and timings in all of a profiler progress line: "kernel I/N round R/RS: NAME" (before
// kernel I of round R) or "block I/N: NAME MxNxK" (before block I). False for any other line.
bool parse_progress(const std::string& line, std::string* stage, int64_t* done, int64_t* total);

}  // namespace strata
