// A generated CPU package, vendored with add_subdirectory as tests/package_stress does, runs its self-test (--quick)
// and the stress program (random shapes against a reference, every invalid argument, plans at the 64-bit limits,
// concurrent callers changing thread counts and parallel-for hooks, a call spanning more than 2^31 elements) under
// AddressSanitizer and UndefinedBehaviorSanitizer, and its concurrent part under ThreadSanitizer. The package is
// the widest ISA this host runs, generated from the committed records with three kernels: every path and kernel
// shape is still there, and sanitized builds of more kernels only take longer. The ThreadSanitizer run checks the
// dispatcher's and the pool's shared state, which no kernel holds, on one kernel. The kernel files are built under
// ASan without UBSan: UBSan's checks of their unrolled intrinsics (one AVX-512 file: 164 s with both, 57 s with
// ASan alone) held up the whole test, and ASan is what checks their loads and stores; UBSan covers the rest.
#include <catch2/catch.hpp>
#include <cctype>
#include <cstdlib>
#include <string>

#include "test_util.h"

using namespace strata::test;

namespace {

struct Target {
  std::string arch, example;
};

bool host_runs(const Target& t) {
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("fma")) return false;
  return t.example.find("avx512") != std::string::npos ? __builtin_cpu_supports("avx512f")
                                                       : __builtin_cpu_supports("avx2");
}

// Generates the package, builds it and the stress program with `flags` at -O1, as sanitizers are usually run: at -O3
// with ASan and UBSan, one AVX-512 kernel file (9x48, k unroll 8) took over four minutes to compile. Returns the
// build directory's path.
std::string build_sanitized(const ScratchDir& dir, const std::string& flags, int kernels,
                            const std::string& kernel_options = "") {
  for (const Target& t : {Target{"archs/zen4-avx512.yaml", "strata_sgemm_zen4_avx512"},
                          Target{"archs/x86-avx2.yaml", "strata_sgemm_x86_avx2"}}) {
    if (!host_runs(t)) continue;
    const auto gen =
        run_strata("generate --max-kernels " + std::to_string(kernels) + " --name stressed --arch " +
                       source_path(t.arch) + " --op " + source_path("ops/sgemm.yaml") + " --profile " +
                       source_path("emitted_examples/" + t.example + "/profile_records.yaml") + " -o pkg",
                   dir.path());
    INFO(gen.err);
    REQUIRE(gen.exit_code == 0);
    const std::string log = dir.path() + "/build.log";
    const std::string command =
        "cmake -S " + source_path("tests/package_stress") + " -B " + dir.path() +
        "/build -DPACKAGE_DIR=" + dir.path() +
        "/pkg -DPACKAGE_NAME=stressed -DSTRESSED_BUILD_TESTS=ON -DSTRESSED_OPTIMIZE=OFF '-DCMAKE_CXX_FLAGS=-O1 " +
        flags + " -fno-omit-frame-pointer' '-DKERNEL_OPTIONS=" + kernel_options + "' > " + log +
        " 2>&1 && cmake --build " + dir.path() + "/build --parallel 2 >> " + log + " 2>&1";
    const int built = std::system(command.c_str());
    INFO(read_file(log));
    REQUIRE(built == 0);
    return dir.path() + "/build";
  }
  return "";
}

// Runs `program` and requires a zero exit and `summary` in its output (a sanitizer report exits non-zero).
void run_clean(const std::string& program, const std::string& summary) {
  const std::string out = program.substr(0, program.find(' ')) + ".out";
  const int status = std::system((program + " > " + out + " 2>&1").c_str());
  const std::string output = read_file(out);
  INFO(output);
  CHECK(status == 0);
  CHECK_THAT(output, Catch::Contains(summary));
}

}  // namespace

TEST_CASE("a vendored package passes its self-test and the stress program under ASan and UBSan",
          "[package][sanitizers]") {
  ScratchDir dir;
  const std::string build =
      build_sanitized(dir, "-fsanitize=address,undefined -fno-sanitize-recover=all", 3, "-fno-sanitize=undefined");
  if (build.empty()) {
    WARN("skipped: this host runs neither AVX-512 nor AVX2");
    return;
  }
  // The self-test's --quick list still crosses every tile and block boundary; the stress program's random sweep and
  // argument checks run in full.
  run_clean(build + "/package/stressed_selftest --quick", " passed, 0 failed");
  run_clean(build + "/stress", " passed, 0 failed");
}

TEST_CASE("concurrent callers of a vendored package race on nothing under TSan", "[package][sanitizers]") {
  ScratchDir dir;
  const std::string build = build_sanitized(dir, "-fsanitize=thread", 1);
  if (build.empty()) {
    WARN("skipped: this host runs neither AVX-512 nor AVX2");
    return;
  }
  run_clean(build + "/stress --concurrency-only", " passed, 0 failed");
}
