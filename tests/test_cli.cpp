// The strata command line: commands run for every shipped arch and op; errors are one located line and a
// non-zero exit.
#include <catch2/catch.hpp>

#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "spec_fixtures.h"
#include "test_util.h"

using namespace strata::test;

TEST_CASE("strata sieve and strata model run for every shipped arch and op", "[cli]") {
  int ran = 0;
  for (const auto& arch_path : shipped_specs("archs"))
    for (const auto& op_path : shipped_specs("ops")) {
      const auto arch = strata::load_arch(arch_path);
      const auto op = strata::load_op(op_path);
      INFO(arch_path << " x " << op_path);
      const auto sieve = run_strata("sieve --explain --arch " + arch_path + " --op " + op_path);
      const auto model =
          run_strata("model --top 2 --arch " + arch_path + " --op " + op_path + " --shape 100,200,300");
      bool compatible = op.rkernel_for(arch.target) != nullptr;
      bool unit = false;
      for (const auto& c : arch.compute) unit = unit || c.input == op.a_type;
      compatible = compatible && unit;
      if (compatible) {
        CHECK(sieve.exit_code == 0);
        CHECK_THAT(sieve.out, Catch::Contains("total candidates:") && Catch::Contains("removed by"));
        CHECK(model.exit_code == 0);
        CHECK_THAT(model.out, Catch::Contains("#1 ") && Catch::Contains("#2 ") && Catch::Contains("problem"));
        // A Hopper descriptor's f16 GEMM also ranks the wgmma family, as generate selects from it (a convolution
        // has none: a tensor map cannot gather its A).
        const bool wgmma =
            arch.isa.wgmma.present() && op.a_type == strata::DataType::f16 && op.kind == strata::OpKind::gemm;
        CHECK((model.out.find("compute unit tensor_core (wgmma):") != std::string::npos) == wgmma);
        ++ran;
      } else {
        // A pairing that cannot work is an error naming the op file, not a crash.
        CHECK(sieve.exit_code == 1);
        CHECK_THAT(sieve.err, Catch::StartsWith("strata: error: " + op_path));
      }
      CHECK((sieve.err.empty() || sieve.err.find('\n') == sieve.err.size() - 1));  // at most one line
    }
  CHECK(ran >= 8);
}

TEST_CASE("spec errors print one located line and exit 1", "[cli][bad]") {
  ScratchDir dir;
  dir.write("bad.yaml", replaced(kValidCpuArch, "clock_ghz: 2.0", "clock_ghz: fast"));
  const auto r = run_strata("check bad.yaml", dir.path());
  CHECK(r.exit_code == 1);
  CHECK(r.err ==
        "strata: error: bad.yaml:5:12: architecture descriptor: 'clock_ghz' expected a number, found "
        "'fast'\n");
  CHECK(r.out.empty());
}

TEST_CASE("strata check accepts every shipped spec", "[cli]") {
  std::string files;
  for (const auto& f : shipped_specs("archs")) files += " " + f;
  for (const auto& f : shipped_specs("ops")) files += " " + f;
  const auto r = run_strata("check" + files);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
}

TEST_CASE("usage errors exit 2 with a message", "[cli][bad]") {
  const auto none = run_strata("");
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::StartsWith("strata: error: "));
  const auto missing = run_strata("sieve --arch " + source_path("archs/x86-avx2.yaml"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("--op is required"));
  const auto shape = run_strata("model --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                                source_path("ops/sgemm.yaml") + " --shape 1,-2,3");
  CHECK(shape.exit_code == 1);
  CHECK(shape.err == "strata: error: --shape: '-2' is not a non-negative integer (in '1,-2,3')\n");
  const auto two = run_strata("model --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                              source_path("ops/sgemm.yaml") + " --shape 1,2");
  CHECK(two.exit_code == 1);
  CHECK_THAT(two.err, Catch::Contains("expected M,N,K"));
}

TEST_CASE("an unknown command is named, with the nearest command", "[cli][bad]") {
  const auto typo = run_strata("generat --arch a.yaml");
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::StartsWith("strata: error: unknown command 'generat'; did you mean 'generate'?\n"));
  const auto far = run_strata("xyzzyx");
  CHECK(far.exit_code == 2);
  CHECK_THAT(far.err, Catch::Contains("unknown command 'xyzzyx'; the commands are ") && Catch::Contains("verify"));
  // generate takes --jobs (profiling's compile jobs) and refuses a count below one.
  ScratchDir dir;
  const std::string specs =
      "generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " + source_path("ops/sgemm.yaml");
  CHECK(run_strata(specs + " --no-profile --max-kernels 1 --jobs 3 -o pkg", dir.path()).exit_code == 0);
  CHECK(run_strata(specs + " --no-profile --jobs 0 -o pkg2", dir.path()).exit_code == 2);
}

TEST_CASE("model handles empty and degenerate shapes", "[cli]") {
  for (const char* shape : {"0,0,0", "1,1,1", "0,5,7", "1,1000000,1"}) {
    INFO(shape);
    const auto r = run_strata("model --arch " + source_path("archs/zen4-avx512.yaml") + " --op " +
                              source_path("ops/sgemm.yaml") + " --shape " + shape);
    CHECK(r.exit_code == 0);
    CHECK(r.err.empty());
  }
}

TEST_CASE("model ranks Tensor Core blocks as generate selects them: by occupancy, over the whole call", "[cli]") {
  // h100.yaml models occupancy: Tensor Core blocks are ranked by templates/cuda/gpu_model.h, one line per block tile,
  // its grid every block of the call; the fp32 CUDA-core blocks keep Eqs. 5-7 (no blocks per SM shown).
  const auto tc = run_strata("model --top 3 --arch " + source_path("archs/h100.yaml") + " --op " +
                             source_path("ops/hgemm_tc.yaml") + " --shape 4096,4096,4096");
  REQUIRE(tc.exit_code == 0);
  CHECK_THAT(tc.out, Catch::Contains("per SM)") && Catch::Contains("L2 grid        4096x4096x4096"));
  // The mma.sync blocks, then the wgmma family's (h100.yaml declares isa.wgmma): three distinct block tiles each.
  const size_t wgmma = tc.out.find("compute unit tensor_core (wgmma):");
  REQUIRE(wgmma != std::string::npos);
  for (const std::string& section : {tc.out.substr(0, wgmma), tc.out.substr(wgmma)}) {
    std::vector<std::string> blocks;
    for (size_t at = section.find("    #"); at != std::string::npos; at = section.find("    #", at + 1)) {
      const std::string line = section.substr(at, section.find('\n', at) - at);
      const size_t first = line.find(" / "), second = line.find(" / ", first + 3);
      blocks.push_back(line.substr(first + 3, second - first - 3));
    }
    REQUIRE(blocks.size() == 3);
    CHECK(blocks[0] != blocks[1]);
    CHECK(blocks[1] != blocks[2]);
    CHECK(blocks[0] != blocks[2]);
  }
  const auto cores = run_strata("model --top 1 --arch " + source_path("archs/h100.yaml") + " --op " +
                                source_path("ops/sgemm.yaml") + " --shape 4096,4096,4096");
  REQUIRE(cores.exit_code == 0);
  CHECK(cores.out.find("per SM") == std::string::npos);
}

TEST_CASE("strata arch detect writes a descriptor that loads", "[cli][detect]") {
  ScratchDir dir;
  const auto r = run_strata("arch detect -o host.yaml", dir.path());
  REQUIRE(r.exit_code == 0);
  const auto arch = strata::load_arch(dir.path() + "/host.yaml");
  CHECK(arch.target == strata::Target::x86_64);
  CHECK(arch.compute.at(0).peak_gflops > 0);
  // The descriptor is directly usable by the other commands.
  const auto sieve = run_strata("sieve --arch host.yaml --op " + source_path("ops/sgemm.yaml"), dir.path());
  CHECK(sieve.exit_code == 0);
  // Nothing from the file system or the host name leaks into it.
  const std::string text = read_file(dir.path() + "/host.yaml");
  CHECK(text.find(dir.path()) == std::string::npos);
  CHECK(text.find("/home") == std::string::npos);
}
