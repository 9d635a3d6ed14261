// Generated packages build with gcc and clang (warnings as errors) and pass their self-test, which checks every
// kernel and the dispatcher against a reference on edge-case shapes at 1 and 2 threads; one configuration runs
// under AddressSanitizer and UndefinedBehaviorSanitizer. Only the ISAs this host runs are tested.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "test_util.h"

using namespace strata::test;

namespace {

struct Isa {
  const char* name;
  const char* arch;
  const char* example;
  bool supported;
};

std::vector<Isa> isas() {
  __builtin_cpu_init();
  const bool fma = __builtin_cpu_supports("fma");
  return {{"AVX-512", "archs/zen4-avx512.yaml", "strata_sgemm_zen4_avx512", __builtin_cpu_supports("avx512f") && fma},
          {"AVX2", "archs/x86-avx2.yaml", "strata_sgemm_x86_avx2", __builtin_cpu_supports("avx2") && fma}};
}

bool have(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

// Configures, builds and runs the self-test of the package in `src`; returns the self-test's output.
std::string build_and_selftest(const std::string& src, const std::string& name, const std::string& cxx,
                               const std::string& flags, const std::string& build_type) {
  ScratchDir build;
  const std::string upper = [&] {
    std::string u = name;
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }();
  const std::string log = build.path() + "/log";
  const std::string configure = "cmake -S " + src + " -B " + build.path() + " -DCMAKE_CXX_COMPILER=" + cxx +
                                " -DCMAKE_BUILD_TYPE=" + build_type + " -D" + upper +
                                "_WERROR=ON '-DCMAKE_CXX_FLAGS=" + flags + "' > " + log + " 2>&1";
  INFO(read_file(log));
  REQUIRE(std::system(configure.c_str()) == 0);
  const std::string compile = "cmake --build " + build.path() + " --parallel 2 >> " + log + " 2>&1";
  const int built = std::system(compile.c_str());
  INFO(read_file(log));
  REQUIRE(built == 0);
  const std::string out = build.path() + "/selftest.out";
  const int ran = std::system((build.path() + "/" + name + "_selftest > " + out + " 2>&1").c_str());
  const std::string output = read_file(out);
  INFO(output);
  CHECK(ran == 0);
  CHECK_THAT(output, Catch::Contains(" passed, 0 failed"));
  return output;
}

}  // namespace

TEST_CASE("generated packages build with gcc and clang and pass their self-test", "[package]") {
  for (const Isa& isa : isas()) {
    if (!isa.supported) {
      WARN("skipped " << isa.name << ": this host does not run it");
      continue;
    }
    INFO(isa.name);
    // Generate from the committed records: fast, and independent of this host's timing noise.
    ScratchDir dir;
    const std::string records = source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml");
    const auto gen =
        run_strata(std::string("generate --arch ") + source_path(isa.arch) + " --op " +
                       source_path("ops/sgemm.yaml") + " --profile " + records + " -o pkg --name " + isa.example,
                   dir.path());
    REQUIRE(gen.exit_code == 0);
    const std::string src = dir.path() + "/pkg";
    build_and_selftest(src, isa.example, "g++", "", "Release");
    if (have("clang++"))
      build_and_selftest(src, isa.example, "clang++", "", "Release");
    else
      WARN("skipped the clang build: clang++ not found");
  }
}

TEST_CASE("a generated package passes its self-test under ASan and UBSan", "[package][sanitizers]") {
  for (const Isa& isa : isas()) {
    if (!isa.supported) continue;
    ScratchDir dir;
    const std::string records = source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml");
    const auto gen =
        run_strata(std::string("generate --arch ") + source_path(isa.arch) + " --op " +
                       source_path("ops/sgemm.yaml") + " --profile " + records + " -o pkg --name " + isa.example,
                   dir.path());
    REQUIRE(gen.exit_code == 0);
    build_and_selftest(dir.path() + "/pkg", isa.example, "g++",
                       "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer",
                       "RelWithDebInfo");
    return;  // one configuration is enough: the widest ISA the host runs
  }
  WARN("skipped: this host runs neither AVX-512 nor AVX2");
}
