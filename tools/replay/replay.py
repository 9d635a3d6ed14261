#!/usr/bin/env python3
"""Scores a dispatcher against timings already taken: for every row of an oracle.csv (tools/bench's model-accuracy
runs, every kernel forced by id), the fraction of the fastest kernel's time that the dispatcher's pick would have
got, for the recorded pick and for the picks printed by picks.cpp. Given several oracle.csv files of the same
package and suites, it scores against their per-kernel median times. See tools/replay.sh."""
import csv
import math
import statistics
import subprocess
import sys
from collections import defaultdict


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def kernel_seconds(row, kernel):
    """The time of a kernel in a row, following shared_kernels ("a=b": a ran b's computation and was timed as b)."""
    value = row.get(f"k{kernel}_s", "")
    if value:
        return float(value)
    for pair in row.get("shared_kernels", "").split():
        a, b = pair.split("=")
        if int(a) == kernel and row.get(f"k{b}_s", ""):
            return float(row[f"k{b}_s"])
    return None  # failed or pruned: slower than the fastest by more than --oracle-prune


def read_oracle(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"replay: {path}: {e.strerror}")
    needed = {"category", "M", "N", "K", "threads", "dispatch_kernel", "dispatch_s", "best_s", "oracle_fraction"}
    if not rows or not needed <= set(rows[0]):
        sys.exit(f"replay: {path}:1: expected an oracle.csv from tools/bench with columns {sorted(needed)}")
    return rows


def kernel_count(row):
    return sum(1 for c in row if c.startswith("k") and c.endswith("_s") and c[1:-2].isdigit())


CALL_COLUMNS = ("category", "M", "N", "K", "threads", "dispatch_kernel")  # a call and its recorded pick


def merge_runs(paths, runs):
    """One row per call with each kernel's median time over the runs (the calls must be the same, in the same
    order), and the recorded pick's fraction of the merged fastest. A single run of a suite scores a dispatcher
    by a few samples per kernel; on a shared machine the fraction of one run moved by 5 points between runs."""
    first = runs[0]
    for path, rows in zip(paths[1:], runs[1:]):
        if kernel_count(rows[0]) != kernel_count(first[0]):
            sys.exit(f"replay: {path} times {kernel_count(rows[0])} kernels, {paths[0]} {kernel_count(first[0])}")
        if [[r[c] for c in CALL_COLUMNS] for r in rows] != [[r[c] for c in CALL_COLUMNS] for r in first]:
            sys.exit(f"replay: {path} has other calls or other recorded picks than {paths[0]}: not the same suites "
                     "and package")
    merged = []
    for i, row in enumerate(first):
        out = {c: row[c] for c in CALL_COLUMNS}
        times = {}
        for kernel in range(kernel_count(row)):
            samples = [t for t in (kernel_seconds(rows[i], kernel) for rows in runs) if t is not None]
            if samples:
                times[kernel] = statistics.median(samples)
            out[f"k{kernel}_s"] = times.get(kernel, "")
        if not times:
            sys.exit(f"replay: {paths[0]}:{i + 2}: no kernel was timed for {row['M']}x{row['N']}x{row['K']} in any run")
        out["best_s"] = min(times.values())
        # The recorded pick's time: its kernel's, or, where its plan matched no forced kernel, its own.
        pick = times.get(int(row["dispatch_kernel"]))
        if pick is None:
            pick = statistics.median(float(rows[i]["dispatch_s"]) for rows in runs)
        out["oracle_fraction"] = out["best_s"] / pick
        merged.append(out)
    return merged


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: replay.py PICKS_PROGRAM ORACLE_CSV...")
    picks_program, paths = sys.argv[1], sys.argv[2:]
    runs = [read_oracle(path) for path in paths]
    rows = runs[0] if len(runs) == 1 else merge_runs(paths, runs)
    path = paths[0] if len(paths) == 1 else f"{paths[0]} (and {len(paths) - 1} more)"
    recorded_kernels = kernel_count(rows[0])
    calls = "".join(f"{r['M']} {r['N']} {r['K']} {r['threads']}\n" for r in rows)
    run = subprocess.run([picks_program], input=calls, capture_output=True, text=True)
    if run.returncode != 0:
        sys.exit(f"replay: {picks_program} failed: {run.stderr.strip()}")
    lines = run.stdout.splitlines()
    kernels = int(lines[0].split()[1])
    if kernels != recorded_kernels:
        sys.exit(f"replay: {path} times {recorded_kernels} kernels, the package has {kernels}: the timings were "
                 "taken for another package (another descriptor or profile records)")
    recorded, replayed = defaultdict(list), defaultdict(list)
    changed, unknown = [], 0
    for row, line in zip(rows, lines[1:]):
        kernel = int(line.split()[4])
        seconds = kernel_seconds(row, kernel)
        if seconds is None:
            unknown += 1
            fraction = 0.5  # pruned kernels ran over twice the fastest's warm-up time: at most this
        else:
            fraction = float(row["best_s"]) / seconds
        for key in (row["category"], "all"):
            recorded[key].append(float(row["oracle_fraction"]))
            replayed[key].append(fraction)
        if kernel != int(row["dispatch_kernel"]):
            changed.append((fraction / float(row["oracle_fraction"]), row, kernel, fraction))
    print("category,calls,recorded_dispatcher,this_dispatcher")
    for key in sorted(recorded, key=lambda k: (k == "all", k)):
        print(f"{key},{len(recorded[key])},{geomean(recorded[key]):.3f},{geomean(replayed[key]):.3f}")
    print(f"\n{len(changed)} picks changed ({unknown} of the new picks untimed, counted as 0.5):")
    for gain, row, kernel, fraction in sorted(changed, key=lambda c: c[0]):
        print(f"  {row['category']} {row['M']}x{row['N']}x{row['K']} T={row['threads']}: kernel "
              f"{row['dispatch_kernel']} -> {kernel}, fraction {float(row['oracle_fraction']):.3f} -> {fraction:.3f}")


if __name__ == "__main__":
    main()
