#!/usr/bin/env bash
# Replays the model-accuracy timings of a tools/bench run against the working tree's dispatcher: for every call in
# oracle.csv (every kernel of the package forced by id, and timed), the fraction of the fastest kernel's time that the
# working tree's pick would get, beside the recorded dispatcher's. A change to the cost model or to the dispatcher's
# rules can so be scored on a whole suite without timing anything again: on a shared machine, two bench runs differ
# by more than most such changes. The timings stay those of the templates that were benchmarked, so a change to the
# kernels or loops themselves needs tools/ab.sh instead.
#
# Usage: tools/replay.sh [--arch FILE] [--profile FILE | --no-profile] [ORACLE_CSV...]
# ORACLE_CSV defaults to build/bench/out/oracle.csv; several runs of the same package and suites are scored against
# each kernel's median time over them (one run's fraction moved by 5 points between runs). --arch and --profile
# default to what tools/bench.sh used (build/bench/host.yaml and build/bench/pkg/profile_records.yaml): the kernel
# table must be the one that was timed. Prints CSV (category, calls, geometric-mean fraction of the oracle: recorded
# dispatcher, this one), then every call whose pick changed.
set -euo pipefail
cd "$(dirname "$0")/.."

script=replay.sh
source tools/package_args.sh
oracles=()
while [ $# -gt 0 ]; do
  package_option "$@"
  if [ "$package_shift" -gt 0 ]; then
    shift "$package_shift"
    continue
  fi
  case $1 in
    -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    -*) echo "replay.sh: unknown option $1" >&2; exit 2 ;;
    *) oracles+=("$1"); shift ;;
  esac
done
[ ${#oracles[@]} -gt 0 ] || oracles=(build/bench/out/oracle.csv)
require_package_inputs "${oracles[@]}"

work=build/replay
rm -rf "$work"
mkdir -p "$work"
build/strata generate --arch "$arch" --op ops/sgemm.yaml --name strata_replay "${profile[@]}" -o "$work/pkg" >/dev/null
cmake -S "$work/pkg" -B "$work/build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$work/build" --target strata_replay >/dev/null
c++ -O2 -std=c++17 -DREPLAY_PKG=strata_replay -I"$work/pkg/include" tools/replay/picks.cpp \
  "$work/build/libstrata_replay.a" -pthread -o "$work/picks"
python3 tools/replay/replay.py "$work/picks" "${oracles[@]}"
