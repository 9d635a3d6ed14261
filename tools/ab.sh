#!/usr/bin/env bash
# Interleaved A/B timing of the package a git revision generates for this host (A) against the one the working tree
# generates (B), from the same descriptor and profile records, with their calls alternating in one process
# (tools/ab/ab.cpp), so that both see the same machine: on a shared machine, runs minutes apart differ by more than
# most changes. Where the revision's generator sources (generator/, and the model and planner headers it compiles
# from templates/) match the working tree's, A is the working tree's generator over the revision's templates; else
# the revision's own generator is built (build/ab/gen_a, from a git worktree).
#
# Usage: tools/ab.sh REV [--arch FILE] [--profile FILE | --no-profile] [--a-profile FILE] [--threads T] [--rounds R]
#                    M,N,K ...
#   e.g. tools/ab.sh HEAD~1 --threads 1 2048,2048,2048 16,768,3072
#        tools/ab.sh HEAD~1 --arch archs/x86-avx2.yaml --no-profile 100,100,100   (AVX2 code on an AVX-512 host)
#        tools/ab.sh HEAD --profile run2.yaml --a-profile run1.yaml ...   (two profiles of one machine compared)
# --a-profile: A is generated from these records instead of --profile's (both made for the same descriptor).
# --arch defaults to build/bench/host.yaml and --profile to build/bench/pkg/profile_records.yaml (what
# tools/bench.sh makes); records must have been made for the descriptor given. The host must run the descriptor's ISA.
# Prints CSV: M,N,K,threads,a_median_s,b_median_s, then B's speedup (> 1: the working tree is faster) three ways:
# ratio of the medians, median of the per-round ratios (the steadiest on a shared machine), ratio of the fastest.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -lt 2 ]; then
  sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
rev=$1
shift
script=ab.sh
source tools/package_args.sh
a_profile=()
while [ $# -gt 0 ]; do
  if [ "$1" = --a-profile ]; then
    a_profile=(--profile "${2:?"$script: --a-profile wants a records file"}")
    shift 2
    continue
  fi
  package_option "$@"
  [ "$package_shift" -eq 0 ] && break
  shift "$package_shift"
done
# shellcheck disable=SC2119  # no inputs beyond the package's own
require_package_inputs
git rev-parse --verify --quiet "$rev^{commit}" >/dev/null || { echo "ab.sh: not a git revision: $rev" >&2; exit 2; }

work=build/ab
rm -rf "$work/a" "$work/pkg_a" "$work/pkg_b" "$work/build_a" "$work/build_b"
mkdir -p "$work/a/bin" "$work/a/share/strata"
# The generator compiles some of templates/ too (the model and the CPU planner it prices the selection with), so
# those count as generator sources.
if git diff --quiet "$rev" -- generator CMakeLists.txt templates/cost_model.h templates/cuda/gpu_model.h \
  templates/cpu/runtime templates/cpu/kit/device_info.h; then
  # The generator looks for templates next to its binary first (share/strata/templates), so a copy of it beside
  # the revision's templates renders those.
  cp build/strata "$work/a/bin/strata"
else
  # The revision's generator and templates together: a worktree of it, built once per revision.
  commit=$(git rev-parse "$rev^{commit}")
  if [ "$(cat "$work/gen_a/commit" 2>/dev/null)" != "$commit" ]; then
    rm -rf "$work/gen_a"
    git worktree remove --force "$work/tree_a" 2>/dev/null || rm -rf "$work/tree_a"
    git worktree prune
    git worktree add --detach "$work/tree_a" "$commit" >/dev/null 2>&1
    cmake -S "$work/tree_a" -B "$work/gen_a" -G Ninja -DCMAKE_BUILD_TYPE=Release -DSTRATA_BUILD_TESTS=OFF >/dev/null
    cmake --build "$work/gen_a" --target strata >/dev/null
    echo "$commit" > "$work/gen_a/commit"
  fi
  cp "$work/gen_a/strata" "$work/a/bin/strata"
fi
git archive "$rev" templates | tar -x -C "$work/a/share/strata"
# The generator writes every package's LICENSE from the templates; revisions older than that file lack it.
[ -f "$work/a/share/strata/templates/LICENSE.generated" ] || cp templates/LICENSE.generated "$work/a/share/strata/templates/"

[ ${#a_profile[@]} -gt 0 ] || a_profile=("${profile[@]}")
"$work/a/bin/strata" generate --arch "$arch" --op ops/sgemm.yaml --name strata_ab_a "${a_profile[@]}" \
  -o "$work/pkg_a" >/dev/null
build/strata generate --arch "$arch" --op ops/sgemm.yaml --name strata_ab_b "${profile[@]}" -o "$work/pkg_b" >/dev/null
for side in a b; do
  cmake -S "$work/pkg_$side" -B "$work/build_$side" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  cmake --build "$work/build_$side" --target "strata_ab_$side" >/dev/null
done
c++ -O2 -std=c++17 -DAB_A=strata_ab_a -DAB_B=strata_ab_b -I"$work/pkg_a/include" -I"$work/pkg_b/include" \
  tools/ab/ab.cpp "$work/build_a/libstrata_ab_a.a" "$work/build_b/libstrata_ab_b.a" -pthread -o "$work/ab"
"$work/ab" "$@"
