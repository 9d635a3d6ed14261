#!/usr/bin/env bash
# Sets up (Debian packages), builds the generator and runs the whole test suite with CTest.
# Usage: tools/test.sh            (build directory: build/)
set -euo pipefail
cd "$(dirname "$0")/.."
tools/setup.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DSTRATA_WERROR="${STRATA_WERROR:-OFF}"
cmake --build build --parallel "$(nproc)"
ctest --test-dir build --output-on-failure --parallel "$(nproc)"
