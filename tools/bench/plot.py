#!/usr/bin/env python3
"""Draws speedup.png from the benchmark's results.csv: Strata's speedup over each peer (peer time / Strata time)
against the problem's FLOPs, one panel per thread count and one series per peer, in the form of the Helix paper's
Figure 8. Points above 1 are shapes where Strata is faster.

Usage: plot.py results.csv speedup.png
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")  # no display on a build machine
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter  # noqa: E402

MARKERS = "os^Dv<>P*X"


def read_speedups(path):
    """Returns {threads: {peer: [(flops, speedup)]}} from the rows with a correct result and a Strata time."""
    series = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["library"] == "strata" or row["status"] != "pass" or not row["time_over_strata"]:
                continue
            if row["category"] == "square":  # the %-of-peak shape, not part of a suite
                continue
            threads = int(row["threads"])
            point = (float(row["flops"]), float(row["time_over_strata"]))
            series.setdefault(threads, {}).setdefault(row["library"], []).append(point)
    return series


def main(argv):
    if len(argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    series = read_speedups(argv[1])
    if not series:
        print("plot.py: no peer results with a Strata time in " + argv[1], file=sys.stderr)
        return 1
    thread_counts = sorted(series)
    fig, axes = plt.subplots(1, len(thread_counts), figsize=(6.5 * len(thread_counts), 4.8), squeeze=False,
                             sharey=True)
    for ax, threads in zip(axes[0], thread_counts):
        for i, (peer, points) in enumerate(sorted(series[threads].items())):
            points.sort()
            ax.scatter([p[0] for p in points], [p[1] for p in points], label=peer, s=18, alpha=0.75,
                       marker=MARKERS[i % len(MARKERS)])
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xscale("log")
        ax.set_yscale("log", base=2)
        ax.yaxis.set_major_locator(LogLocator(base=2))
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _: "%gx" % v))
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("FLOPs of the problem (2MNK)")
        ax.set_title("%d thread%s" % (threads, "" if threads == 1 else "s"))
        ax.grid(True, which="both", linewidth=0.3, alpha=0.5)
    axes[0][0].set_ylabel("speedup of Strata (peer time / Strata time)")
    axes[0][-1].legend(loc="best", fontsize="small")
    fig.tight_layout()
    fig.savefig(argv[2], dpi=120)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
