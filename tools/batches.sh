#!/usr/bin/env bash
# Times a generated CPU package's strided batches on attention's products (tools/batches/batches.cpp) against its own
# calls one product at a time, a loop of OpenBLAS calls and oneDNN's batched matmul, interleaved per shape: CSV with
# the medians and the package's speed against each.
# Usage: tools/batches.sh PACKAGE_DIR THREADS...   e.g.
#        tools/batches.sh emitted_examples/strata_sgemm_zen4_avx512 1 2
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 2 ]; then sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
package=$(cd "$1" && pwd); shift
name=$(basename "$(ls "$package"/include/*.h)" .h)
build=build/batches
cmake -S tools/batches -B "$build" -DPACKAGE_DIR="$package" -DPACKAGE_NAME="$name" > /dev/null
cmake --build "$build" --parallel 2 > /dev/null
first=1
for threads in "$@"; do
  if [ "$first" = 1 ]; then OMP_WAIT_POLICY=PASSIVE "$build/batches" "$threads"; first=0
  else OMP_WAIT_POLICY=PASSIVE "$build/batches" "$threads" | tail -n +2; fi
done
