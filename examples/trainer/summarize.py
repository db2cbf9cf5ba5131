#!/usr/bin/env python3
"""Markdown tables from the CSVs of examples/trainer/measure.sh (docs/trainer.md): per scenario,
algorithm and mode the time per iteration (median over the iterations after the first, for each
round, fastest round first: shared cores make single rounds slow), the wait after the backward
pass (median over the rounds), the final loss, and the largest relative
loss difference to native in the same mode; then the loss curve of the plain runs.

usage: summarize.py OUT"""
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

runs = defaultdict(list)  # (tag, algo, mode) -> [rows per round]
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*.csv"))):
    m = re.fullmatch(r"(\w+?)_(\w+)_(blocking|nonblocking|persistent)_r\d+\.csv", os.path.basename(path))
    if m:
        with open(path) as f:
            runs[m.groups()].append([{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)])


def per_round(rounds, key):
    return sorted(statistics.median(r[key] for r in rows[1:]) for rows in rounds)


def med(rounds, key):
    return statistics.median(per_round(rounds, key))


for tag in ("plain", "large", "straggler", "jitter"):
    keys = sorted(k for k in runs if k[0] == tag)
    if not keys:
        continue
    print(f"\n### {tag}\n")
    print("| algorithm | mode | time / iteration (ms), per round | wait after backward (ms) | final loss | max rel. loss diff vs native |")
    print("|---|---|---:|---:|---:|---:|")
    for k in keys:
        rows = runs[k][0]
        ref = runs.get((tag, "native", k[2])) or runs.get((tag, "native", "persistent"))
        diff = max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(rows, ref[0])) if ref else float("nan")
        print(f"| {k[1]} | {k[2]} | {' / '.join(f'{t:.2f}' for t in per_round(runs[k], 'time_ms'))} | {med(runs[k], 'wait_ms'):.2f} "
              f"| {rows[-1]['loss']:.6f} | {diff:.1e} |")

plain = sorted(k for k in runs if k[0] == "plain" and k[2] == "persistent")
if plain:
    points = [1, 10, 50, 100, 200, 300]
    print("\n### loss curve (plain, persistent)\n")
    print("| iteration | " + " | ".join(k[1] for k in plain) + " |")
    print("|---:|" + "---:|" * len(plain))
    for p in points:
        cells = [f"{runs[k][0][p - 1]['loss']:.6f}" for k in plain if p <= len(runs[k][0])]
        print(f"| {p} | " + " | ".join(cells) + " |")
