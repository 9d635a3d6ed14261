#!/usr/bin/env bash
# Times a generated CPU package's four layouts (NN, NT, TN, TT) against each other, interleaved per shape
# (tools/layouts/layouts.cpp): CSV with each layout's median time over NN's.
# Usage: tools/layouts.sh PACKAGE_DIR THREADS SHAPES_FILE...   e.g.
#        tools/layouts.sh emitted_examples/strata_sgemm_zen4_avx512 1 ../shared/shapes/transformer.csv
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
package=$(cd "$1" && pwd); threads=$2; shift 2
name=$(basename "$(ls "$package"/include/*.h)" .h)
build=build/layouts
cmake -S tools/layouts -B "$build" -DPACKAGE_DIR="$package" -DPACKAGE_NAME="$name" > /dev/null
cmake --build "$build" --parallel 2 > /dev/null
first=1
for shapes in "$@"; do
  if [ "$first" = 1 ]; then "$build/layouts" "$threads" "$shapes"; first=0
  else "$build/layouts" "$threads" "$shapes" | tail -n +2; fi
done
