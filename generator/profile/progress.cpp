#include "profile/progress.h"

#include <fmt/format.h>

#include <utility>

namespace strata {

Progress::Progress(bool enabled, std::FILE* out, Clock clock)
    : enabled_(enabled), out_(out), clock_(std::move(clock)) {}

void Progress::line(const std::string& text) {
  end();
  if (enabled_) fmt::print(out_, "profiling: {}\n", text);
}

void Progress::status(const std::string& stage, int64_t done, int64_t total) {
  if (!enabled_ || total <= 0) return;
  const auto now = clock_();
  if (stage != stage_) {
    stage_ = stage;
    stage_start_ = now;
  } else if (open_ && std::chrono::duration<double>(now - last_draw_).count() < kRedrawSeconds) {
    return;
  }
  last_draw_ = now;
  const double elapsed = std::chrono::duration<double>(now - stage_start_).count();
  std::string left;
  if (done > 0 && done < total)
    left =
        fmt::format(", about {:.0f} s left", elapsed * static_cast<double>(total - done) / static_cast<double>(done));
  fmt::print(out_, "\rprofiling {}: {}/{}{}\x1b[K", stage, done, total, left);
  open_ = true;
}

void Progress::end() {
  if (open_) fmt::print(out_, "\n");
  open_ = false;
}

bool parse_progress(const std::string& line, std::string* stage, int64_t* done, int64_t* total) {
  long long i = 0, n = 0, r = 0, rounds = 0;
  if (std::sscanf(line.c_str(), "kernel %lld/%lld round %lld/%lld:", &i, &n, &r, &rounds) == 4 && n > 0) {
    *stage = "level 0 (kernels x rounds)";
    *done = (r - 1) * n + i - 1;
    *total = n * rounds;
    return true;
  }
  if (std::sscanf(line.c_str(), "block %lld/%lld:", &i, &n) == 2 && n > 0) {
    *stage = "level 1 (blocks)";
    *done = i - 1;
    *total = n;
    return true;
  }
  return false;
}

}  // namespace strata
