#!/usr/bin/env python3
"""Scores a dispatcher against timings already taken: for every row of an oracle.csv (tools/bench's model-accuracy
runs, every kernel forced by id), the fraction of the fastest kernel's time that the dispatcher's pick would have
got, for the recorded pick and for the picks printed by picks.cpp. See tools/replay.sh."""
import csv
import math
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


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: replay.py ORACLE_CSV PICKS_PROGRAM")
    path, picks_program = sys.argv[1], sys.argv[2]
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        sys.exit(f"replay: {path}: {e.strerror}")
    needed = {"category", "M", "N", "K", "threads", "best_s", "oracle_fraction"}
    if not rows or not needed <= set(rows[0]):
        sys.exit(f"replay: {path}:1: expected an oracle.csv from tools/bench with columns {sorted(needed)}")
    recorded_kernels = sum(1 for c in rows[0] if c.startswith("k") and c.endswith("_s") and c[1:-2].isdigit())
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
