// The CUDA backend: generation, and what can be verified without a GPU. The emitted CUDA packages are compiled
// with nvcc for their GPU's architecture (sm_80 for the A100, sm_90a for the H100) and their ptxas reports are
// checked against the descriptor (no spills, registers and shared memory within limits); their host code compiles
// with warnings as errors, and their self-tests link and run (on a machine without a GPU they check arguments and
// plans, then report themselves skipped). The kernels' numerical checks and the cuBLAS comparison need a GPU and are
// not run here.
//
// These tests need nvcc. Without it they fail and say so: a CUDA backend that was never compiled is not tested.
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cctype>
#include <cinttypes>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "analyze/model.h"
#include "analyze/wgmma_family.h"
#include "emit/cuda_package.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "test_util.h"
#include "verify/ptxas_check.h"
#include "verify/targets.h"

using namespace strata;
using namespace strata::test;
namespace fs = std::filesystem;

namespace {

struct Example {
  const char* arch;
  const char* op;
};
// The fp16 packages of both GPUs (mma.sync, CUDA-core partners, and on the H100 wgmma), the A100's as a convolution
// package (its GEMM kernels and their gathering variants), one fp32 GEMM package (the a100 fp32 one differs from
// the h100's only in its tiles) and the fp32 convolution package (CUDA cores reading B stored N x K).
constexpr Example kExamples[] = {
    {"a100", "conv2d_nhwc_tc"}, {"h100", "hgemm_tc"}, {"h100", "sgemm"}, {"a100", "conv2d_nhwc"}};

// The same options as the CUDA lines of emitted_examples/commands.txt.
std::string generate(const ScratchDir& dir, const Example& e) {
  const std::string out = dir.path() + "/strata_" + e.op + "_" + e.arch;
  const RunResult r = run_strata(std::string("generate --arch archs/") + e.arch + ".yaml --op ops/" + e.op +
                                     ".yaml --no-profile --max-kernels 4 -o " + out,
                                 source_path(""));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return out;
}

struct Shell {
  int exit_code;
  std::string output;  // stdout and stderr together
};

Shell shell(const std::string& command) {
  Shell s{-1, ""};
  FILE* pipe = popen(("LC_ALL=C " + command + " 2>&1").c_str(), "r");
  if (!pipe) return s;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) s.output.append(buffer, n);
  const int status = pclose(pipe);
  s.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return s;
}

void require_nvcc() {
  if (!program_exists("nvcc"))
    FAIL(
        "nvcc is not on PATH, so the CUDA packages cannot be compiled or their ptxas limits checked. Install the "
        "CUDA toolkit (12.0 or later) and put its bin/ on PATH, or exclude these tests with '~[nvcc]'.");
}

// The toolkit's root: nvcc lives in <root>/bin.
std::string cuda_root() {
  const Shell s = shell("command -v nvcc");
  std::string path = s.output.substr(0, s.output.find('\n'));
  return fs::canonical(path).parent_path().parent_path().string();
}

std::string join(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// The first line of `text` that starts with `prefix`, or "".
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (size_t at = 0; at < text.size();) {
    const size_t end = std::min(text.find('\n', at), text.size());
    if (text.compare(at, prefix.size(), prefix) == 0) return text.substr(at, end - at);
    at = end + 1;
  }
  return "";
}

std::vector<std::string> kernel_sources(const std::string& package) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(package + "/src/kernels"))
    if (entry.path().extension() == ".cu") out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// The dispatcher evaluates the model with its own copy of the whole-block formula (estimate_blocks in
// templates/cuda/dispatch.cpp.tpl, beside the verbatim cost_model.h and gpu_model.h); the generator ranks with
// estimate_gpu() (estimate_whole() where the descriptor does not model occupancy).
// A probe linked against the package prints each kernel's plan for shapes big enough that no split-K is
// considered, and every prediction must equal the generator's for the same tiles.
void check_dispatcher_model(const Example& e, const std::string& pkg, const ScratchDir& dir,
                            const std::string& objects, const std::string& root) {
  const std::string name = std::string("strata_") + e.op + "_" + e.arch;
  const std::string probe =
      dir.write("probe.cpp", "#include \"" + name +
                                 ".h\"\n"
                                 "#include <cstdio>\n"
                                 "int main() {\n"
                                 "  const long long shapes[][3] = {{4096, 4096, 4096}, {3000, 2048, 777}};\n"
                                 "  for (int id = 0; id < " +
                                 name +
                                 "_kernel_count(); ++id)\n"
                                 "    for (const auto& s : shapes) {\n"
                                 "      " +
                                 name +
                                 "_plan_t p;\n"
                                 "      " +
                                 name +
                                 "_kernel_plan(id, s[0], s[1], s[2], &p);\n"
                                 "      std::printf(\"%d %lld %lld %lld %d %.17g\\n\", id, s[0], s[1], "
                                 "s[2], p.split_k, p.predicted_seconds);\n"
                                 "    }\n"
                                 "}\n");
  const Shell build =
      shell("c++ -std=c++17 -I" + pkg + "/include -o " + dir.path() + "/probe " + probe + " " + dir.path() +
            "/dispatch.o" + objects + " -L" + root + "/lib64 -lcudart -Wl,-rpath," + root + "/lib64");
  INFO(build.output);
  REQUIRE(build.exit_code == 0);
  const Shell run = shell(dir.path() + "/probe");
  REQUIRE(run.exit_code == 0);

  const Arch arch = load_arch(source_path(std::string("archs/") + e.arch + ".yaml"));
  const Op op = load_op(source_path(std::string("ops/") + e.op + ".yaml"));
  const SieveResult sieve = run_sieve(arch, op).at(0);
  const strata_model::Machine machine = make_machine(arch, op, sieve);
  // The wgmma kernels run on their family's machine and SM parameters.
  const SieveResult family = wgmma_family(arch, op);
  const strata_model::Machine wgmma = wgmma_machine(arch, op, family);
  const YAML::Node kernels = YAML::LoadFile(pkg + "/manifest.yaml")["kernels"];
  int compared = 0;
  std::istringstream lines(run.output);
  for (std::string line; std::getline(lines, line);) {
    int id = 0, split = 0;
    int64_t shape[3] = {};
    double predicted = 0;
    REQUIRE(std::sscanf(line.c_str(), "%d %" SCNd64 " %" SCNd64 " %" SCNd64 " %d %lf", &id, &shape[0], &shape[1],
                        &shape[2], &split, &predicted) == 6);
    const YAML::Node k = kernels[static_cast<size_t>(id)];
    // The CUDA-core partners of an fp16 package run on another unit's model; the main unit is the sieve's.
    const bool wgmma_kernel = k["unit"].as<std::string>() == "wgmma";
    if (k["unit"].as<std::string>() != to_string(sieve.unit) && !wgmma_kernel) continue;
    REQUIRE(split == 1);
    strata_model::Tiling t{};
    for (size_t l = 0; l < 3; ++l)
      for (size_t a = 0; a < 3; ++a) t.tile[l][a] = k["tiles"][l]["tile"][a].as<int64_t>();
    if (k["level0_modelled_seconds"]) t.l0_measured_s = k["level0_modelled_seconds"].as<double>();
    const int64_t occupancy = k["blocks_per_sm"] ? k["blocks_per_sm"].as<int64_t>() : 0;
    INFO(k["name"].as<std::string>() << " on " << shape[0] << "x" << shape[1] << "x" << shape[2]);
    const double expected = wgmma_kernel    ? estimate_gpu(wgmma, wgmma_sm(arch), t, occupancy, shape).total_s
                            : occupancy > 0 ? estimate_gpu(machine, gpu_sm(arch), t, occupancy, shape).total_s
                                            : estimate_whole(machine, t, shape, 2).total_s;
    CHECK(predicted == Approx(expected).epsilon(1e-12));
    ++compared;
  }
  CHECK(compared >= 2);
}

// Each example is compiled for its own GPU's architecture (the A100's sm_80, the H100's sm_90a, which its package
// builds by default): ptxas's limits are the descriptor's, and the other architecture would compile every kernel
// again for a GPU the package was not generated for.
constexpr char kNvccFlags[] =
    "-c -std=c++17 -O3 -Xptxas -v -Werror all-warnings -Xcompiler -Wall,-Wextra,-Werror -gencode ";
std::string gencode(const Example& e) {
  return std::string(e.arch) == "a100" ? "arch=compute_80,code=sm_80" : "arch=compute_90a,code=sm_90a";
}

}  // namespace

TEST_CASE("ptxas reports are parsed per kernel and checked against the limits", "[cuda]") {
  const std::string report =
      "[1/3] Building CUDA object CMakeFiles/p.dir/src/kernels/k0_tc.cu.o\n"
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Compiling entry function '_Z2k0v' for 'sm_80'\n"
      "ptxas info    : Function properties for _Z2k0v\n"
      "    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 128 registers, used 1 barriers, 464 bytes cmem[0]\n"
      "[2/3] Building CUDA object CMakeFiles/p.dir/src/kernels/k1_fma.cu.o\n"
      "ptxas info    : Compiling entry function '_Z2k1v' for 'sm_90'\n"
      "ptxas info    : Function properties for _Z6helperv\n"
      "    8 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Function properties for _Z2k1v\n"
      "    16 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
      "ptxas info    : Used 255 registers, 1024 bytes smem, 400 bytes cmem[0]\n";
  const auto kernels = parse_ptxas_report(report);
  REQUIRE(kernels.size() == 2);
  CHECK(kernels[0].source == "k0_tc");
  CHECK(kernels[0].arch == "sm_80");
  CHECK(kernels[0].registers == 128);
  CHECK(kernels[0].spill_store_bytes == 0);
  CHECK(kernels[1].source == "k1_fma");
  CHECK(kernels[1].arch == "sm_90");
  CHECK(kernels[1].registers == 255);
  CHECK(kernels[1].stack_bytes == 16);  // the entry's frame, not the helper's
  CHECK(kernels[1].spill_store_bytes == 12);
  CHECK(kernels[1].spill_load_bytes == 20);
  CHECK(kernels[1].static_shared_bytes == 1024);

  CudaLimits limits;
  limits.registers_per_thread_max = 255;
  limits.registers_per_sm = 65536;
  limits.shared_memory_per_block_bytes = 166912;
  limits.kernels["k0_tc"] = {256, 100000};
  limits.kernels["k1_fma"] = {128, 1000};
  const auto problems = check_ptxas_report(kernels, limits);
  INFO(join(problems));
  REQUIRE(problems.size() == 2);  // k1 spills and has a stack frame; k0 is within every limit
  CHECK_THAT(problems[0], Catch::Contains("k1_fma (sm_90") && Catch::Contains("spills registers"));
  CHECK_THAT(problems[1], Catch::Contains("stack frame"));

  SECTION("each limit can fail") {
    auto over = kernels;
    over.resize(1);
    limits.registers_per_thread_max = 127;
    CHECK_THAT(join(check_ptxas_report(over, limits)), Catch::Contains("128 registers per thread, more than"));
    limits.registers_per_thread_max = 255;
    limits.kernels["k0_tc"] = {1024, 100000};  // 128 x 1024 > 65536
    CHECK_THAT(join(check_ptxas_report(over, limits)), Catch::Contains("exceed one SM's 65536 registers"));
    limits.kernels["k0_tc"] = {256, 166913};
    CHECK_THAT(join(check_ptxas_report(over, limits)), Catch::Contains("dynamic shared memory exceed"));
    CHECK_THAT(join(check_ptxas_report({}, limits)), Catch::Contains("no ptxas report found"));
  }
}

TEST_CASE("CUDA generation models levels 0 and 1, says so, and restricts selection to what the templates emit",
          "[cuda]") {
  ScratchDir dir;
  const RunResult r =
      run_strata("generate --arch archs/a100.yaml --op ops/hgemm_tc.yaml --max-kernels 3 -o " + dir.path() + "/p",
                 source_path(""));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, Catch::Contains("levels 0 and 1 are modelled"));
  const std::string manifest = read_file(dir.path() + "/p/manifest.yaml");
  CHECK_THAT(manifest, Catch::Contains("level0: \"modelled") && Catch::Contains("level1: \"modelled"));
  CHECK_THAT(manifest, Catch::Contains("unit: tensor_core") && Catch::Contains("unit: cuda_core"));
  CHECK_THAT(manifest, Catch::Contains("grid_max_m: 16"));  // the CUDA-core partners are chosen for tiny M
  // Selection sees only the warp tiles the templates emit: m16n8k16 fragments, two n8 tiles per B ldmatrix.
  const Arch arch = load_arch(source_path("archs/a100.yaml"));
  const Op op = load_op(source_path("ops/hgemm_tc.yaml"));
  const SieveResult sieve = run_sieve(arch, op).at(0);
  const std::vector<bool> allowed = cuda_emittable_level0(arch, op, sieve);
  REQUIRE(allowed.size() == sieve.levels[0].candidates.size());
  size_t kept = 0;
  for (size_t i = 0; i < allowed.size(); ++i) {
    const Candidate& c = sieve.levels[0].candidates[i];
    const MmaShape& mma = arch.isa.mma.at(static_cast<size_t>(c.mma_index));
    const bool emittable = mma.m == 16 && mma.n == 8 && mma.k == 16 && c.tile[1] % 16 == 0;
    CHECK(allowed[i] == emittable);
    kept += allowed[i] ? 1 : 0;
  }
  CHECK(kept > 0);
  CHECK(kept < allowed.size());  // the m16n8k8 tiles and odd n8 counts are left out
  // Records from a host profiler cannot describe a GPU.
  const RunResult bad = run_strata("generate --arch archs/a100.yaml --op ops/sgemm.yaml --profile " +
                                       dir.write("r.yaml", "x: 1\n") + " -o " + dir.path() + "/q",
                                   source_path(""));
  CHECK(bad.exit_code == 1);
  CHECK_THAT(bad.err, Catch::Contains("r.yaml") && Catch::Contains("no GPU profiler"));
}

TEST_CASE("CUDA packages compile with nvcc for sm_80 and sm_90a within the descriptor's limits", "[cuda][nvcc]") {
  require_nvcc();
  const std::string root = cuda_root();
  const std::string host_flags = "-std=c++17 -O2 -Wall -Wextra -Wpedantic -Werror -isystem " + root + "/include";
  for (const Example& e : kExamples) {
    DYNAMIC_SECTION(e.op << " for " << e.arch) {
      ScratchDir dir;
      const std::string pkg = generate(dir, e);
      const std::string includes = " -I" + pkg + "/src -I" + pkg + "/include ";
      const CudaLimits limits = read_cuda_limits(pkg + "/manifest.yaml");
      std::vector<PtxasKernel> reports;
      std::string objects;
      for (const std::string& cu : kernel_sources(pkg)) {
        const std::string object = dir.path() + "/" + fs::path(cu).stem().string() + ".o";
        const Shell s = shell(std::string("nvcc ") + kNvccFlags + gencode(e) + includes + cu + " -o " + object);
        INFO(cu << "\n" << s.output);
        REQUIRE(s.exit_code == 0);
        const auto parsed = parse_ptxas_report(s.output, fs::path(cu).stem().string());
        reports.insert(reports.end(), parsed.begin(), parsed.end());
        objects += " " + object;
      }
      // Two instantiations per cp.async kernel (aligned and element-wise loads), each also gathering a
      // convolution's A in convolution packages, one per wgmma kernel (tensor maps only), the reduction, and the
      // transpose for 2- and 4-byte elements.
      const bool conv = std::string(e.op).rfind("conv2d", 0) == 0;
      size_t instantiations = 3;
      bool wgmma = false;
      for (const auto& k : YAML::LoadFile(pkg + "/manifest.yaml")["kernels"]) {
        wgmma = wgmma || k["unit"].as<std::string>() == "wgmma";
        instantiations += k["unit"].as<std::string>() == "wgmma" ? 1 : conv ? 4 : 2;
      }
      CHECK(!(conv && wgmma));
      CHECK(reports.size() == instantiations);
      std::string table;
      for (const auto& k : reports)
        table += k.source + " " + k.arch + ": " + std::to_string(k.registers) + " registers, " +
                 std::to_string(k.spill_store_bytes + k.spill_load_bytes) + " B spilled, " +
                 std::to_string(k.static_shared_bytes) + " B static shared\n";
      const auto problems = check_ptxas_report(reports, limits);
      INFO(table << join(problems));
      CHECK(problems.empty());

      // Host code: the dispatcher and the self-test with the host compiler, warnings as errors; the bench too
      // (it includes cuBLAS's header, but is not linked here). The kernels above hold sm_90a code, which a package
      // with wgmma kernels tells its dispatcher as its CMakeLists.txt does.
      std::string macro = std::string("strata_") + e.op + "_" + e.arch + "_WGMMA_BUILT";
      for (char& c : macro) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const std::string defines = wgmma ? " -D" + macro : "";
      for (const char* file : {"src/dispatch.cpp", "test/selftest.cpp", "bench/bench.cpp"}) {
        const Shell s = shell("c++ -c " + host_flags + defines + includes + pkg + "/" + file + " -o " + dir.path() +
                              "/" + fs::path(file).stem().string() + ".o");
        INFO(file << "\n" << s.output);
        REQUIRE(s.exit_code == 0);
      }
      const std::string selftest = dir.path() + "/selftest";
      const Shell link = shell("c++ -o " + selftest + " " + dir.path() + "/selftest.o " + dir.path() + "/dispatch.o" +
                               objects + " -L" + root + "/lib64 -lcudart -Wl,-rpath," + root + "/lib64");
      INFO(link.output);
      REQUIRE(link.exit_code == 0);
      const Shell run = shell(selftest);
      INFO(run.output);
      CHECK(run.exit_code == 0);
      const bool skipped = run.output.find("selftest: skipped: no CUDA device") != std::string::npos;
      if (skipped) WARN(std::string(e.op) + " for " + e.arch + ": no GPU here, so the kernels did not run");
      CHECK((skipped || run.output.find(" passed, 0 failed") != std::string::npos));
      check_dispatcher_model(e, pkg, dir, objects, root);
      if (std::string(e.op) == "hgemm_tc" || std::string(e.op) == "conv2d_nhwc_tc") {
        // Tensor Cores for large squares. Which unit takes M = 1 is the model's call, not a fixed rule (Helix's
        // Figure 12 has CUDA cores there; on an H100 our Tensor Core kernel with split-K ran 1x4096x4096 faster
        // than our CUDA-core ones), but the package must hold CUDA-core kernels for the dispatcher to choose.
        int cuda_core_kernels = 0;
        for (const auto& k : YAML::LoadFile(pkg + "/manifest.yaml")["kernels"])
          cuda_core_kernels += k["unit"].as<std::string>() == "cuda_core";
        CHECK(cuda_core_kernels > 0);
        CHECK_THAT(line_starting(run.output, "plan 4096x4096x4096:"), Catch::Contains("on Tensor Cores"));
        // A Hopper package built with sm_90a code plans its wgmma kernels for large calls and for M = 1 (the
        // transposed, swapped tile), where the operands suit tensor maps.
        if (wgmma) {
          CHECK_THAT(line_starting(run.output, "plan 4096x4096x4096:"), Catch::Contains("(wgmma)"));
          CHECK_THAT(line_starting(run.output, "plan 1x4096x4096:"), Catch::Contains("(wgmma)"));
        }
      }
    }
  }
}

TEST_CASE("the ptxas check rejects a kernel over the register budget", "[cuda][nvcc]") {
  require_nvcc();
  ScratchDir dir;
  const std::string pkg = generate(dir, kExamples[0]);
  // The package's own Tensor Core kernel with a warp tile the sieve rejects: 128 x 128 needs 512 accumulators per
  // thread, twice what a thread may hold, so ptxas must spill, and the check must say so.
  const std::string cu =
      dir.write("over_budget.cu", std::string("#include \"gemm_kernels.cuh\"\n") + "namespace strata_" +
                                      kExamples[0].op + "_" + kExamples[0].arch +
                                      "_detail {\n"
                                      "template __global__ void gemm_tensor_core<128, 128, 16, 128, "
                                      "128, 2, 1, true, false>(GemmParams);\n"
                                      "}\n");
  const Shell s = shell("nvcc -c -std=c++17 -O3 -gencode arch=compute_80,code=sm_80 -Xptxas -v -I" + pkg + "/src -I" +
                        pkg + "/include " + cu + " -o " + dir.path() + "/k.o");
  INFO(s.output);
  REQUIRE(s.exit_code == 0);
  const auto reports = parse_ptxas_report(s.output, "over_budget");
  REQUIRE(reports.size() == 1);
  const auto problems = check_ptxas_report(reports, read_cuda_limits(pkg + "/manifest.yaml"));
  INFO(join(problems));
  CHECK_THAT(join(problems), Catch::Contains("over_budget (sm_80") && Catch::Contains("spills registers"));
}

TEST_CASE("a Hopper package builds for sm_90a by default and tells its dispatcher and self-test so", "[cuda][nvcc]") {
  require_nvcc();
  ScratchDir dir;
  const std::string pkg = generate(dir, Example{"h100", "hgemm_tc"});
  const std::string build = dir.path() + "/build";
  // As a user builds it: no architecture given, so the package's own default (90a), warnings as errors.
  const Shell configured = shell("cmake -S " + pkg + " -B " + build + " -DSTRATA_HGEMM_TC_H100_WERROR=ON");
  INFO(configured.output);
  REQUIRE(configured.exit_code == 0);
  const Shell built =
      shell("cmake --build " + build + " --parallel 2 --target strata_hgemm_tc_h100_selftest -- VERBOSE=1");
  INFO(built.output);
  REQUIRE(built.exit_code == 0);
  CHECK_THAT(built.output, Catch::Contains("arch=compute_90a,code=[compute_90a,sm_90a]"));
  // The dispatcher and the self-test are compiled knowing the build holds sm_90a code.
  CHECK_THAT(built.output, Catch::Contains("-DSTRATA_HGEMM_TC_H100_WGMMA_BUILT"));
  const Shell run = shell(build + "/strata_hgemm_tc_h100_selftest");
  INFO(run.output);
  CHECK(run.exit_code == 0);
  CHECK_THAT(line_starting(run.output, "plan 4096x4096x4096:"), Catch::Contains("(wgmma)"));
  // A build without sm_90a code plans without its wgmma kernels.
  const std::string plain = dir.path() + "/plain";
  const Shell reconfigured = shell("cmake -S " + pkg + " -B " + plain + " -DCMAKE_CUDA_ARCHITECTURES=90");
  INFO(reconfigured.output);
  REQUIRE(reconfigured.exit_code == 0);
  const Shell rebuilt = shell("cmake --build " + plain + " --parallel 2 --target strata_hgemm_tc_h100_selftest");
  INFO(rebuilt.output);
  REQUIRE(rebuilt.exit_code == 0);
  const Shell plain_run = shell(plain + "/strata_hgemm_tc_h100_selftest");
  INFO(plain_run.output);
  CHECK(plain_run.exit_code == 0);
  CHECK_THAT(line_starting(plain_run.output, "plan 4096x4096x4096:"), !Catch::Contains("(wgmma)"));
}

TEST_CASE("a CUDA convolution package gathers A in its kernels and refuses what they cannot read", "[cuda]") {
  ScratchDir dir;
  const RunResult r = run_strata(
      "generate --arch archs/h100.yaml --op ops/conv2d_nhwc_tc.yaml --no-profile "
      "--max-kernels 3 -o " +
          dir.path() + "/p",
      source_path(""));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  // The entry points and their self-test; every cp.async kernel also instantiated gathering A; no wgmma kernel
  // (a tensor map cannot gather), so the Hopper package builds for plain sm_90.
  const std::string header = read_file(dir.path() + "/p/include/strata_conv2d_nhwc_tc_h100.h");
  CHECK_THAT(header, Catch::Contains("strata_conv2d_nhwc_tc_h100_conv2d_epilogue(") &&
                         Catch::Contains("strata_conv2d_nhwc_tc_h100_conv2d_plan("));
  CHECK(fs::exists(dir.path() + "/p/src/dispatch_conv.h"));
  CHECK(fs::exists(dir.path() + "/p/test/selftest_conv.h"));
  CHECK_FALSE(fs::exists(dir.path() + "/p/src/wgmma_kernels.cuh"));
  CHECK_THAT(read_file(dir.path() + "/p/CMakeLists.txt"), !Catch::Contains("90a"));
  int kernels = 0;
  for (const auto& entry : fs::directory_iterator(dir.path() + "/p/src/kernels")) {
    const std::string name = entry.path().filename().string();
    if (name.rfind("k", 0) != 0) continue;
    ++kernels;
    CHECK_THAT(read_file(entry.path().string()), Catch::Contains("if (p.gather)") && Catch::Contains("true, true>"));
  }
  CHECK(kernels > 0);

  // What the kernels cannot read is refused with the spec's file: an fp16 filter stored RSCK (the Tensor Core
  // kernels read B N x K), a convolution whose CUDA levels do not gather, and a GEMM that does.
  const std::string conv_spec = read_file(source_path("ops/conv2d_nhwc_tc.yaml"));
  const auto refused = [&](const std::string& file, const std::string& text, const std::string& expected) {
    const RunResult bad = run_strata("generate --arch archs/h100.yaml --op " + dir.write(file, text) +
                                         " --no-profile -o " + dir.path() + "/" + file + ".out",
                                     source_path(""));
    INFO(bad.err);
    CHECK(bad.exit_code == 1);
    CHECK_THAT(bad.err, Catch::Contains(file) && Catch::Contains(expected));
    CHECK_FALSE(fs::exists(dir.path() + "/" + file + ".out"));
  };
  std::string rsck = conv_spec;
  rsck.replace(rsck.find("filter_layout: krsc"), 19, "filter_layout: rsck");
  refused("rsck.yaml", rsck, "read a filter KRSC");
  std::string dense = conv_spec;
  dense.replace(dense.find("cp_async_gather_a_tile"), 22, "cp_async_a_tile");
  refused("dense.yaml", dense, "a convolution's block level loads cp_async_gather_a_tile");
  std::string gemm = read_file(source_path("ops/hgemm_tc.yaml"));
  gemm.replace(gemm.find("cp_async_a_tile"), 15, "cp_async_gather_a_tile");
  refused("gathering_gemm.yaml", gemm, "cp_async_gather_a_tile is a convolution's load");
}
