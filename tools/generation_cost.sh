#!/usr/bin/env bash
# Generation cost (the Helix paper's Table 9): for every descriptor in archs/ and every op it supports, the sieve's
# candidate counts per level and the wall time of a full `strata generate` (level 0 profiled on this host where the
# host runs the target's kernels, modelled otherwise), written as a Markdown table.
#
# Strata profiles level 0 only. The paper's second configuration, levels 0 and 1 profiled, is not implemented for
# CPUs; the last column gives its order of magnitude: this run's generation time per level-0 kernel, spent again
# on every level-1 candidate (a level-1 measurement would run a cache block rather than a register tile, so the
# true cost per candidate is higher still).
#
# Usage: tools/generation_cost.sh [build-dir] [out.md]   (default build/, build/bench/out/generation_cost.md)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=${2:-$build/bench/out/generation_cost.md}
strata="$build/strata"
[ -x "$strata" ] || { echo "generation_cost.sh: $strata not found; build Strata first (tools/test.sh)" >&2; exit 1; }
mkdir -p "$(dirname "$out")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Which ops each target's backend emits.
ops_for() {
  case "$1" in
    cuda) echo "ops/sgemm.yaml ops/hgemm_tc.yaml" ;;
    *) echo "ops/sgemm.yaml" ;;
  esac
}

{
  echo "# Generation cost"
  echo
  echo "Host: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'), $(nproc) hardware threads."
  echo "Command: \`tools/generation_cost.sh\`. Times are wall-clock seconds of one run each on a possibly shared machine."
  echo
  echo "| arch | op | L0 | L1 | L2 | total candidates | sieve s | level 0 | generate s | kernels | L0+L1 profiled, estimated s |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
} >"$out"

for arch in archs/*.yaml; do
  target=$(awk '/^target:/ {print $2; exit}' "$arch")
  for op in $(ops_for "$target"); do
    name=$(basename "$arch" .yaml)
    sieve=$("$strata" sieve --arch "$arch" --op "$op" 2>&1) || continue
    counts=$(echo "$sieve" | awk '$1 ~ /^L[0-9]$/ {printf "%s ", $4}')
    read -r l0 l1 l2 <<<"$counts"
    total=$(echo "$sieve" | awk '/total candidates:/ {print $3}')
    sieve_s=$(echo "$sieve" | awk '/sieve time:/ {printf "%.2f", $3 / 1000}')
    log="$work/$name.log"
    start=$(date +%s.%N)
    if ! "$strata" generate --arch "$arch" --op "$op" -o "$work/pkg-$name" --force >"$log" 2>&1; then
      echo "| $name | $(basename "$op" .yaml) | generation failed: $(tail -1 "$log") |" >>"$out"
      continue
    fi
    seconds=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
    kernels=$(grep -c '^  - id:' "$work/pkg-$name/manifest.yaml" || true)
    if grep -q '^  level0: "profiled' "$work/pkg-$name/manifest.yaml"; then
      level0="profiled"
      # Cost per profiled level-0 kernel, extrapolated to every level-1 candidate as well.
      estimate=$(awk -v s="$seconds" -v a="$l0" -v b="$l1" 'BEGIN {printf "%.0f", s + s / a * b}')
    else
      level0="modelled"
      estimate="n/a (no device)"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$(basename "$op" .yaml)" \
      "$l0" "$l1" "${l2:--}" "$total" "$sieve_s" "$level0" "$seconds" "$kernels" "$estimate" >>"$out"
  done
done
cat "$out"
