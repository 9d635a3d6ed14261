#!/usr/bin/env bash
# Times a generated CPU package's calls on a B packed once (pack_b, gemm_packed_b; tools/packed_b/packed_b.cpp)
# against its plain calls on the same B, for every weight matrix (N x K) of a shape suite, B stored K x N (NN) and
# N x K (NT, a linear layer's weights), at M = 1 to 32, interleaved per shape: CSV with the medians and the packed
# call's speed against the plain one.
# Usage: tools/packed_b.sh PACKAGE_DIR SUITE_CSV THREADS...   e.g.
#        tools/packed_b.sh emitted_examples/strata_sgemm_zen4_avx512 ../shared/shapes/transformer.csv 1 2
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then sed -n '6,7p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
package=$(cd "$1" && pwd); suite=$2; shift 2
name=$(basename "$(ls "$package"/include/*.h)" .h)
build=build/packed_b
cmake -S tools/packed_b -B "$build" -DPACKAGE_DIR="$package" -DPACKAGE_NAME="$name" > /dev/null
cmake --build "$build" --parallel 2 > /dev/null
first=1
for threads in "$@"; do
  if [ "$first" = 1 ]; then "$build/packed_b" "$suite" "$threads"; first=0
  else "$build/packed_b" "$suite" "$threads" | tail -n +2; fi
done
