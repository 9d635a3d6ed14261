// CPU targets. x86-64 packages build with gcc and clang and run natively. AArch64 packages build on an AArch64
// host with its gcc and clang and run natively; elsewhere with clang for aarch64-linux-gnu and lld against
// Debian's arm64 cross libraries, through the toolchain file the package ships, and run under qemu-aarch64.
#include <fmt/format.h>

#include <filesystem>

#include "common/error.h"
#include "verify/targets.h"

namespace strata {
namespace {

constexpr char kSetup[] = "tools/setup.sh installs it";

// gcc and clang for the host, whose binaries run here.
std::vector<BuildConfig> native_configs() {
  BuildConfig gcc;
  gcc.label = "gcc";
  gcc.compiler = "g++";
  gcc.cmake_args = {"-DCMAKE_CXX_COMPILER=g++"};
  gcc.runs_on = "natively";
  gcc.requirements = {{"g++", fmt::format("{} (Debian package build-essential)", kSetup)}};
  BuildConfig clang;
  clang.label = "clang";
  clang.compiler = "clang++";
  clang.cmake_args = {"-DCMAKE_CXX_COMPILER=clang++"};
  clang.runs_on = "natively";
  clang.requirements = {{"clang++", fmt::format("{} (Debian package clang)", kSetup)}};
  return {gcc, clang};
}

}  // namespace

std::vector<BuildConfig> x86_64_configs(const PackageInfo&) {
#if defined(__x86_64__)
  return native_configs();
#else
  return {};  // verify_package says that this host cannot build x86-64 packages
#endif
}

std::vector<BuildConfig> aarch64_configs(const PackageInfo& package) {
#if defined(__aarch64__)
  (void)package;
  return native_configs();
#else
  const char* const kSysroot = "/usr/aarch64-linux-gnu";  // Debian's arm64 cross libraries
  const char* const kToolchainFile = "cmake/aarch64-linux-gnu-clang.cmake";
  const std::string toolchain = (std::filesystem::path(package.dir) / kToolchainFile).string();
  if (!std::filesystem::exists(toolchain))
    throw Error({package.manifest, 0, 0},
                fmt::format("an aarch64 package must ship {} (the clang + lld cross toolchain file); {} has none",
                            kToolchainFile, package.dir));
  BuildConfig clang;
  clang.label = "clang-aarch64";
  clang.compiler = "clang++ --target=aarch64-linux-gnu";
  clang.cmake_args = {"-DCMAKE_TOOLCHAIN_FILE=" + toolchain, std::string("-DAARCH64_SYSROOT=") + kSysroot};
  clang.requirements = {
      {"clang++", fmt::format("{} (Debian package clang)", kSetup)},
      {"ld.lld", fmt::format("{} (Debian package lld)", kSetup)},
      {std::string(kSysroot) + "/lib/libc.so.6", fmt::format("{} (Debian package libc6-dev-arm64-cross)", kSetup)},
      {"/usr/lib/gcc-cross/aarch64-linux-gnu",
       fmt::format("{} (Debian packages libstdc++-12-dev-arm64-cross, libgcc-12-dev-arm64-cross)", kSetup)},
  };
  clang.run_prefix = {"qemu-aarch64", "-L", kSysroot};
  clang.runs_on = "under qemu-aarch64";
  clang.requirements.push_back({"qemu-aarch64", fmt::format("{} (Debian package qemu-user)", kSetup)});
  return {clang};
#endif
}

}  // namespace strata
