#!/usr/bin/env python3
"""Times a CUDA convolution package's conv2d against cuDNN through PyTorch, interleaved per shape, on one GPU.

  tools/gpu_conv_bench.py --lib BUILD/libNAME.so --name NAME --dtype f16|f32 --shapes conv.csv [--reps 15]

The package is built as a shared library (cmake -DBUILD_SHARED_LIBS=ON) and called through ctypes on PyTorch's
tensors and current stream, so both run in one process on the same buffers. Per shape (columns of
../shared/shapes/README.md; groups must be 1): a random NHWC input and KRSC filter; cuDNN runs torch's conv2d on
channels_last tensors with torch.backends.cudnn.benchmark on (it picks its algorithm per shape), fp16 in and out
for f16 or fp32 with TF32 off for f32; the package reads the same input and filter and writes an fp32 NHWC output.
Every shape is checked once against torch's fp32 convolution of the same values before timing. Then `reps` rounds,
each timing one call of each with CUDA events (the order alternating), and the medians are written as CSV to stdout;
per-category geometric means of cuDNN time / package time go to stderr.
"""
import argparse
import csv
import ctypes
import math
import statistics
import sys

import torch
import torch.nn.functional as F


class Conv2d(ctypes.Structure):
    _fields_ = [(name, ctypes.c_int64) for name in (
        "batch", "in_h", "in_w", "in_c", "out_c", "kernel_h", "kernel_w",
        "stride_h", "stride_w", "pad_h", "pad_w", "dilation_h", "dilation_w")]


def load(lib_path, name):
    lib = ctypes.CDLL(lib_path)
    conv2d = getattr(lib, name + "_conv2d")
    conv2d.argtypes = [ctypes.POINTER(Conv2d), ctypes.c_float, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_float,
                       ctypes.c_void_p, ctypes.c_void_p]
    conv2d.restype = ctypes.c_int
    status_string = getattr(lib, name + "_status_string")
    status_string.argtypes = [ctypes.c_int]
    status_string.restype = ctypes.c_char_p
    return conv2d, status_string


def timed(fn):
    start, stop = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    stop.record()
    stop.synchronize()
    return start.elapsed_time(stop)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lib", required=True)
    parser.add_argument("--name", required=True)
    parser.add_argument("--dtype", choices=["f16", "f32"], required=True)
    parser.add_argument("--shapes", required=True)
    parser.add_argument("--reps", type=int, default=15)
    args = parser.parse_args()
    conv2d, status_string = load(args.lib, args.name)
    torch.backends.cudnn.benchmark = True
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    dtype = torch.float16 if args.dtype == "f16" else torch.float32
    device = torch.device("cuda")
    generator = torch.Generator(device=device).manual_seed(1234)

    out = csv.writer(sys.stdout)
    out.writerow(["category", "batch", "in_h", "in_w", "in_c", "out_c", "kernel_h", "kernel_w", "stride_h",
                  "stride_w", "pad_h", "pad_w", "M", "N", "K", "strata_ms", "cudnn_ms", "speedup_vs_cudnn",
                  "max_error_over_scale"])
    speedups = {}
    with open(args.shapes) as f:
        rows = [r for r in csv.DictReader(f) if int(r["groups"]) == 1]
    for r in rows:
        v = {k: int(r[k]) for k in ("batch", "in_h", "in_w", "in_c", "out_c", "kernel_h", "kernel_w", "stride_h",
                                    "stride_w", "pad_h", "pad_w", "dil_h", "dil_w")}
        desc = Conv2d(v["batch"], v["in_h"], v["in_w"], v["in_c"], v["out_c"], v["kernel_h"], v["kernel_w"],
                      v["stride_h"], v["stride_w"], v["pad_h"], v["pad_w"], v["dil_h"], v["dil_w"])
        # NCHW views of NHWC / KRSC storage: channels_last tensors whose memory is the package's layout.
        x = torch.randn(v["batch"], v["in_h"], v["in_w"], v["in_c"], device=device, generator=generator).to(dtype)
        w = torch.randn(v["out_c"], v["kernel_h"], v["kernel_w"], v["in_c"], device=device,
                        generator=generator).to(dtype)
        x_nchw, w_nchw = x.permute(0, 3, 1, 2), w.permute(0, 3, 1, 2)
        conv = dict(stride=(v["stride_h"], v["stride_w"]), padding=(v["pad_h"], v["pad_w"]),
                    dilation=(v["dil_h"], v["dil_w"]))
        reference = F.conv2d(x_nchw.float(), w_nchw.float(), **conv).permute(0, 2, 3, 1).contiguous()
        y = torch.empty_like(reference)
        stream = ctypes.c_void_p(torch.cuda.current_stream().cuda_stream)

        def strata():
            status = conv2d(ctypes.byref(desc), 1.0, x.data_ptr(), w.data_ptr(), 0.0, y.data_ptr(), stream)
            if status != 0:
                raise RuntimeError(f"{args.name}_conv2d: {status_string(status).decode()} for {r}")

        def cudnn():
            F.conv2d(x_nchw, w_nchw, **conv)

        strata()
        torch.cuda.synchronize()
        scale = reference.abs().max().item() or 1.0
        error = (y - reference).abs().max().item() / scale
        if not error <= (2e-3 if args.dtype == "f16" else 1e-4):
            raise RuntimeError(f"wrong result for {r}: max error {error:.3g} of the largest output")
        for _ in range(3):
            cudnn()
            strata()
        times = {"strata": [], "cudnn": []}
        for i in range(args.reps):
            for name, fn in ((("strata", strata), ("cudnn", cudnn)) if i % 2 == 0 else
                             (("cudnn", cudnn), ("strata", strata))):
                times[name].append(timed(fn))
        s, c = statistics.median(times["strata"]), statistics.median(times["cudnn"])
        out_h = (v["in_h"] + 2 * v["pad_h"] - v["dil_h"] * (v["kernel_h"] - 1) - 1) // v["stride_h"] + 1
        out_w = (v["in_w"] + 2 * v["pad_w"] - v["dil_w"] * (v["kernel_w"] - 1) - 1) // v["stride_w"] + 1
        out.writerow([r["category"], v["batch"], v["in_h"], v["in_w"], v["in_c"], v["out_c"], v["kernel_h"],
                      v["kernel_w"], v["stride_h"], v["stride_w"], v["pad_h"], v["pad_w"],
                      v["batch"] * out_h * out_w, v["out_c"], v["kernel_h"] * v["kernel_w"] * v["in_c"],
                      f"{s:.5f}", f"{c:.5f}", f"{c / s:.4f}", f"{error:.3g}"])
        sys.stdout.flush()
        speedups.setdefault(r["category"], []).append(c / s)
    for category, values in speedups.items():
        mean = math.exp(sum(math.log(x) for x in values) / len(values))
        print(f"{category}: {len(values)} shapes, cuDNN time / {args.name} time, geometric mean {mean:.3f}",
              file=sys.stderr)


if __name__ == "__main__":
    main()
