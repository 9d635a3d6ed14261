// Generated packages build with gcc and clang (warnings as errors) and pass their self-test, which checks every
// kernel and the dispatcher against a reference on edge-case shapes at 1 and 2 threads; one configuration runs
// under AddressSanitizer and UndefinedBehaviorSanitizer. Only the ISAs this host runs are tested.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>

#include "analyze/model.h"
#include "emit/cpu_package.h"
#include "select/select.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
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

// Configures, builds and runs the self-test of the package in `src`; returns the self-test's output. With `keep`,
// the build directory is `keep` and stays.
std::string build_and_selftest(const std::string& src, const std::string& name, const std::string& cxx,
                               const std::string& flags, const std::string& build_type, ScratchDir* keep = nullptr) {
  ScratchDir own;
  ScratchDir& build = keep ? *keep : own;
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

// Generates the example package of `isa` into dir/pkg from its committed records (fast, and independent of this
// host's timing noise) and returns that path.
std::string generate_example(const Isa& isa, const ScratchDir& dir) {
  const std::string records = source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml");
  const auto gen =
      run_strata(std::string("generate --arch ") + source_path(isa.arch) + " --op " + source_path("ops/sgemm.yaml") +
                     " --profile " + records + " -o pkg --name " + isa.example,
                 dir.path());
  REQUIRE(gen.exit_code == 0);
  return dir.path() + "/pkg";
}

// The package's dispatcher runs the generator's model (the same cost_model.h and constants): at one thread, for
// every shape, it must pick the kernel the generator's model ranks first and predict the same time.
void check_same_choice_as_generator(const Isa& isa, const std::string& bench) {
  const strata::Arch arch = strata::load_arch(source_path(isa.arch));
  const strata::Op op = strata::load_op(source_path("ops/sgemm.yaml"));
  const auto records =
      strata::load_records(source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  strata_model::Machine machine = strata::make_machine(arch, op, sieve);
  const auto level0 = strata::level0_seconds_from(arch, op, sieve, records);
  const auto selection = strata::select_kernels(sieve, machine, level0, strata::SelectOptions{});
  machine.level[machine.num_levels - 1].parallel_units = 1;
  const std::vector<std::array<int64_t, 3>> shapes = {{1, 1, 1},        {7, 300, 61},    {128, 768, 768},
                                                      {1000, 17, 2048}, {513, 513, 513}, {8, 4096, 1024}};
  std::string args;
  for (const auto& s : shapes)
    args += " " + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]);
  ScratchDir out;
  REQUIRE(std::system((bench + " --threads 1 --reps 1 --warmup 0" + args + " > " + out.path() + "/csv 2>/dev/null")
                          .c_str()) == 0);
  std::istringstream csv(read_file(out.path() + "/csv"));
  std::string line;
  std::getline(csv, line);  // header: category,M,N,K,threads,kernel,median_s,min_s,gflops,predicted_s
  for (const auto& shape : shapes) {
    REQUIRE(std::getline(csv, line));
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    REQUIRE(cells.size() == 10);
    int best = -1;
    double best_s = 0;
    for (size_t k = 0; k < selection.kernels.size(); ++k) {
      const double t = strata_model::estimate(machine, selection.kernels[k].tiling, shape.data()).total_s;
      if (best < 0 || t < best_s) {
        best = static_cast<int>(k);
        best_s = t;
      }
    }
    INFO(line);
    CHECK(std::stoi(cells[5]) == best);
    CHECK(std::stod(cells[9]) == Approx(best_s).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("generated packages build with gcc and clang and pass their self-test", "[package]") {
  for (const Isa& isa : isas()) {
    if (!isa.supported) {
      WARN("skipped " << isa.name << ": this host does not run it");
      continue;
    }
    INFO(isa.name);
    ScratchDir dir;
    const std::string src = generate_example(isa, dir);
    ScratchDir gcc_build;
    build_and_selftest(src, isa.example, "g++", "", "Release", &gcc_build);
    check_same_choice_as_generator(isa, gcc_build.path() + "/" + isa.example + "_bench");
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
    build_and_selftest(generate_example(isa, dir), isa.example, "g++",
                       "-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer",
                       "RelWithDebInfo");
    return;  // one configuration is enough: the widest ISA the host runs
  }
  WARN("skipped: this host runs neither AVX-512 nor AVX2");
}
