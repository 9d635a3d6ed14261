#!/usr/bin/env python3
"""Per package and suite: geometric mean of cuBLAS time / Strata time (cublas_ms / strata_ms, which is the bench's
speedup_vs_cublas column), for the H100 'after' CSVs and the H200 CSVs side by side, and 4096^3 TFLOP/s (the
'square' row of the default sweep). Run from docs/perf: python3 2026-11-26-h200/geomean.py"""
import csv, math, os

PKGS = ['strata_sgemm_h100', 'strata_hgemm_tc_h100', 'strata_sgemm_a100', 'strata_hgemm_tc_a100']
SUITES = ['default', 'transformer', 'cnn', 'gnn']
RUNS = [('H100 after', '2026-11-24-h100/after'), ('H200', '2026-11-26-h200')]

def load(path):
    if not os.path.exists(path):
        return None
    with open(path) as f:
        return list(csv.DictReader(f))

def geomean(rows):
    v = [float(x['cublas_ms']) / float(x['strata_ms']) for x in rows]
    return math.exp(sum(map(math.log, v)) / len(v))

def main():
    print('| package | suite | shapes | ' + ' | '.join(n for n, _ in RUNS) + ' |')
    print('| --- | --- | --- |' + ' --- |' * len(RUNS))
    for p in PKGS:
        for s in SUITES:
            cells, n = [], ''
            for _, d in RUNS:
                rows = load(os.path.join(d, f'{p}_{s}.csv'))
                cells.append(f'{geomean(rows):.2f}' if rows else 'no CSV')
                n = len(rows) if rows else n
            print(f'| {p} | {s} | {n} | ' + ' | '.join(cells) + ' |')
    print()
    print('| package | run | Strata 4096^3 TFLOP/s | kernel | cuBLAS 4096^3 TFLOP/s |')
    print('| --- | --- | --- | --- | --- |')
    for p in PKGS:
        for name, d in RUNS:
            rows = load(os.path.join(d, f'{p}_default.csv'))
            if not rows:
                continue
            x = next(r for r in rows if r['category'] == 'square' and r['M'] == r['N'] == r['K'] == '4096')
            print(f'| {p} | {name} | {x["strata_tflops"]} | {x["kernel"]} | {x["cublas_tflops"]} |')

if __name__ == '__main__':
    main()
