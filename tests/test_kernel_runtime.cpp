// The fixed kernel sources (templates/cpu/runtime/) checked in Strata's own build, for every x86 vector layer this
// host runs: tests/runtime/kernel_runtime_check.cpp, compiled per ISA (tests/CMakeLists.txt).
#include <catch2/catch.hpp>
#include <string>

#if defined(__x86_64__)
int strata_runtime_check_avx2(int* checks, std::string* first);
int strata_runtime_check_avx512(int* checks, std::string* first);

TEST_CASE("the fixed kernel sources compute GEMM on odd tiles, edges and flags", "[runtime]") {
  __builtin_cpu_init();
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const bool avx512 = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("fma");
  if (!avx2) WARN("this host lacks AVX2 + FMA: the fixed kernel sources are compiled here but not run");
  for (const auto& [runs, name, entry] : {std::tuple{avx2, "AVX2", &strata_runtime_check_avx2},
                                          std::tuple{avx512, "AVX-512", &strata_runtime_check_avx512}}) {
    if (!runs) continue;
    INFO(name);
    int checks = 0;
    std::string first;
    const int failures = entry(&checks, &first);
    INFO(first);
    CHECK(failures == 0);
    CHECK(checks > 1000);
  }
}
#endif
