#!/usr/bin/env bash
# Times a generated CPU package's fused epilogue (bias per column + GELU, tanh form; tools/epilogues/epilogues.cpp)
# against the same GEMM followed by a separate pass (the package's own vectorised epilogue over C, rows shared among
# the threads) and against oneDNN's matmul with a bias and the same post-op, on a shape suite, B stored N x K (a
# linear layer's weights), interleaved per shape, with the plain GEMM alone for the epilogue's share: CSV with the
# medians and the fused call's speed against each.
# Usage: tools/epilogues.sh PACKAGE_DIR SUITE_CSV THREADS...   e.g.
#        tools/epilogues.sh emitted_examples/strata_sgemm_zen4_avx512 ../shared/shapes/transformer.csv 1 2
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then sed -n '7,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
package=$(cd "$1" && pwd); suite=$2; shift 2
name=$(basename "$(ls "$package"/include/*.h)" .h)
build=build/epilogues
cmake -S tools/epilogues -B "$build" -DPACKAGE_DIR="$package" -DPACKAGE_NAME="$name" > /dev/null
cmake --build "$build" --parallel 2 > /dev/null
first=1
for threads in "$@"; do
  if [ "$first" = 1 ]; then OMP_WAIT_POLICY=PASSIVE "$build/epilogues" "$suite" "$threads"; first=0
  else OMP_WAIT_POLICY=PASSIVE "$build/epilogues" "$suite" "$threads" | tail -n +2; fi
done
