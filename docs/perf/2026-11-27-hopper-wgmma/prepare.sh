#!/bin/bash
# Prepares what run2.sh reads on the device, from the repository root: the shape lists (copies of ../shared/shapes)
# in .gpu_shapes/ and the H100 fp16 package before the wgmma family (main at eb0c2e1) in .gpu_try/before/, both kept
# out of git by .git/info/exclude, and the H100 fp32 convolution package in .gpu_try/strata_conv2d_nhwc_h100 (from
# build/strata). Then, on a lent GPU: run2.sh with .gpu_shapes and .gpu_try carried, END=420.
set -e
grep -qx '/.gpu_shapes/' .git/info/exclude 2>/dev/null || printf '/.gpu_shapes/\n/.gpu_try/\n' >> .git/info/exclude
rm -rf .gpu_shapes .gpu_try
mkdir -p .gpu_shapes .gpu_try/before
cp ../shared/shapes/transformer.csv ../shared/shapes/cnn.csv ../shared/shapes/gnn.csv ../shared/shapes/conv.csv \
  .gpu_shapes/
git archive eb0c2e1 emitted_examples/strata_hgemm_tc_h100 | tar -x -C .gpu_try/before
build/strata generate --arch archs/h100.yaml --op ops/conv2d_nhwc.yaml --no-profile --max-kernels 4 \
  -o .gpu_try/strata_conv2d_nhwc_h100
echo "ready: .gpu_shapes $(ls .gpu_shapes | wc -l) files, .gpu_try/before/emitted_examples/strata_hgemm_tc_h100"
