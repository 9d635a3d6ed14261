// AArch64 NEON packages cross-build with the toolchain file they ship (clang --target=aarch64-linux-gnu + lld,
// warnings as errors) and pass their self-test under qemu-aarch64, for both Arm descriptors: Neoverse N1 and
// Cortex-A76. tools/setup.sh installs the cross toolchain, so a missing piece is a failure, not a skip.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "test_util.h"

namespace fs = std::filesystem;
using namespace strata::test;

namespace {

constexpr const char* kSysroot = "/usr/aarch64-linux-gnu";

struct ArmPackage {
  const char* arch;
  const char* name;
  const char* op;
  const char* kernels;  // a --max-kernels option, or empty for all the selection keeps
};

bool have(const std::string& tool) { return std::system(("command -v " + tool + " >/dev/null 2>&1").c_str()) == 0; }

// Everything the shipped toolchain file and the qemu run rely on, named so that a failure says what to install.
void require_cross_toolchain() {
  for (const char* tool : {"cmake", "clang++", "ld.lld", "qemu-aarch64"}) {
    INFO(tool << " not found: run tools/setup.sh (it installs clang, lld and qemu-user)");
    REQUIRE(have(tool));
  }
  for (const char* file : {"/usr/aarch64-linux-gnu/lib/libc.so.6", "/usr/aarch64-linux-gnu/lib/libstdc++.so.6",
                           "/usr/aarch64-linux-gnu/include/stdio.h"}) {
    INFO(file << " not found: run tools/setup.sh (it installs libc6-dev-arm64-cross, libstdc++-12-dev-arm64-cross "
                 "and libgcc-12-dev-arm64-cross)");
    REQUIRE(fs::exists(file));
  }
}

std::string upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// ELF e_machine of `path` (183 is EM_AARCH64), or -1 when it is not a readable ELF file.
int elf_machine(const std::string& path) {
  const std::string bytes = read_file(path);
  const std::string magic = std::string(1, '\x7f') + "ELF";
  if (bytes.size() < 20 || bytes.compare(0, 4, magic) != 0) return -1;
  return static_cast<unsigned char>(bytes[18]) | (static_cast<unsigned char>(bytes[19]) << 8);
}

}  // namespace

TEST_CASE("NEON packages cross-build for AArch64 and pass their self-test under qemu", "[package][neon]") {
  require_cross_toolchain();
  // The second package is a convolution's (the GEMM's entry points and its own): its self-test checks both, on one
  // kernel, since the first package already builds every kernel of its selection (both ways of taking A, see below),
  // the convolution's own code is the same for every kernel, and each kernel file takes tens of seconds to
  // cross-compile. The first package keeps the selection's first four kernels: its four micro-kernels, each file
  // once; the kernels chosen after them are blocking variants of those (the same code, run again under qemu).
  for (const ArmPackage& arm :
       {ArmPackage{"archs/neoverse-n1.yaml", "strata_sgemm_neoverse_n1", "ops/sgemm.yaml", " --max-kernels 4"},
        ArmPackage{"archs/cortex-a76.yaml", "strata_conv2d_cortex_a76", "ops/conv2d_nhwc.yaml",
                   " --max-kernels 1"}}) {
    INFO(arm.arch);
    ScratchDir dir;
    // The example's records where it ships some (the kernels a user of that package gets), else the model.
    const std::string records = source_path(std::string("emitted_examples/") + arm.name + "/profile_records.yaml");
    const std::string level0 = fs::exists(records) ? "--profile " + records : std::string("--no-profile");
    const auto gen = run_strata("generate --arch " + source_path(arm.arch) + " --op " + source_path(arm.op) + " " +
                                    level0 + arm.kernels + " -o pkg --name " + arm.name,
                                dir.path());
    INFO(gen.err);
    REQUIRE(gen.exit_code == 0);
    const std::string pkg = dir.path() + "/pkg", build = dir.path() + "/build", log = dir.path() + "/log";

    // The descriptors ask for fma_broadcast: lane, so a packed tile of at least 4 rows (one vector of A) takes A
    // from vector lanes; a shorter one broadcasts from memory. Kernel files are named ukernel_neon_<mr>x<nr>_k<ku>.
    int kernel_files = 0;
    for (const auto& entry : fs::directory_iterator(pkg + "/src/kernels")) {
      const std::string file = entry.path().filename().string();
      INFO(file);
      REQUIRE(file.rfind("ukernel_neon_", 0) == 0);
      const int mr = std::stoi(file.substr(std::strlen("ukernel_neon_")));
      const bool lane_fma = read_file(entry.path().string()).find("kLaneBroadcast = true;") != std::string::npos;
      CHECK(lane_fma == (mr >= 4));
      ++kernel_files;
    }
    CHECK(kernel_files > 0);

    const std::string toolchain = pkg + "/cmake/aarch64-linux-gnu-clang.cmake";
    REQUIRE(fs::exists(toolchain));
    const std::string configure = "cmake -S " + pkg + " -B " + build + " -DCMAKE_TOOLCHAIN_FILE=" + toolchain +
                                  " -D" + upper(arm.name) + "_WERROR=ON > " + log + " 2>&1";
    const int configured = std::system(configure.c_str());
    INFO(read_file(log));
    REQUIRE(configured == 0);
    const int built = std::system(("cmake --build " + build + " --parallel 2 >> " + log + " 2>&1").c_str());
    INFO(read_file(log));
    REQUIRE(built == 0);

    const std::string selftest = build + "/" + arm.name + "_selftest";
    REQUIRE(elf_machine(selftest) == 183);  // EM_AARCH64: really cross-built, not a host binary
    REQUIRE(elf_machine(build + "/" + arm.name + "_bench") == 183);
    // --quick crosses every tile and cache-block boundary with fewer calls: the full run takes minutes under qemu.
    const std::string out = dir.path() + "/selftest.out";
    const int ran = std::system(
        ("qemu-aarch64 -L " + std::string(kSysroot) + " " + selftest + " --quick > " + out + " 2>&1").c_str());
    const std::string output = read_file(out);
    INFO(output);
    CHECK(ran == 0);
    CHECK_THAT(output, Catch::Contains(" passed, 0 failed"));
    CHECK_THAT(output, !Catch::Contains("skipped"));
  }
}

TEST_CASE("an x86 descriptor asking for lane broadcast is refused", "[package][neon][bad]") {
  // The descriptor decides how kernels take A; x86 has no FMA by element, so lane there is an error, not ignored.
  std::string yaml = read_file(source_path("archs/x86-avx2.yaml"));
  const std::string memory = "fma_broadcast: memory";
  const size_t at = yaml.find(memory);
  REQUIRE(at != std::string::npos);
  yaml.replace(at, memory.size(), "fma_broadcast: lane");
  ScratchDir dir;
  const std::string arch = dir.write("avx2-lane.yaml", yaml);
  const auto r = run_strata(
      "generate --arch " + arch + " --op " + source_path("ops/sgemm.yaml") + " --no-profile -o pkg", dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("avx2-lane.yaml") && Catch::Contains("isa.fma_broadcast must be memory"));
  CHECK(!fs::exists(dir.path() + "/pkg"));
}
