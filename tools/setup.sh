#!/usr/bin/env bash
# Installs every Debian package Strata needs to build the generator, run its tests and
# verify emitted packages. Safe to run repeatedly. Run as root (or with sudo available).
set -euo pipefail

packages=(
  # generator build
  build-essential cmake ninja-build pkg-config git
  libyaml-cpp-dev libctemplate-dev libcli11-dev libfmt-dev libssl-dev catch2
  # verification of emitted packages: second compiler, LLVM linker, Arm cross builds
  clang lld
  libc6-dev-arm64-cross libstdc++-12-dev-arm64-cross libgcc-12-dev-arm64-cross qemu-user
  # libFuzzer and the sanitizer runtimes for clang (tools/fuzz.sh)
  libclang-rt-dev
  # formatting checks
  clang-format
  # the reference the packages' cblas_sgemm is tested against (tests/cblas_check)
  libopenblas-dev
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
