#!/usr/bin/env bash
# Regenerates emitted_examples/ with the commands in emitted_examples/commands.txt.
# An example that names profile records it does not have yet is profiled on this machine first (pass --reprofile to redo that
# for all of them); then every example is regenerated from its records, so the result is reproducible anywhere.
# Usage: tools/regenerate_examples.sh [--reprofile] [strata-binary]   (default build/strata)
set -euo pipefail
cd "$(dirname "$0")/.."
reprofile=0
if [ "${1:-}" = "--reprofile" ]; then reprofile=1; shift; fi
strata=${1:-build/strata}
grep -v '^#' emitted_examples/commands.txt | while read -r line; do
  [ -n "$line" ] || continue
  read -r -a args <<< "$line"
  records= out=
  for ((i = 0; i < ${#args[@]}; ++i)); do
    case "${args[i]}" in
      --profile) records=${args[i + 1]} ;;
      -o) out=${args[i + 1]} ;;
    esac
  done
  # A modelled example (--no-profile, e.g. the CUDA packages: no GPU profiler yet) has no records to make.
  if [ -n "$records" ] && { [ "$reprofile" = 1 ] || [ ! -f "$records" ]; }; then
    # Profile here: the same command without --profile FILE measures level 0 and writes the records.
    profiled=()
    for ((i = 0; i < ${#args[@]}; ++i)); do
      if [ "${args[i]}" = --profile ]; then i=$((i + 1)); continue; fi
      profiled+=("${args[i]}")
    done
    rm -rf "$out.profiling"
    "$strata" "${profiled[@]/#$out/$out.profiling}"
    mkdir -p "$out"
    cp "$out.profiling/profile_records.yaml" "$records"
    rm -rf "$out.profiling"
  fi
  "$strata" "${args[@]}"
done
