#!/bin/bash
# First device check of the wgmma kernel family: build tools/cuda_wgmma_variants.cu for sm_90a, confirm HGMMA and
# the bulk tensor copies in its SASS, run its correctness checks (edge shapes, beta, ldc > N, split-K), then time
# every variant against cuBLAS on a few large, mid-size and small-M shapes. Run from the repository root.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; LOG=$OUT/run1.log
log(){ echo "== [t=${SECONDS}s] $*" | tee -a $LOG; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu --format=csv 2>&1 | tee -a $LOG
nvcc --version | tail -1 | tee -a $LOG
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a -Xptxas -v tools/cuda_wgmma_variants.cu -lcublas -o /tmp/w > $OUT/build.txt 2>&1
log "build rc=$?"; grep -E "registers|spill" $OUT/build.txt | sort | uniq -c | head -20 | tee -a $LOG
cuobjdump --dump-sass /tmp/w > /tmp/sass.txt 2>&1; log "SASS: HGMMA $(grep -c HGMMA /tmp/sass.txt), UTMALDG $(grep -c UTMALDG /tmp/sass.txt), HMMA $(grep -c HMMA /tmp/sass.txt)"
timeout 150 /tmp/w --reps 1 > $OUT/checks.txt 2>&1; rc=$?; log "checks rc=$rc"; tail -25 $OUT/checks.txt | tee -a $LOG
if [ $rc -ne 0 ]; then
  timeout 90 compute-sanitizer --tool memcheck /tmp/w --reps 1 2>&1 | head -40 > $OUT/sanitizer.txt; log "sanitizer"; head -30 $OUT/sanitizer.txt
fi
timeout 200 /tmp/w --reps 15 --csv $OUT/variants.csv 4096,4096,4096 8192,8192,8192 2048,2048,2048 1024,1024,1024 \
  2000,2304,768 512,768,768 128,3072,768 1,4096,4096 8,4096,4096 16,768,768 32,3072,768 64,4096,4096 \
  169343,128,16 1280,1024,4096 2304,1024,4096 > $OUT/timing.txt 2>&1
log "timing rc=$?"; grep -v "^check" $OUT/timing.txt | tee -a $LOG
