#!/bin/bash
# The last device check of 2026-11-26: the four CUDA packages as committed on main, built for sm_90, self-tested, and the
# A100 fp16 package (never run as committed) benched on the three suites.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; R=/tmp/res; mkdir -p $R; LOG=$R/log.txt
log(){ echo "== [t=${SECONDS}s] $*" | tee -a $LOG; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv 2>&1 | tee -a $LOG
for p in strata_hgemm_tc_a100 strata_hgemm_tc_h100 strata_sgemm_a100 strata_sgemm_h100; do
  (cmake -S emitted_examples/$p -B /tmp/b-$p -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >> $LOG 2>&1 &&
   cmake --build /tmp/b-$p -j8 >> $LOG 2>&1; echo "$p build rc=$?" >> $R/steps.txt) &
done
wait; log "built"; cat $R/steps.txt | tee -a $LOG
for p in strata_hgemm_tc_a100 strata_sgemm_a100 strata_hgemm_tc_h100 strata_sgemm_h100; do
  timeout 90 /tmp/b-$p/${p}_selftest > $R/${p}_selftest.txt 2>&1; echo "$p selftest rc=$? t=${SECONDS}" >> $R/steps.txt
  tail -2 $R/${p}_selftest.txt | tee -a $LOG
done
for s in transformer cnn gnn; do
  timeout 60 /tmp/b-strata_hgemm_tc_a100/strata_hgemm_tc_a100_bench --csv .gpu_shapes/$s.csv > $R/hgemm_tc_a100_$s.csv 2>> $LOG
  echo "bench $s rc=$? t=${SECONDS}" >> $R/steps.txt
done
(cd $R && tar czf $OUT/final.tgz *); cat $R/steps.txt
for f in $R/hgemm_tc_a100_*.csv; do
  awk -F, -v f=$(basename $f) 'NR==1{for(i=1;i<=NF;i++) if($i=="speedup_vs_cublas") c=i; next} c&&$c>0{s+=log($c);n++} END{if(n) printf "%-28s n=%d geomean %.3f\n", f, n, exp(s/n)}' $f
done
