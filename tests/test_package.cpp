// Generated packages build with gcc and clang (warnings as errors) and pass their self-test, which checks every
// kernel and the dispatcher against a reference on edge-case shapes at 1 and 2 threads (test_sanitizers.cpp runs it
// under sanitizers). Only the ISAs this host runs are tested.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/model.h"
#include "emit/cpu_package.h"
#include "emit/package.h"
#include "render/ukernel_dict.h"
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
                               const std::string& flags, const std::string& build_type, ScratchDir* keep = nullptr,
                               const std::string& options = "") {
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
                                "_WERROR=ON '-DCMAKE_CXX_FLAGS=" + flags + "' " + options + " > " + log + " 2>&1";
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

// Runs the package's bench on `shapes` at one thread (one call each, `extra` added to its options) and returns
// its CSV rows split into cells: category,M,N,K,threads,kernel,median_s,min_s,gflops,predicted_s.
std::vector<std::vector<std::string>> bench_rows(const std::string& bench, const std::string& extra,
                                                 const std::vector<std::array<int64_t, 3>>& shapes) {
  std::string args;
  for (const auto& s : shapes)
    args += " " + std::to_string(s[0]) + "," + std::to_string(s[1]) + "," + std::to_string(s[2]);
  ScratchDir out;
  const std::string command =
      bench + " --threads 1 --reps 1 --warmup 0 " + extra + args + " > " + out.path() + "/csv 2>/dev/null";
  REQUIRE(std::system(command.c_str()) == 0);
  std::istringstream csv(read_file(out.path() + "/csv"));
  std::string line;
  std::getline(csv, line);  // the header
  std::vector<std::vector<std::string>> rows;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::istringstream row(line);
    for (std::string cell; std::getline(row, cell, ',');) cells.push_back(cell);
    INFO(line);
    REQUIRE(cells.size() == 10);
    rows.push_back(cells);
  }
  REQUIRE(rows.size() == shapes.size());
  return rows;
}

// The package's dispatcher runs the generator's model (the same cost_model.h and constants) for the packed path: at
// one thread, for every shape it packs, it must pick the kernel the generator's model ranks first and predict the
// same time. The direct path has an estimate of its own (direct_seconds in dispatch.cpp), and so does a packed call
// whose B is streamed (streamed_work): for shapes it runs in place, or streams B for, the pick must be the kernel
// with the least prediction among those forced by id.
void check_dispatcher_choices(const Isa& isa, const std::string& bench) {
  const strata::Arch arch = strata::load_arch(source_path(isa.arch));
  const strata::Op op = strata::load_op(source_path("ops/sgemm.yaml"));
  const auto records =
      strata::load_records(source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml"));
  const auto sieve = strata::run_sieve(arch, op).at(0);
  strata_model::Machine machine = strata::make_machine(arch, op, sieve);
  const auto level0 = strata::level0_seconds_from(arch, op, sieve, records);
  const auto selection =
      strata::select_kernels(sieve, machine, level0, strata::select_options_for(arch, op, sieve, machine));
  machine.level[machine.num_levels - 1].parallel_units = 1;

  // Packed: more rows and columns than any register tile, A and B too big for the direct path, and more rows than
  // any kernel's blocks over a streamed B take (see streamed_rows in dispatch.cpp; none of these streams on the
  // shipped descriptors' examples).
  const std::vector<std::array<int64_t, 3>> packed = {{4096, 512, 512}, {3500, 513, 513}, {4096, 600, 300}};
  const auto packed_rows = bench_rows(bench, "", packed);
  for (size_t i = 0; i < packed.size(); ++i) {
    int best = -1;
    double best_s = 0;
    for (size_t k = 0; k < selection.kernels.size(); ++k) {
      const double t = strata_model::estimate(machine, selection.kernels[k].tiling, packed[i].data()).total_s;
      if (best < 0 || t < best_s) {
        best = static_cast<int>(k);
        best_s = t;
      }
    }
    const auto& cells = packed_rows[i];
    INFO(cells[1] << "x" << cells[2] << "x" << cells[3]);
    CHECK(std::stoi(cells[5]) == best);
    CHECK(std::stod(cells[9]) == Approx(best_s).epsilon(1e-6));
  }

  // A single row of tiles that are one vector wide and taller than direct_tile_rows() is packed, not run in place
  // (their row offsets would not fit in the general registers): forced to such a kernel, a row of full tiles gets
  // the packed estimate.
  const int64_t lanes = arch.isa.vector_bits / 32;
  for (size_t k = 0; k < selection.kernels.size(); ++k) {
    const auto& reg = selection.kernels[k].tiling.tile[0];
    if (reg[1] > lanes || reg[0] <= strata::direct_tile_rows(arch.isa.vector)) continue;
    const std::array<int64_t, 3> row_of_tiles = {reg[0], 300, 500};
    const auto forced = bench_rows(bench, "--kernel " + std::to_string(k), {row_of_tiles});
    INFO("kernel " << k << ": " << reg[0] << "x" << reg[1] << " tiles, " << reg[0] << "x300x500");
    const double packed_s = strata_model::estimate(machine, selection.kernels[k].tiling, row_of_tiles.data()).total_s;
    CHECK(std::stod(forced[0][9]) == Approx(packed_s).epsilon(1e-6));
  }

  // Direct: a single row or column of tiles, or a problem that fits in cache. And a few rows of tiles over a large B,
  // which some kernels stream (128x768x768 on both shipped x86 descriptors, 64x4096x1024 on the AVX-512 one); the
  // check holds for packed plans as well.
  const std::vector<std::array<int64_t, 3>> direct = {{1, 1, 1},       {7, 300, 61},    {1000, 17, 2048},
                                                      {8, 4096, 1024}, {128, 768, 768}, {64, 4096, 1024}};
  const auto chosen = bench_rows(bench, "", direct);
  std::vector<std::vector<double>> forced_s(direct.size());  // [shape][kernel id]: prediction with that kernel
  for (size_t k = 0; k < selection.kernels.size(); ++k) {
    const auto forced = bench_rows(bench, "--kernel " + std::to_string(k), direct);
    for (size_t i = 0; i < direct.size(); ++i) forced_s[i].push_back(std::stod(forced[i][9]));
  }
  for (size_t i = 0; i < direct.size(); ++i) {
    const auto& cells = chosen[i];
    INFO(cells[1] << "x" << cells[2] << "x" << cells[3]);
    const double least = *std::min_element(forced_s[i].begin(), forced_s[i].end());
    const int id = std::stoi(cells[5]);
    REQUIRE(id >= 0);
    REQUIRE(static_cast<size_t>(id) < forced_s[i].size());
    CHECK(std::stod(cells[9]) == Approx(least).epsilon(1e-6));
    CHECK(forced_s[i][static_cast<size_t>(id)] == Approx(least).epsilon(1e-6));
  }
}

}  // namespace

// Each ISA the host runs is built once, the compilers taking turns (gcc for the first, clang for the next), so both
// compilers build a package and every ISA is tested; a host that runs one ISA builds it with both.
TEST_CASE("generated packages build with gcc and clang and pass their self-test", "[package]") {
  std::vector<Isa> runnable;
  for (const Isa& isa : isas()) {
    if (isa.supported)
      runnable.push_back(isa);
    else
      WARN("skipped " << isa.name << ": this host does not run it");
  }
  for (size_t i = 0; i < runnable.size(); ++i) {
    const Isa& isa = runnable[i];
    INFO(isa.name);
    ScratchDir dir;
    const std::string src = generate_example(isa, dir);
    const bool clang = have("clang++");
    if (!clang) WARN("skipped the clang build: clang++ not found");
    const std::string first = i % 2 == 1 && clang ? "clang++" : "g++";
    ScratchDir first_build;
    build_and_selftest(src, isa.example, first, "", "Release", &first_build);
    check_dispatcher_choices(isa, first_build.path() + "/" + isa.example + "_bench");
    if (runnable.size() == 1 && clang) build_and_selftest(src, isa.example, "clang++", "", "Release");
  }
}

// Convolution packages for the x86 ISAs this host runs: the spec with every size, stride, padding and dilation given
// per call, and one that fixes the stride and padding with an RSCK filter (the gather then reads constants, and the
// self-test's cases take the fixed values) and its epilogue (bias and ReLU; the self-test's epilogue calls give it).
// The self-test checks its convolutions against a direct reference.
// Two kernels each: the GEMM package test builds every kernel of the selection, and the convolution's own code (the
// gather, the paths that use it) is the same for each.
TEST_CASE("convolution packages build and pass their self-test", "[package][conv]") {
  const std::string runtime_spec = read_file(source_path("ops/conv2d_nhwc.yaml"));
  std::string fixed_spec = runtime_spec;
  const auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = fixed_spec.find(from);
    REQUIRE(at != std::string::npos);
    fixed_spec.replace(at, from.size(), to);
  };
  replace("filter_layout: krsc\n", "filter_layout: rsck\n");
  replace("output_layout: nhwc\n", "output_layout: nhwc\n  stride: [1, 2]\n  padding: [1, 0]\n");
  replace("      store: write_c\n", "      store: [write_c, bias_per_column, relu]\n");  // a fixed epilogue too
  // Two builds: the host's ISAs each take one spec, or the one ISA takes both.
  std::vector<std::pair<Isa, bool>> builds;
  for (const Isa& isa : isas())
    if (isa.supported) builds.emplace_back(isa, !builds.empty());
  if (builds.size() == 1) builds.emplace_back(builds[0].first, true);
  for (const auto& [isa, fixed] : builds) {
    INFO(isa.name << (fixed ? ", stride and padding fixed, RSCK" : ", all per call"));
    ScratchDir dir;
    const std::string spec = dir.write("conv.yaml", fixed ? fixed_spec : runtime_spec);
    const std::string records = source_path(std::string("emitted_examples/") + isa.example + "/profile_records.yaml");
    const auto gen = run_strata(std::string("generate --arch ") + source_path(isa.arch) + " --op " + spec +
                                    " --profile " + records + " --max-kernels 2 -o pkg --name conv_pkg",
                                dir.path());
    INFO(gen.err);
    REQUIRE(gen.exit_code == 0);
    const std::string header = read_file(dir.path() + "/pkg/include/conv_pkg.h");
    CHECK_THAT(header, Catch::Contains("conv_pkg_conv2d(const conv_pkg_conv2d_t* conv"));
    const std::string config = read_file(dir.path() + "/pkg/src/config.h");
    CHECK_THAT(config, Catch::Contains(fixed ? "kConvStrideH = 1, kConvStrideW = 2"
                                             : "kConvStrideH = kConvRuntime, kConvStrideW = kConvRuntime"));
    CHECK_THAT(config, Catch::Contains(fixed ? "kConvFilterKrsc = false" : "kConvFilterKrsc = true"));
    CHECK_THAT(config, Catch::Contains(fixed ? "kEpilogueFixed = true" : "kEpilogueFixed = false"));
    if (fixed) CHECK_THAT(config, Catch::Contains("kFixedBias = 1;") && Catch::Contains("kFixedActivation = 1;"));
    const std::string output = build_and_selftest(dir.path() + "/pkg", "conv_pkg", "g++", "", "Release");
    CHECK_THAT(output, !Catch::Contains("skipped"));
  }
}
