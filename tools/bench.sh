#!/usr/bin/env bash
# Benchmarks Strata against OpenBLAS, BLIS, oneDNN, Eigen and LIBXSMM on this machine, from a fresh Debian 12:
# installs the peers from Debian, builds Strata, generates a package for this host, builds the harness in
# tools/bench/ against it, runs it and prints the summary.
#
# Usage: tools/bench.sh [strata_bench options]
#   default: the four suites in ../shared/shapes at 1 and 2 threads; results in build/bench/out
#   e.g.     tools/bench.sh --suite ../shared/shapes/small.csv --threads 1 --out /tmp/small
# See `build/bench/harness/strata_bench --help` for every option. Exit status: the harness's (1 if the Strata
# dispatcher gave a wrong result).
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

installed() {
  dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"
}

tools/setup.sh

# The peers. OpenBLAS and BLIS come in pthread, OpenMP and serial variants; the harness uses the pthread ones
# (tools/bench/CMakeLists.txt explains why), so those are named explicitly next to the meta packages.
peers=(libopenblas-dev libopenblas-pthread-dev libblis-dev libblis-pthread-dev libdnnl-dev libeigen3-dev libxsmm-dev)
missing=()
for p in "${peers[@]}" cmake python3-matplotlib; do
  installed "$p" || missing+=("$p")
done
if [ "${#missing[@]}" -gt 0 ]; then
  export DEBIAN_FRONTEND=noninteractive
  as_root apt-get update -qq
  # One package that cannot be installed must not cost the others: a missing peer is skipped by the harness.
  if ! as_root apt-get install -y -qq --no-install-recommends "${missing[@]}"; then
    for p in "${missing[@]}"; do
      as_root apt-get install -y -qq --no-install-recommends "$p" || echo "bench.sh: could not install $p" >&2
    done
  fi
fi

# Strata itself, configured as tools/main.sh does when the build directory is new.
[ -f build/CMakeCache.txt ] || cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build --parallel "$(nproc)" --target strata

# A package for this host. The descriptor is measured once and kept (its hash keys the profile records kept in
# the package, so generating again reuses them instead of profiling again).
mkdir -p build/bench
[ -f build/bench/host.yaml ] || build/strata arch detect -o build/bench/host.yaml
build/strata generate --arch build/bench/host.yaml --op ops/sgemm.yaml --name bench_sgemm -o build/bench/pkg

cmake -S tools/bench -B build/bench/harness -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DSTRATA_PACKAGE_DIR="$PWD/build/bench/pkg" -DSTRATA_PACKAGE_NAME=bench_sgemm
cmake --build build/bench/harness --parallel "$(nproc)"

# The PNG needs a Python with matplotlib; the first python3 on PATH may be another installation (pyenv, a venv)
# than Debian's, which has python3-matplotlib.
python=python3
if ! python3 -c "import matplotlib" 2>/dev/null; then
  if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
    python=/usr/bin/python3
  else
    python3 -m pip install --quiet matplotlib || echo "bench.sh: no matplotlib; speedup.png will be missing" >&2
  fi
fi

# The output directory: the last --out given, else build/bench/out.
out=build/bench/out
out_option=(--out "$out")  # passed only when the caller gave none, so that the summary's command line names it once
args=("$@")
for ((i = 0; i < ${#args[@]}; ++i)); do
  case "${args[i]}" in
    --help | -h) exec build/bench/harness/strata_bench --help ;;
    --out) if [ $((i + 1)) -lt ${#args[@]} ]; then out=${args[i + 1]} out_option=(); fi ;;
  esac
done

# A summary left by an earlier run must not pass for this one's if this one fails early.
rm -f "$out/summary.md"
status=0
build/bench/harness/strata_bench "${out_option[@]}" --python "$python" "$@" || status=$?
if [ -f "$out/summary.md" ]; then
  echo
  cat "$out/summary.md"
fi
exit "$status"
