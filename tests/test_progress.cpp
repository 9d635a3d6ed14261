// Host profiling's progress display: one line, redrawn at most every Progress::kRedrawSeconds however
// often the profiler reports, naming the stage, the count and the time left; nothing at all when disabled.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <string>

#include "profile/progress.h"

using strata::Progress;

namespace {

// Everything written to `file` so far.
std::string contents(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

size_t count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// Feeds `reports` profiler lines of one stage, `step` apart on the fake clock.
void report(Progress& progress, std::chrono::steady_clock::time_point& now, const std::string& format, int reports,
            std::chrono::milliseconds step) {
  for (int i = 1; i <= reports; ++i) {
    char line[64];
    std::snprintf(line, sizeof line, format.c_str(), i, reports);
    std::string stage;
    int64_t done = 0, total = 0;
    REQUIRE(strata::parse_progress(line, &stage, &done, &total));
    progress.status(stage, done, total);
    now += step;
  }
}

}  // namespace

TEST_CASE("profiling progress is one line, redrawn at most twice a second", "[profile][progress]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  auto now = std::chrono::steady_clock::time_point{};
  {
    Progress progress(true, out, [&now] { return now; });
    progress.line("compiling 300 micro-kernels (2 jobs)...");
    // 300 kernels x 3 rounds over 18 s, then 10,000 level-1 blocks over 40 s.
    report(progress, now, "kernel %d/%d round 1/1: ukernel_avx512_8x48_k4", 900, std::chrono::milliseconds(20));
    report(progress, now, "block %d/%d: ukernel_avx512_8x48_k4 64x48x128", 10000, std::chrono::milliseconds(4));
    progress.line("300 micro-kernels in 58.0 s");
  }
  const std::string text = contents(out);
  std::fclose(out);
  // 18 s and 40 s of reports: at most one redraw per half second, plus each stage's first.
  const size_t redraws = count(text, "\r");
  CHECK(redraws >= 100);
  CHECK(redraws <= 18 * 2 + 1 + 40 * 2 + 1);
  // The two lines of their own and one status line, which the second stage redraws: three newlines in all.
  CHECK(count(text, "\n") == 3);
  CHECK(count(text, "profiling level 0 (kernels x rounds): ") > 0);
  CHECK(count(text, "profiling level 1 (blocks): ") > 0);
  CHECK(count(text, "/10000, about ") > 0);
  CHECK(count(text, " s left") > 0);
  CHECK(text.find("profiling: 300 micro-kernels in 58.0 s\n") != std::string::npos);
}

TEST_CASE("a progress display that is not enabled writes nothing", "[profile][progress]") {
  std::FILE* out = std::tmpfile();
  REQUIRE(out != nullptr);
  auto now = std::chrono::steady_clock::time_point{};
  {
    Progress progress(false, out, [&now] { return now; });
    progress.line("compiling");
    report(progress, now, "kernel %d/%d round 1/1: k", 50, std::chrono::milliseconds(100));
  }
  CHECK(contents(out).empty());
  std::fclose(out);
}

TEST_CASE("profiler lines that are not progress reports are not parsed as such", "[profile][progress]") {
  std::string stage;
  int64_t done = -1, total = -1;
  CHECK_FALSE(strata::parse_progress("kernel 3/0 round 1/1: k", &stage, &done, &total));
  CHECK_FALSE(strata::parse_progress("wrote records.yaml", &stage, &done, &total));
  REQUIRE(strata::parse_progress("kernel 5/10 round 2/3: k", &stage, &done, &total));
  CHECK(done == 14);
  CHECK(total == 30);
}
