// A generated CPU package's cblas_sgemm against OpenBLAS's cblas_sgemm: every order x transA x transB (ConjTrans
// included) on edge shapes, padded leading dimensions and alpha/beta pairs, at one and two threads
// (tests/cblas_check/). The package is the widest ISA this host runs, from the committed records, three kernels.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <string>

#include "test_util.h"

using namespace strata::test;

TEST_CASE("a package's cblas_sgemm agrees with OpenBLAS on every order and transpose", "[package][cblas]") {
  __builtin_cpu_init();
  const bool avx512 = __builtin_cpu_supports("avx512f");
  if (!__builtin_cpu_supports("fma") || !__builtin_cpu_supports("avx2")) {
    WARN("this host runs neither example's ISA; nothing to check");
    return;
  }
  const std::string example = avx512 ? "strata_sgemm_zen4_avx512" : "strata_sgemm_x86_avx2";
  const std::string arch = avx512 ? "archs/zen4-avx512.yaml" : "archs/x86-avx2.yaml";
  ScratchDir dir;
  const auto gen = run_strata("generate --max-kernels 3 --name blas --arch " + source_path(arch) + " --op " +
                                  source_path("ops/sgemm.yaml") + " --profile " +
                                  source_path("emitted_examples/" + example + "/profile_records.yaml") + " -o pkg",
                              dir.path());
  INFO(gen.err);
  REQUIRE(gen.exit_code == 0);
  const std::string log = dir.path() + "/build.log";
  const std::string build = "cmake -S " + source_path("tests/cblas_check") + " -B " + dir.path() +
                            "/build -DPACKAGE_DIR=" + dir.path() +
                            "/pkg -DPACKAGE_NAME=blas -DCMAKE_BUILD_TYPE=Release > " + log +
                            " 2>&1 && cmake --build " + dir.path() + "/build --parallel 2 >> " + log + " 2>&1";
  const int built = std::system(build.c_str());
  INFO(read_file(log));
  REQUIRE(built == 0);
  const std::string out = dir.path() + "/check.out";
  const int status = std::system((dir.path() + "/build/cblas_check > " + out + " 2>&1").c_str());
  const std::string output = read_file(out);
  INFO(output);
  CHECK(status == 0);
  CHECK_THAT(output, Catch::Contains(", 0 disagreed"));
}
