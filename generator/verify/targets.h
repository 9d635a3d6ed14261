// What `strata verify` builds for each target: one file per target family returns the build configurations its
// packages must pass (DESIGN.md, verify: gcc and clang for x86-64; clang --target=aarch64-linux-gnu with lld and
// qemu-aarch64 for Arm; nvcc with ptxas checks for CUDA). verify.cpp runs them all the same way: configure the
// package's own CMakeLists.txt with warnings as errors, build, run any extra checks, run the self-test.
//
// Adding a target: write its configurations in a file of its own (as targets_cpu.cpp does) and add one line to
// the table in targets.cpp.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace strata {

// What verify knows about a package, from its manifest.yaml.
struct PackageInfo {
  std::string dir;       // the package directory, absolute
  std::string manifest;  // its manifest.yaml, as given (for messages)
  std::string name;      // the CMake project, library and option prefix (<NAME>_WERROR, <NAME>_BUILD_TESTS)
  std::string target;    // manifest target.arch: x86_64, aarch64, cuda
  std::string vector;    // manifest target.vector: avx512, avx2, neon, ...
  std::string arch;      // manifest arch.name
};

// One build of a package.
struct BuildConfig {
  std::string label;                    // short and unique within a target: "gcc", "clang", "clang-aarch64"
  std::string compiler;                 // the compiler command: shown with its --version line
  std::vector<std::string> cmake_args;  // what selects it: -DCMAKE_CXX_COMPILER=..., -DCMAKE_TOOLCHAIN_FILE=...
  // How to run a binary it builds: empty natively, e.g. {"qemu-aarch64", "-L", sysroot} under emulation.
  std::vector<std::string> run_prefix;
  std::string runs_on;  // "natively", "under qemu-aarch64": for the report line
  // Programs (looked up on PATH) and files (absolute paths) without which the configuration cannot work; each
  // with what provides it. A missing one fails the configuration with that hint.
  struct Requirement {
    std::string what;  // program name or absolute path
    std::string hint;  // e.g. "tools/setup.sh installs it (Debian package lld)"
  };
  std::vector<Requirement> requirements;
  // Checks beyond the build and the self-test (CUDA: ptxas -v register and shared-memory limits), run after a
  // successful build in `build_dir`. Returns "" when they pass, else what failed (first line a summary).
  std::function<std::string(const PackageInfo& package, const std::string& build_dir)> after_build;
};

// The configurations a package of one target must pass. Throws strata::Error({package.manifest, 0, 0}, ...) when
// the package lacks what its target needs (for example the cross toolchain file).
using TargetConfigs = std::vector<BuildConfig> (*)(const PackageInfo& package);

struct TargetEntry {
  const char* target;  // manifest target.arch
  TargetConfigs configs;
};

// Every target verify knows (targets.cpp).
const std::vector<TargetEntry>& verify_targets();

// targets_cpu.cpp
std::vector<BuildConfig> x86_64_configs(const PackageInfo& package);
std::vector<BuildConfig> aarch64_configs(const PackageInfo& package);

// targets_cuda.cpp
std::vector<BuildConfig> cuda_configs(const PackageInfo& package);

// Whether `program` is on PATH (or, containing a slash, is an executable file).
bool program_exists(const std::string& program);

}  // namespace strata
