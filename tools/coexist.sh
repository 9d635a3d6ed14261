#!/usr/bin/env bash
# Two packages in one process, called at once from two threads (tests/package_coexist/coexist.cpp --compare): the
# calls per second of both together under the default thread count, which keeps to the CPUs the pools find free,
# and with each package's thread count set to the default's, in alternating runs. Prints CSV: shape, run, calls/s
# under each, and their ratio; then the median ratio per shape.
# Usage: tools/coexist.sh ARCH.yaml PROFILE.yaml ROUNDS SECONDS M,N,K...   e.g.
#        tools/coexist.sh archs/zen4-avx512.yaml emitted_examples/strata_sgemm_zen4_avx512/profile_records.yaml \
#          7 1 512,512,512
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 5 ]; then sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; fi
arch=$1; profile=$2; rounds=$3; seconds=$4; shift 4
work=build/coexist
rm -rf "$work"; mkdir -p "$work"
for name in vend_a vend_b; do
  build/strata generate --arch "$arch" --op ops/sgemm.yaml --profile "$profile" --name "$name" -o "$work/$name" \
    > /dev/null 2>&1
  upper=$(echo "$name" | tr a-z A-Z)
  cmake -S "$work/$name" -B "$work/build-$name" -DCMAKE_BUILD_TYPE=Release -D"${upper}_BUILD_TESTS=OFF" \
    -D"${upper}_BUILD_BENCH=OFF" -DCMAKE_INSTALL_PREFIX="$work/prefix" > /dev/null
  cmake --build "$work/build-$name" --parallel 2 > /dev/null
  cmake --install "$work/build-$name" > /dev/null
done
# shellcheck disable=SC2046
c++ -std=c++17 -O2 -pthread tests/package_coexist/coexist.cpp \
  $(PKG_CONFIG_PATH="$work/prefix/lib/pkgconfig" pkg-config --cflags --libs vend_a vend_b) -o "$work/coexist"
echo "shape,run,default_calls_per_s,set_calls_per_s,default_over_set"
for shape in "$@"; do
  IFS=, read -r m n k <<< "$shape"
  ratios=()
  for ((run = 0; run < rounds; ++run)); do
    by_default=$("$work/coexist" --compare "$m" "$n" "$k" "$seconds" default | cut -d' ' -f1)
    set=$("$work/coexist" --compare "$m" "$n" "$k" "$seconds" set | cut -d' ' -f1)
    ratio=$(awk -v a="$by_default" -v b="$set" 'BEGIN { printf "%.3f", a / b }')
    ratios+=("$ratio")
    echo "${m}x${n}x${k},$run,$by_default,$set,$ratio"
  done
  printf '%s\n' "${ratios[@]}" | sort -g | awk -v s="${m}x${n}x${k}" '{ r[NR] = $1 } END { print "# median " s ": " r[int((NR + 1) / 2)] }'
done
