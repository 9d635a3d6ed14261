// strata profile-kit: the standalone profiler package, and the whole loop it exists for — emit the kit, build it
// for the target, run it there, and generate with the records it wrote. On this host's x86 ISA the kit builds and
// runs natively; for AArch64 (Neoverse N1) it cross-builds with clang + lld and runs under qemu-aarch64, where
// its timings describe the emulator and mean nothing: those tests check that the loop works and that the records
// are used, not what they say. tools/setup.sh installs the cross toolchain and qemu, so their absence fails.
#include <fmt/format.h>
#include <sys/wait.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "profile/host_profiler.h"
#include "profile/profile_kit.h"
#include "profile/records.h"
#include "render/template_renderer.h"
#include "sieve/sieve.h"
#include "spec/arch_loader.h"
#include "spec/op_loader.h"
#include "strata_version.h"
#include "test_util.h"

namespace fs = std::filesystem;
using namespace strata;
using namespace strata::test;

namespace {

// The x86 descriptor whose kit this host can run. AVX2 + FMA wherever the host has it, AVX-512 hosts included: the
// kit is the same code for both ISAs, and AVX2's 36 kernels build in a fraction of the time of AVX-512's 308 (host
// profiling by strata generate builds the AVX-512 kit on AVX-512 hosts).
std::string host_x86_arch() {
#if defined(__x86_64__)
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return "archs/x86-avx2.yaml";
#endif
  return "";
}

// Runs a shell command with its output into `log`; returns its exit status (INFO shows the output on failure).
int shell(const std::string& command, const std::string& log) {
  const int status = std::system((command + " >" + log + " 2>&1 </dev/null").c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

// ELF e_machine of `path` (62 is EM_X86_64, 183 EM_AARCH64), or -1 when it is not an ELF file.
int elf_machine(const std::string& path) {
  const std::string bytes = read_file(path);
  if (bytes.size() < 20 || bytes.compare(0, 4,
                                         "\x7f"
                                         "ELF") != 0)
    return -1;
  return static_cast<unsigned char>(bytes[18]) | (static_cast<unsigned char>(bytes[19]) << 8);
}

// Emits the kit for `arch` into dir/kit.
void emit_kit(const ScratchDir& dir, const std::string& arch, const std::string& out = "kit") {
  const auto r =
      run_strata("profile-kit --arch " + source_path(arch) + " --op " + source_path("ops/sgemm.yaml") + " -o " + out,
                 dir.path());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
}

// Configures and builds dir/kit in dir/build with `cmake_args`, warnings as errors; returns the profiler's path.
std::string build_kit(const ScratchDir& dir, const std::string& cmake_args) {
  const std::string log = dir.path() + "/build.log";
  const int configured = shell(
      "cmake -S " + dir.path() + "/kit -B " + dir.path() + "/build -DSTRATA_PROFILE_WERROR=ON " + cmake_args, log);
  INFO(read_file(log));
  REQUIRE(configured == 0);
  const int built = shell("cmake --build " + dir.path() + "/build --parallel 2", log);
  INFO(read_file(log));
  REQUIRE(built == 0);
  return dir.path() + "/build/strata_profile";
}

// The level-0 kernel names the generator would profile for `arch`.
std::vector<std::string> level0_kernels(const Arch& arch) {
  const Op op = load_op(source_path("ops/sgemm.yaml"));
  std::vector<std::string> names;
  const auto sieve = run_sieve(arch, op);  // kept: a range-for over a member of a temporary would dangle
  for (const auto& c : sieve.at(0).levels[0].candidates)
    names.push_back(fmt::format("ukernel_{}_{}x{}_k{}", to_string(arch.isa.vector), c.tile[0], c.tile[1], c.tile[2]));
  std::sort(names.begin(), names.end());
  return names;
}

// Checks a records file a kit wrote: made for `arch` and sgemm, one record per level-0 kernel.
ProfileRecords check_kit_records(const std::string& path, const Arch& arch) {
  const ProfileRecords records = load_records(path);  // strict: throws on anything malformed
  CHECK(records.arch == arch.name);
  CHECK(records.arch_sha256 == arch.content_sha);
  CHECK(records.op == "sgemm");
  CHECK_NOTHROW(check_records_match(records, arch, "sgemm", path));
  CHECK_THAT(records.method, Catch::Contains("depth 256") && Catch::Contains("the fastest of 1 rounds"));
  std::vector<std::string> names;
  for (const auto& r : records.records) {
    names.push_back(r.kernel);
    CHECK(r.depth == 256);
    CHECK(r.seconds_per_call > 0);
    CHECK(r.gflops > 0);
  }
  CHECK(names == level0_kernels(arch));
  return records;
}

// Generates a package for `arch` from `records` into dir/pkg and checks that level 0 came from those records:
// the manifest says profiled with the records' CPU and compiler, the package ships the same records, and every
// kernel's level-0 time is its record's.
void generate_with_records(const ScratchDir& dir, const std::string& arch_file, const ProfileRecords& records,
                           const std::string& records_path) {
  const auto g = run_strata("generate --arch " + source_path(arch_file) + " --op " + source_path("ops/sgemm.yaml") +
                                " --profile " + records_path + " --max-kernels 3 -o pkg",
                            dir.path());
  INFO(g.err);
  REQUIRE(g.exit_code == 0);
  CHECK_THAT(g.err, Catch::Contains("using profile records from " + records_path));
  const std::string manifest = read_file(dir.path() + "/pkg/manifest.yaml");
  CHECK_THAT(manifest, Catch::Contains("  level0: \"profiled on " + records.cpu + " with " + records.compiler +
                                       " (profile_records.yaml)\"\n"));
  const ProfileRecords shipped = load_records(dir.path() + "/pkg/profile_records.yaml");
  CHECK(write_records_yaml(shipped) == write_records_yaml(records));
  const YAML::Node kernels = YAML::LoadFile(dir.path() + "/pkg/manifest.yaml")["kernels"];
  REQUIRE(kernels.IsSequence());
  REQUIRE(kernels.size() >= 1);
  const Arch arch = load_arch(source_path(arch_file));
  for (const auto& k : kernels) {
    const YAML::Node tile = k["tiles"][0]["tile"];
    const std::string name = fmt::format("ukernel_{}_{}x{}_k{}", to_string(arch.isa.vector), tile[0].as<int>(),
                                         tile[1].as<int>(), tile[2].as<int>());
    const ProfileRecord* r = find(records, name);
    INFO(name);
    REQUIRE(r != nullptr);
    CHECK(k["level0_seconds_per_tile"].as<double>() == Approx(seconds_per_level0_tile(*r)).epsilon(1e-12));
  }
}

}  // namespace

TEST_CASE("profile-kit writes a deterministic standalone kit", "[profile-kit]") {
  ScratchDir dir;
  // Twice into the same directory (the command line is part of every file's provenance header); the second run
  // replaces the first kit.
  emit_kit(dir, "archs/x86-avx2.yaml");
  const auto a = read_tree(dir.path() + "/kit");
  emit_kit(dir, "archs/x86-avx2.yaml");
  CHECK(a == read_tree(dir.path() + "/kit"));
  for (const char* file :
       {"manifest.yaml", "README.md", "CMakeLists.txt", "src/profiler.cpp", "src/config.h", "src/tile_args.h",
        "src/device_info.h", "src/compiler_id.h", "src/kernels_avx2_0.cpp", "src/kernel_tile.h", "src/simd_avx2.h"})
    CHECK(a.count(file) == 1);
  for (const auto& [name, content] : a) {
    INFO(name);
    // A provenance header first, its licence line first; no absolute paths (the scratch directory, the source tree)
    // anywhere.
    CHECK(content.find("SPDX-License-Identifier: MIT-0") < 8);
    CHECK(content.find(std::string("Generated by Strata ") + STRATA_VERSION + ".") < 48);
    CHECK_THAT(content, !Catch::Contains(" " + dir.path()) && !Catch::Contains(std::string(" ") + STRATA_SOURCE_DIR));
  }
  // The identity code the kit runs on a device is the text Strata compiles for itself.
  CHECK_THAT(a.at("src/device_info.h"), Catch::EndsWith(read_file(source_path("templates/cpu/kit/device_info.h"))));
  CHECK_THAT(a.at("src/compiler_id.h"), Catch::EndsWith(read_file(source_path("templates/cpu/kit/compiler_id.h"))));
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  const std::string& manifest = a.at("manifest.yaml");
  CHECK_THAT(manifest, Catch::Contains("\nstrata_profile_kit: 1\n") &&
                           Catch::Contains("arch: {name: x86_avx2, sha256: " + arch.content_sha + "}"));
  for (const auto& name : level0_kernels(arch)) CHECK_THAT(manifest, Catch::Contains("{name: " + name + ","));

  // A package or an unrelated directory is not replaced.
  fs::create_directories(dir.path() + "/mine");
  dir.write("mine/notes.txt", "keep me");
  auto r = run_strata("profile-kit --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                          source_path("ops/sgemm.yaml") + " -o mine",
                      dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: mine: exists and is not a Strata package"));
  CHECK(read_file(dir.path() + "/mine/notes.txt") == "keep me");
  r = run_strata("generate --arch " + source_path("archs/x86-avx2.yaml") + " --op " + source_path("ops/sgemm.yaml") +
                     " --no-profile --max-kernels 1 -o pkg",
                 dir.path());
  REQUIRE(r.exit_code == 0);
  r = run_strata("profile-kit --arch " + source_path("archs/x86-avx2.yaml") + " --op " +
                     source_path("ops/sgemm.yaml") + " -o pkg",
                 dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: pkg: is a Strata package, not a profile kit"));
  CHECK(fs::exists(dir.path() + "/pkg/src/dispatch.cpp"));
}

TEST_CASE("a kit given level-1 blocks lists them for its profiler and rejects blocks it cannot run",
          "[profile-kit]") {
  const Arch arch = load_arch(source_path("archs/x86-avx2.yaml"));
  const UkernelSpec a{VectorIsa::avx2, 8, 6, 16, 2, 16}, b{VectorIsa::avx2, 8, 4, 8, 1, 16};
  TemplateRenderer renderer(default_templates_dir());
  KitInputs in;
  in.arch = &arch;
  in.op_name = "sgemm";
  in.kernels = {a, b};
  in.blocks = {{a.name(), {12, 32, 64}}, {b.name(), {4, 8, 1}}};
  const ProfileKit kit = render_profile_kit(in, renderer);
  const std::string& profiler = kit.files.at("src/profiler.cpp");
  // Kernels are sorted by name (4x8 before 6x16), and each block names its kernel's index in that table.
  CHECK_THAT(profiler, Catch::Contains("    { 1, 12, 32, 64 },\n    { 0, 4, 8, 1 },\n    {0, 0, 0, 0}};"));
  CHECK_THAT(kit.files.at("manifest.yaml"), Catch::Contains("\nlevel1_blocks: 2\n"));
  // Without blocks the table is empty and the manifest says nothing of level 1.
  in.blocks.clear();
  const ProfileKit plain = render_profile_kit(in, renderer);
  CHECK_THAT(plain.files.at("src/profiler.cpp"), Catch::Contains("const Block kBlocks[] = {\n    {0, 0, 0, 0}};"));
  CHECK_THAT(plain.files.at("manifest.yaml"), !Catch::Contains("level1"));

  in.blocks = {{a.name(), {12, 24, 64}}};  // 24 columns are not whole 16-wide register tiles
  CHECK_THROWS_WITH(render_profile_kit(in, renderer),
                    Catch::Contains("level-1 block " + a.name() +
                                    " 12x24x64: the extents must be positive multiples "
                                    "of the register tile 6x16x2"));
  in.blocks = {{"ukernel_avx2_5x8_k1", {5, 8, 1}}};
  CHECK_THROWS_WITH(render_profile_kit(in, renderer), Catch::Contains("the kit holds no kernel of that name"));
  in.blocks = {{b.name(), {4, 8, 1}}, {b.name(), {4, 8, 1}}};
  CHECK_THROWS_WITH(render_profile_kit(in, renderer), Catch::Contains("is listed twice"));
}

TEST_CASE("the profile-kit loop on this host: build the kit, run it, generate with its records", "[profile-kit]") {
  const std::string arch_file = host_x86_arch();
  if (arch_file.empty()) {
    WARN("this host does not run AVX2 + FMA: the native profile-kit loop is not tested");
    return;
  }
  const Arch arch = load_arch(source_path(arch_file));
  ScratchDir dir;
  emit_kit(dir, arch_file);
  const std::string profiler = build_kit(dir, "-DCMAKE_CXX_COMPILER=c++");
  CHECK(elf_machine(profiler) == 62);
  const std::string log = dir.path() + "/run.log";
  const int ran = shell("cd " + dir.path() + " && " + profiler + " -o kit-records.yaml --rounds 1", log);
  INFO(read_file(log));
  REQUIRE(ran == 0);
  CHECK_THAT(read_file(log), Catch::Contains("wrote kit-records.yaml: ") && Catch::Contains("kernel 1/"));
  const std::string records_path = dir.path() + "/kit-records.yaml";
  const ProfileRecords records = check_kit_records(records_path, arch);
  // Named as Strata names this host and this compiler, so a later generate here may reuse them.
  CHECK(records.cpu == host_cpu_id());
  CHECK(records.compiler == compiler_id("c++"));
  CHECK_THAT(records.compiler, Catch::EndsWith(" for x86-64"));
  generate_with_records(dir, arch_file, records, "kit-records.yaml");

  // The records are tied to the descriptor they were made for.
  const std::string other = "archs/zen4-avx512.yaml";
  const auto r = run_strata("generate --arch " + source_path(other) + " --op " + source_path("ops/sgemm.yaml") +
                                " --profile kit-records.yaml -o other",
                            dir.path());
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::StartsWith("strata: error: kit-records.yaml: records were made for arch descriptor " +
                                      arch.content_sha));
}

// Built, not run: the kit's kernels and device probe must compile warning-free under Clang too, whatever the host
// (Clang warns of unused internal functions and of signed/unsigned compares where GCC does not). The AVX-512 kit:
// the loop above builds the AVX2 one with the host's compiler, and the packages' tests build AVX2 kernels, which the
// kits share, with Clang.
TEST_CASE("x86 profile kits build with clang, warnings as errors", "[profile-kit]") {
  REQUIRE(std::system("command -v clang++ >/dev/null 2>&1") == 0);
  ScratchDir dir;
  emit_kit(dir, "archs/zen4-avx512.yaml");
  CHECK(elf_machine(build_kit(dir, "-DCMAKE_CXX_COMPILER=clang++")) == 62);
}

TEST_CASE(
    "the profile-kit loop for AArch64: cross-build with clang and lld, run under qemu, generate with its records",
    "[profile-kit][neon]") {
  for (const char* tool : {"clang++", "ld.lld", "qemu-aarch64"}) {
    INFO(tool << " not found: run tools/setup.sh (it installs clang, lld and qemu-user)");
    REQUIRE(std::system((std::string("command -v ") + tool + " >/dev/null 2>&1").c_str()) == 0);
  }
  const std::string arch_file = "archs/neoverse-n1.yaml";
  const Arch arch = load_arch(source_path(arch_file));
  ScratchDir dir;
  emit_kit(dir, arch_file);
  REQUIRE(fs::exists(dir.path() + "/kit/cmake/aarch64-linux-gnu-clang.cmake"));
  const std::string profiler =
      build_kit(dir, "-DCMAKE_TOOLCHAIN_FILE=" + dir.path() + "/kit/cmake/aarch64-linux-gnu-clang.cmake");
  CHECK(elf_machine(profiler) == 183);
  // The "device": qemu emulating a Neoverse N1, whose ID register the kit reads as it would on the real core.
  const std::string log = dir.path() + "/run.log";
  const int ran = shell("cd " + dir.path() + " && qemu-aarch64 -L /usr/aarch64-linux-gnu -cpu neoverse-n1 " +
                            profiler + " -o kit-records.yaml --rounds 1",
                        log);
  INFO(read_file(log));
  REQUIRE(ran == 0);
  const std::string records_path = dir.path() + "/kit-records.yaml";
  const ProfileRecords records = check_kit_records(records_path, arch);
  CHECK_THAT(records.cpu, Catch::StartsWith("Arm Neoverse N1 r") && Catch::Contains("(MIDR_EL1 0x41"));
  CHECK_THAT(records.compiler, Catch::Contains("clang", Catch::CaseSensitive::No) && Catch::EndsWith(" for aarch64"));
  generate_with_records(dir, arch_file, records, "kit-records.yaml");
}
