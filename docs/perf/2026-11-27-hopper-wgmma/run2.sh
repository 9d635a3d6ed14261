#!/bin/bash
# Second device check, prepared and not run yet (no GPU was lent for it; prepare.sh first): the CUDA packages with
# the wgmma family (built as generated: sm_90a for the H100 fp16 package), self-tested; then the H100 fp16 package
# before the family (main at eb0c2e1, in .gpu_try/before, built for sm_90) and after it, each against cuBLAS
# interleaved per shape, on the default sweep and the transformer, cnn and gnn suites (.gpu_shapes: copies of the
# shared shape lists), the after package with --oracle; then, as time allows, transposed and batched calls against
# cuBLAS, and the convolution packages (fp16 and fp32) against cuDNN. The self-tests include the transposed,
# epilogue and batched calls and the convolutions. Run from the repository root; results under $OUT.
set -o pipefail
OUT=${OUT:-/tmp/out}; mkdir -p "$OUT"; R=/tmp/res; mkdir -p $R; LOG=$R/log.txt
END=${END:-480}
log(){ echo "== [t=${SECONDS}s] $*" | tee -a $LOG; }
pack(){ (cd $R && tar czf $OUT/results.tgz *) 2>/dev/null; }
step(){ local name=$1 max=$2 out=$3; shift 3; local t=$((END - SECONDS)); [ $t -gt $max ] && t=$max
  if [ $t -lt 5 ]; then log "SKIP $name"; echo "$name SKIPPED" >> $R/steps.txt; return 99; fi
  timeout $t "$@" > $out 2>> $LOG; local rc=$?; echo "$name rc=$rc t=${SECONDS}s" >> $R/steps.txt; pack; return $rc; }
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.sm,clocks.max.sm,temperature.gpu,power.draw --format=csv 2>&1 | tee -a $LOG
build(){ local src=$1 name=$2; shift 2
  cmake -S $src -B /tmp/b-$name -G Ninja -DCMAKE_BUILD_TYPE=Release "$@" > /tmp/cfg-$name.log 2>&1 &&
    cmake --build /tmp/b-$name -j8 > /tmp/build-$name.log 2>&1; echo "build $name rc=$? t=${SECONDS}s" >> $R/steps.txt; }
# The kernel template alone first: tools/cuda_wgmma_variants.cu's correctness checks (split-K in the same launch too).
nvcc -std=c++17 -O3 -gencode arch=compute_90a,code=sm_90a tools/cuda_wgmma_variants.cu -lcublas -o /tmp/w > $R/probe_build.txt 2>&1 &&
  timeout 60 /tmp/w --reps 1 > $R/probe_checks.txt 2>&1; log "probe rc=$?"; tail -3 $R/probe_checks.txt | tee -a $LOG
E=emitted_examples
build $E/strata_hgemm_tc_h100 after -DSTRATA_HGEMM_TC_H100_PTXAS_VERBOSE=ON &
build .gpu_try/before/$E/strata_hgemm_tc_h100 before -DCMAKE_CUDA_ARCHITECTURES=90 &
build $E/strata_sgemm_h100 sgemm &
build $E/strata_hgemm_tc_a100 a100 -DCMAKE_CUDA_ARCHITECTURES=90 &
build $E/strata_conv2d_nhwc_tc_h100 conv16 -DBUILD_SHARED_LIBS=ON &
build .gpu_try/strata_conv2d_nhwc_h100 conv32 -DBUILD_SHARED_LIBS=ON &
wait; log "built"; cat $R/steps.txt | tee -a $LOG; grep -h "error" /tmp/build-*.log | head -5 | tee -a $LOG
cp /tmp/build-after.log $R/build_after.log
for v in after sgemm a100 conv16 conv32; do
  (timeout 150 /tmp/b-$v/*_selftest > $R/selftest_$v.txt 2>&1; echo "selftest $v rc=$? t=${SECONDS}s" >> $R/steps.txt) &
done
wait; pack; log "selftests"; grep -h "selftest:\|wgmma kernels\|FAIL" $R/selftest_*.txt | head -20 | tee -a $LOG
for suite in transformer cnn gnn default; do
  args=(--reps 15); [ $suite != default ] && args+=(--csv .gpu_shapes/$suite.csv)
  step before_$suite 70 $R/before_$suite.csv /tmp/b-before/strata_hgemm_tc_h100_bench "${args[@]}"
  step after_$suite 110 $R/after_$suite.csv /tmp/b-after/strata_hgemm_tc_h100_bench --oracle "${args[@]}"
  log "suite $suite done"
done
# Last, while time is left: the calls of issue 41 against cuBLAS (cublasGemmStridedBatchedEx with the same
# transposes): weights stored N x K (NT) and a transposed A on the transformer suite, and attention-shaped batches
# (Q K^T with K = 64 and P V with K = sequence) at 12, 96 and 384 products.
for v in sgemm after; do
  b=/tmp/b-$v/$(ls /tmp/b-$v | grep '_bench$')
  for layout in NT TN; do
    step calls_${v}_$layout 25 $R/calls_${v}_$layout.csv $b --reps 9 --layout $layout --csv .gpu_shapes/transformer.csv
  done
  for batch in 12 96 384; do
    step calls_${v}_batch$batch 15 $R/calls_${v}_batch$batch.csv $b --reps 9 --layout NT --batch $batch \
      16,16,64 64,64,64 128,128,64 256,256,64 512,512,64 128,64,128 512,64,512
  done
done
# Convolution against cuDNN through PyTorch (channels_last, cudnn.benchmark; fp16 in and out, and fp32 with TF32
# off), every result checked first: the ResNet-50, AlexNet and VGG-16 layers of conv.csv.
step conv_f16 60 $R/conv_f16.csv python3 tools/gpu_conv_bench.py --lib /tmp/b-conv16/libstrata_conv2d_nhwc_tc_h100.so \
  --name strata_conv2d_nhwc_tc_h100 --dtype f16 --shapes .gpu_shapes/conv.csv --reps 9
step conv_f32 60 $R/conv_f32.csv python3 tools/gpu_conv_bench.py --lib /tmp/b-conv32/libstrata_conv2d_nhwc_h100.so \
  --name strata_conv2d_nhwc_h100 --dtype f32 --shapes .gpu_shapes/conv.csv --reps 9
nvidia-smi --query-gpu=clocks.sm,temperature.gpu,power.draw --format=csv,noheader 2>&1 | tee -a $LOG
pack; log done; grep -v "rc=0" $R/steps.txt
for f in $R/*_{default,transformer,cnn,gnn}.csv $R/calls_*.csv $R/conv_*.csv; do
  awk -F, -v f=$(basename $f) 'NR==1{for(i=1;i<=NF;i++){if($i=="speedup_vs_cublas"||$i=="speedup_vs_cudnn")c=i; if($i=="pick_over_oracle")o=i; if($i=="strata_graph_ms")g=i; if($i=="cublas_graph_ms")h=i}; next}
    c&&$c>0{s+=log($c);n++} o&&$o>0{t+=log(1/$o);m++} g&&$g>0&&$h>0{u+=log($h/$g);q++}
    END{if(n) printf "%-24s n=%d peer/Strata %.3f", f, n, exp(s/n); if(m) printf "  oracle/pick %.3f", exp(t/m); if(q) printf "  graph %.3f", exp(u/q); printf "\n"}' $f
done
grep -h "^[a-z_]*,4096,4096,4096\|^[a-z_]*,8192,8192,8192" $R/*_default.csv | cut -d, -f1-12 | head
