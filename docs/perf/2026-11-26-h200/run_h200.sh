#!/bin/bash
# One device run: build, self-test and bench the emitted CUDA packages on the H200.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
LOG=$OUT/log.txt; R=/tmp/res; mkdir -p $R
S=.gpu_shapes
END=395   # seconds after start by which every step must be done (run timeout_s 420)
log(){ echo "== [t=${SECONDS}s] $*" | tee -a $LOG; }
tmo(){ local t=$((END - SECONDS)); [ $t -gt $1 ] && t=$1; echo $t; }
pack(){ (cd $R && tar cf $OUT/results.tar *) 2>/dev/null; }
# step NAME MAXSECONDS OUTFILE CMD...: runs CMD with a timeout, stdout to OUTFILE (or log), stderr to log
step(){ local name=$1 max=$2 out=$3; shift 3; local t; t=$(tmo $max)
  if [ $t -lt 10 ]; then log "SKIP $name (time)"; echo "$name SKIPPED_TIME" >> $R/steps.txt; return 99; fi
  log "RUN $name (timeout $t s): $*"
  if [ "$out" = - ]; then timeout $t "$@" 2>&1 | tee -a $LOG; rc=$?
  else timeout $t "$@" > $out 2> >(tee -a $LOG >&2); rc=$?; fi
  log "END $name rc=$rc"; echo "$name rc=$rc t=${SECONDS}s" >> $R/steps.txt; pack; return $rc; }
log "host: $(hostname) $(uname -r)"
nvidia-smi 2>&1 | tee -a $LOG
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a $LOG
nvcc --version 2>&1 | tee -a $LOG; cmake --version 2>&1 | head -1 | tee -a $LOG; ninja --version 2>&1 | tee -a $LOG
GEN=(-G Ninja); command -v ninja >/dev/null || { GEN=(); log "no ninja: default generator"; }
PKGS="strata_sgemm_h100 strata_hgemm_tc_h100 strata_sgemm_a100 strata_hgemm_tc_a100"
for p in $PKGS; do
  B=/tmp/b-$p
  step "$p:configure" 90 - cmake -S emitted_examples/$p -B $B "${GEN[@]}" -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release &&
  step "$p:build" 240 - cmake --build $B -j16
done
for p in $PKGS; do
  B=/tmp/b-$p
  case $p in *a100) [ $SECONDS -gt 290 ] && { log "SKIP $p (time)"; echo "$p SKIPPED_TIME" >> $R/steps.txt; continue; } ;; esac
  [ -x $B/${p}_selftest ] || { log "SKIP $p: not built"; continue; }
  step "$p:selftest" 90 $R/${p}_selftest.txt $B/${p}_selftest; tail -25 $R/${p}_selftest.txt | tee -a $LOG
  step "$p:bench-default" 120 $R/${p}_default.csv $B/${p}_bench
  for s in transformer cnn gnn; do
    step "$p:bench-$s" 90 $R/${p}_$s.csv $B/${p}_bench --csv $S/$s.csv
  done
  nvidia-smi --query-gpu=clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a $LOG
done
pack; log "done"; cat $R/steps.txt; grep -h 'selftest:' $R/*_selftest.txt
