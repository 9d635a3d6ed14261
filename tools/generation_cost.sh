#!/usr/bin/env bash
# Generation cost (the Helix paper's Table 9): for every descriptor in archs/ and every op it supports, the sieve's
# candidate counts per level and the wall time of a full `strata generate` in two configurations: level 0 profiled
# (the default; on this host where it runs the target's kernels, modelled otherwise), and levels 0 and 1 profiled
# (a copy of the descriptor with `analyzer: profile` on level 1 as well; CPU targets this host runs only), with the
# number of level-1 blocks that timed. Written as a Markdown table.
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
  echo "| arch | op | L0 | L1 | L2 | total candidates | sieve s | level 0 | generate s | kernels | L0+L1 profiled: generate s | level-1 blocks timed |"
  echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
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
    both="n/a" blocks="n/a"
    if grep -q '^  level0: "profiled' "$work/pkg-$name/manifest.yaml"; then
      level0="profiled"
      # The same generation with level 1 profiled too: the descriptor's second `analyzer:` line says so. Its records
      # (level 0 included) are made afresh, since the copy's sha256 differs.
      awk '/^    analyzer:/ && ++n == 2 {print "    analyzer: profile"; next} {print}' "$arch" >"$work/$name-l1.yaml"
      start=$(date +%s.%N)
      if "$strata" generate --arch "$work/$name-l1.yaml" --op "$op" -o "$work/pkg-$name-l1" --force >"$log" 2>&1; then
        both=$(awk -v a="$start" -v b="$(date +%s.%N)" 'BEGIN {printf "%.1f", b - a}')
        blocks=$(grep -c '^  - kernel:' <(sed -n '/^level1:/,$p' "$work/pkg-$name-l1/profile_records.yaml") || true)
      else
        both="failed: $(tail -1 "$log")"
      fi
    else
      level0="modelled"
    fi
    printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$name" "$(basename "$op" .yaml)" \
      "$l0" "$l1" "${l2:--}" "$total" "$sieve_s" "$level0" "$seconds" "$kernels" "$both" "$blocks" >>"$out"
  done
done
cat "$out"
