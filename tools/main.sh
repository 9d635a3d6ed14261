#!/usr/bin/env bash
# The main job: set up, build Strata, describe this machine, generate an fp32 GEMM package for it, build the
# package, run its self-test and time it on a few shapes.
# Usage: tools/main.sh [build-dir]   (default build/; the package lands in <build-dir>/host_sgemm)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
tools/setup.sh
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build "$build" --parallel "$(nproc)" --target strata
# The host descriptor is measured once and kept: its sha256 keys the profile records, so regenerating reuses them.
[ -f "$build/host.yaml" ] || "$build/strata" arch detect -o "$build/host.yaml"
"$build/strata" sieve --arch "$build/host.yaml" --op ops/sgemm.yaml
"$build/strata" generate --arch "$build/host.yaml" --op ops/sgemm.yaml --name host_sgemm -o "$build/host_sgemm"
cmake -S "$build/host_sgemm" -B "$build/host_sgemm/build" -G Ninja -DCMAKE_BUILD_TYPE=Release
cmake --build "$build/host_sgemm/build" --parallel "$(nproc)"
"$build/host_sgemm/build/host_sgemm_selftest"
"$build/host_sgemm/build/host_sgemm_bench" 64,64,64 512,768,768 2048,2048,2048 8,4096,4096
