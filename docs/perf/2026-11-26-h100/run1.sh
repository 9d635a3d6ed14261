#!/bin/bash
# One device run: self-test and bench BEFORE (main's committed packages) and AFTER (branch cuda-occupancy) side by
# side, interleaved per suite, plus Tensor Core tile variants and every AFTER TC kernel forced on the suites.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"
G=.gpu_try; S=.gpu_shapes; R=/tmp/res; mkdir -p $R; LOG=$R/log.txt
END=${END:-300}; PHASE=${PHASE:-1}
log(){ echo "== [t=${SECONDS}s] $*" | tee -a $LOG; }
pack(){ (cd $R && tar czf $OUT/results.tgz *) 2>/dev/null; }
step(){ local name=$1 max=$2 out=$3; shift 3; local t=$((END - SECONDS)); [ $t -gt $max ] && t=$max
  if [ $t -lt 5 ]; then log "SKIP $name"; echo "$name SKIPPED" >> $R/steps.txt; return 99; fi
  timeout $t "$@" > $out 2>> $LOG; local rc=$?; echo "$name rc=$rc t=${SECONDS}s" >> $R/steps.txt; pack; return $rc; }
log "host $(hostname)"; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a $LOG
NV=$(command -v nvcc); for d in ${NV:+$(dirname $NV)/../lib64} /usr/local/cuda/lib64 /usr/local/cuda/lib /usr/local/cuda-13.0/lib64; do [ -d $d ] && LD_LIBRARY_PATH=$d:$LD_LIBRARY_PATH; done; export LD_LIBRARY_PATH
B=$G/bin
if ldd $B/after_h_bench | grep -q "not found"; then
  log "prebuilt binaries miss libraries: building here"; ldd $B/after_h_bench | tee -a $LOG
  for v in before after; do for p in strata_hgemm_tc_h100 strata_sgemm_h100; do
    s=h; [ $p = strata_sgemm_h100 ] && s=s
    cmake -S $G/src/$v/$p -B /tmp/b-$v-$p -G Ninja -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_BUILD_TYPE=Release >> $LOG 2>&1 &&
    cmake --build /tmp/b-$v-$p -j16 >> $LOG 2>&1 && cp /tmp/b-$v-$p/${p}_bench $B/${v}_${s}_bench && cp /tmp/b-$v-$p/${p}_selftest $B/${v}_${s}_selftest
  done; done
fi
step selftest_after_h 60 $R/after_h_selftest.txt $B/after_h_selftest; tail -3 $R/after_h_selftest.txt | tee -a $LOG
[ -x $B/after_ha100_selftest ] && { step selftest_after_ha100 60 $R/after_ha100_selftest.txt $B/after_ha100_selftest; tail -2 $R/after_ha100_selftest.txt | tee -a $LOG; }
step selftest_after_s 45 $R/after_s_selftest.txt $B/after_s_selftest; tail -3 $R/after_s_selftest.txt | tee -a $LOG
for suite in default transformer cnn gnn; do
  args=(); [ $suite != default ] && args=(--csv $S/$suite.csv)
  for v in before after; do for s in h s; do
    step ${v}_${s}_$suite 40 $R/${v}_${s}_$suite.csv $B/${v}_${s}_bench "${args[@]}"
  done; done
  log "suite $suite done"
done
step variants_tc 60 $R/variants_tc.csv $B/variants --tc
# Every AFTER Tensor Core kernel forced on the transformer suite and 4096^3 (the dispatcher's oracle).
for suite in transformer cnn gnn; do for id in $(seq 0 ${NTC:-3}); do
  step forced_h_${id}_$suite 20 $R/after_h_forced_${id}_$suite.csv $B/after_h_bench --kernel $id --csv $S/$suite.csv
done; done
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a $LOG
pack; log done; cat $R/steps.txt
# Short table: geomean speedup vs cuBLAS per file (column speedup_vs_cublas), and 4096^3 lines.
for f in $R/*_{default,transformer,cnn,gnn}.csv; do case $f in *forced*) continue;; esac
  awk -F, -v f=$(basename $f) 'NR==1{for(i=1;i<=NF;i++) if($i=="speedup_vs_cublas") c=i; next} c&&$c>0{s+=log($c);n++} END{if(n) printf "%-28s n=%d geomean %.3f\n", f, n, exp(s/n)}' $f
done
grep -h "^[a-z_]*,4096,4096,4096" $R/*_default.csv | cut -d, -f1-9 | head; grep -h "selftest" $R/*selftest.txt | tail -4
