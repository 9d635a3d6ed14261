#!/usr/bin/env bash
# Benchmarks a convolution package for this machine against oneDNN's convolution primitive and XNNPACK, on the
# layers of ../shared/shapes/conv.csv (ResNet-50, AlexNet, VGG-16), interleaved per layer, every result checked
# (tools/conv_bench/conv_bench.cpp). Installs the peers from Debian, builds Strata, generates the package (with the
# profile records of a package already at build/conv_bench/pkg, or a fresh profile), then prints the CSV and, per
# network, batch and thread count, the geometric means of the package's speed over oneDNN and over the faster peer.
# Usage: tools/conv_bench.sh [--suite FILE] [THREADS...]   (default: 1 2)
# Results: build/conv_bench/results.csv and build/conv_bench/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
suite=../shared/shapes/conv.csv
if [ "${1:-}" = "--suite" ]; then suite=$2; shift 2; fi
threads=("$@")
[ "${#threads[@]}" -gt 0 ] || threads=(1 2)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}
missing=()
for p in libdnnl-dev libxnnpack-dev libpthreadpool-dev cmake; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

tools/setup.sh
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --parallel "$(nproc)" --target strata
mkdir -p build/conv_bench
[ -f build/conv_bench/host.yaml ] || build/strata arch detect -o build/conv_bench/host.yaml
records=()
[ -f build/conv_bench/pkg/profile_records.yaml ] && cp build/conv_bench/pkg/profile_records.yaml build/conv_bench/records.yaml &&
  records=(--profile build/conv_bench/records.yaml)
build/strata generate --arch build/conv_bench/host.yaml --op ops/conv2d_nhwc.yaml "${records[@]}" --name bench_conv \
  -o build/conv_bench/pkg
cmake -S tools/conv_bench -B build/conv_bench/harness -G Ninja -DPACKAGE_DIR="$PWD/build/conv_bench/pkg" \
  -DPACKAGE_NAME=bench_conv > /dev/null
cmake --build build/conv_bench/harness --parallel "$(nproc)" > /dev/null

# OMP_PROC_BIND=false: Debian's oneDNN otherwise binds the process's main thread to one CPU, and the package's
# threads, started from it, then share that CPU. OMP_WAIT_POLICY=PASSIVE: oneDNN's idle threads sleep rather than
# spin on the CPUs the next contender runs on.
out=build/conv_bench/results.csv
first=1
for t in "${threads[@]}"; do
  if [ "$first" = 1 ]; then OMP_PROC_BIND=false OMP_WAIT_POLICY=PASSIVE build/conv_bench/harness/conv_bench "$suite" "$t" > "$out"; first=0
  else OMP_PROC_BIND=false OMP_WAIT_POLICY=PASSIVE build/conv_bench/harness/conv_bench "$suite" "$t" | tail -n +2 >> "$out"; fi
done
cat "$out"
# Columns: 1 category, 2 batch, 12 threads, 18 over_onednn, 20 over_best, 21 and 23 the same for the packed filter.
awk -F, 'NR > 1 {
    key = $1 " batch " $2 " threads " $12
    n[key]++; onednn[key] += log($18); best[key] += log($20); ponednn[key] += log($21); pbest[key] += log($23)
    tn[$12]++; tonednn[$12] += log($18); tbest[$12] += log($20); tponednn[$12] += log($21); tpbest[$12] += log($23)
  }
  END {
    f = "%-28s layers %2d  over oneDNN %.3f  over the best peer %.3f  packed filter: %.3f  %.3f\n"
    for (k in n) printf f, k, n[k], exp(onednn[k] / n[k]), exp(best[k] / n[k]), exp(ponednn[k] / n[k]), exp(pbest[k] / n[k])
    for (t in tn) printf f, "all, threads " t, tn[t], exp(tonednn[t] / tn[t]), exp(tbest[t] / tn[t]), exp(tponednn[t] / tn[t]), exp(tpbest[t] / tn[t])
  }' "$out" | sort | tee build/conv_bench/summary.txt
