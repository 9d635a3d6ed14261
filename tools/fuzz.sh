#!/usr/bin/env bash
# Builds the libFuzzer targets with clang under ASan and UBSan (build-fuzz/) and runs each for a while, seeded with
# the shipped specs and the regression inputs in tests/fuzz/regressions/: fuzz_specs (the loaders) and fuzz_sieve
# (the loaders and the sieve), SECONDS each. A finding (crash, sanitizer report, a run
# past 60 s or 2 GiB) fails the script and leaves its input in build-fuzz/findings/; add it to
# tests/fuzz/regressions/ once fixed.
# Usage: tools/fuzz.sh [--seconds N] [--runs N] [--jobs N]   (default: 60 seconds, one job)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=60 runs=-1 jobs=1
while [ $# -gt 0 ]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    *) echo "tools/fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
cmake -S . -B build-fuzz -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_CXX_COMPILER=clang++ \
  -DSTRATA_FUZZ=ON -DSTRATA_BUILD_TESTS=OFF > /dev/null
cmake --build build-fuzz --target fuzz_specs fuzz_sieve --parallel "$(nproc)" > /dev/null
for target in fuzz_specs fuzz_sieve; do
  mkdir -p "build-fuzz/corpus/$target" build-fuzz/findings
  cp -n archs/*.yaml ops/*.yaml tests/fuzz/regressions/* "build-fuzz/corpus/$target/" 2>/dev/null || true
  # The regression inputs first, each once: a fixed finding must stay fixed.
  "build-fuzz/tests/fuzz/$target" -runs=0 tests/fuzz/regressions
  "build-fuzz/tests/fuzz/$target" "build-fuzz/corpus/$target" -max_total_time="$seconds" -runs="$runs" -timeout=60 \
    -rss_limit_mb=2048 -max_len=65536 -jobs="$jobs" -workers="$jobs" -print_final_stats=1 \
    -artifact_prefix=build-fuzz/findings/
done
