// strata verify: a generated package builds with every compiler its target allows, warnings as errors, and passes
// its self-test (natively for x86-64, under qemu-aarch64 for AArch64); a broken package fails with one message
// naming the compiler and the first error. tools/setup.sh installs every tool used here, so a missing one is a
// failure, not a skip.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>

#include "test_util.h"

namespace fs = std::filesystem;
using namespace strata::test;

namespace {

// The descriptor of the best x86 ISA this host runs (its packages' self-tests can run here), or "" for none.
std::string host_x86_arch() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  if (__builtin_cpu_supports("avx512f") && fma) return "archs/zen4-avx512.yaml";
  if (__builtin_cpu_supports("avx2") && fma) return "archs/x86-avx2.yaml";
#endif
  return "";
}

// Generates a small package (level 0 modelled: profiling is not what is tested here) into dir/pkg.
std::string generate_small(const ScratchDir& dir, const std::string& arch,
                           const std::string& extra = "--no-profile") {
  const auto r = run_strata("generate --arch " + source_path(arch) + " --op " + source_path("ops/sgemm.yaml") + " " +
                                extra + " --max-kernels 1 -o pkg",
                            dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return dir.path() + "/pkg";
}

struct Shell {
  int exit_code;
  std::string out;
  std::string err;
};

// Runs the strata CLI with `args` under a shell `prefix` (e.g. "PATH=/x"), capturing its output.
Shell strata_with_env(const std::string& prefix, const std::string& args) {
  ScratchDir capture;
  const std::string out = capture.path() + "/out", err = capture.path() + "/err";
  const int status =
      std::system((prefix + " " + STRATA_CLI_PATH + " " + args + " >" + out + " 2>" + err + " </dev/null").c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : 128, read_file(out), read_file(err)};
}

}  // namespace

TEST_CASE("verify builds an x86 package with gcc and clang and runs its self-test", "[verify]") {
  const std::string arch = host_x86_arch();
  if (arch.empty()) {
    WARN("this host runs neither AVX-512 nor AVX2 + FMA: x86 packages cannot be self-tested here");
    return;
  }
  ScratchDir dir;
  const std::string pkg = generate_small(dir, arch);
  const auto r = run_strata("verify pkg --jobs 2 --build-dir build", dir.path());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("(target x86_64, ") && Catch::Contains("2 configurations"));
  // One line per configuration: label, verdict, what ran, and the compiler's own name for itself.
  CHECK(std::regex_search(r.out, std::regex(R"(\n  gcc +ok +built with -Werror in [0-9.]+ s; [0-9]+ passed, 0 )"
                                            R"(failed natively \([0-9.]+ s\) \[g\+\+ )")));
  CHECK(std::regex_search(r.out, std::regex(R"(\n  clang +ok +built with -Werror in [0-9.]+ s; [0-9]+ passed, )"
                                            R"(0 failed natively \([0-9.]+ s\) \[.*clang version)")));
  CHECK_THAT(r.out, Catch::EndsWith("verify: 2 of 2 configurations passed\n"));
  // --build-dir keeps each configuration's build, with the package's self-test binary in it.
  const std::string name = arch == "archs/zen4-avx512.yaml" ? "strata_sgemm_zen4_avx512" : "strata_sgemm_x86_avx2";
  CHECK(fs::exists(dir.path() + "/build/gcc/" + name + "_selftest"));
  CHECK(fs::exists(dir.path() + "/build/clang/" + name + "_selftest"));
}

TEST_CASE("verify fails with a clear message on a broken package", "[verify][bad]") {
  const std::string arch = host_x86_arch();
  if (arch.empty()) {
    WARN("this host runs neither AVX-512 nor AVX2 + FMA: x86 packages cannot be built and run here");
    return;
  }
  ScratchDir dir;
  const std::string pkg = generate_small(dir, arch);
  // Corrupt one kernel file: cut it off before its last line, as a bad copy would, so that its namespace is never
  // closed (a cut inside its leading comments would compile and fail only at the link).
  std::string kernel;
  for (const auto& entry : fs::directory_iterator(pkg + "/src/kernels")) kernel = entry.path().string();
  REQUIRE_FALSE(kernel.empty());
  const std::string text = read_file(kernel);
  const size_t last_line = text.rfind("}  // namespace");
  REQUIRE(last_line != std::string::npos);
  {
    std::ofstream out(kernel, std::ios::binary | std::ios::trunc);
    out << text.substr(0, last_line);
  }
  const auto r = run_strata("verify pkg --jobs 2 --only gcc", dir.path());
  INFO(r.out << r.err);
  CHECK(r.exit_code == 1);
  CHECK(std::regex_search(r.out, std::regex(R"(\n  gcc +FAIL +build failed: .*)" +
                                            fs::path(kernel).filename().string() + R"(:[0-9]+:[0-9]+: error: )")));
  // The error: one "strata: error:" line naming the package, the configuration and its compiler, and the
  // compiler's first error lines below it.
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: pkg: verification failed: 0 of 1 configurations passed; gcc "
                                      "(g++ "));
  CHECK_THAT(r.err, Catch::Contains("the build failed with warnings as errors") &&
                        Catch::Contains(fs::path(kernel).filename().string() + ":") && Catch::Contains("error: ") &&
                        Catch::Contains("rerun with --build-dir DIR"));
  CHECK_THAT(r.out, !Catch::Contains("configurations passed"));  // nothing claims success
}

TEST_CASE("verify says what is wrong before building anything", "[verify][bad]") {
  ScratchDir dir;
  // Not a package.
  fs::create_directories(dir.path() + "/empty");
  auto r = run_strata("verify empty", dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: empty/manifest.yaml: expected a Strata package's manifest"));
  r = run_strata("verify missing", dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: missing: is not a directory"));

  // A package (level 0 modelled; nothing here runs its kernels), then options and tools verify cannot use.
  const std::string pkg = generate_small(dir, "archs/x86-avx2.yaml");
  r = run_strata("verify pkg --only icc", dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: --only: 'icc' is not a configuration of target x86_64 (it "
                                      "has gcc, clang)"));
  // Without the compiler on PATH, the configuration fails naming what is missing and what installs it.
  fs::create_directories(dir.path() + "/nobin");
  const auto s = strata_with_env("PATH=" + dir.path() + "/nobin", "verify " + pkg + " --only clang");
  INFO(s.out << s.err);
  CHECK(s.exit_code == 1);
  CHECK_THAT(s.out, Catch::Contains("clang FAIL  clang++ is missing"));
  CHECK_THAT(s.err, Catch::Contains("clang++: tools/setup.sh installs it (Debian package clang)"));
}

TEST_CASE("verify cross-builds an AArch64 package with clang and lld and runs its self-test under qemu",
          "[verify][neon]") {
  ScratchDir dir;
  // No records and a host that cannot run NEON: generate models level 0, says so, and the manifest records it.
  const auto g = run_strata("generate --arch " + source_path("archs/neoverse-n1.yaml") + " --op " +
                                source_path("ops/sgemm.yaml") + " --max-kernels 1 -o pkg",
                            dir.path());
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
#if !defined(__aarch64__)
  CHECK_THAT(g.err, Catch::Contains("this host cannot run NEON micro-kernels, so level 0 is modelled") &&
                        Catch::Contains("strata profile-kit"));
  CHECK_THAT(read_file(dir.path() + "/pkg/manifest.yaml"),
             Catch::Contains("level0: \"modelled (Eq. 3): no profile records were used\""));
#endif
  const auto r = run_strata("verify pkg --jobs 2 --quick", dir.path());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("(target aarch64, neon), 1 configuration"));
#if defined(__aarch64__)
  CHECK_THAT(r.out, Catch::Contains(" passed, 0 failed natively"));
#else
  CHECK(std::regex_search(r.out, std::regex(R"(\n  clang-aarch64 +ok +built with -Werror in [0-9.]+ s; [0-9]+ )"
                                            R"(passed, 0 failed under qemu-aarch64 )")));
#endif
  CHECK_THAT(r.out, Catch::EndsWith("verify: 1 of 1 configurations passed\n"));
}
