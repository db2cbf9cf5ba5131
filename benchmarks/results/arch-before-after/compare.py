#!/usr/bin/env python3
"""Compares cclx-bench runs before and after a change: per algorithm and size, the mean of the
runs' median Max Latency, then after/before per size and its geometric mean over size ranges;
then the same for each algorithm's latency relative to native's in the same run (which cancels
what drifts between runs).

    /usr/bin/python3 compare.py before-1.txt before-2.txt -- after-1.txt after-2.txt
"""
import math
import sys
from collections import defaultdict


def read(path):
    rows = {}
    for line in open(path):
        if line.startswith("#") or not line.strip():
            continue
        f = line.split()
        rows[(int(f[0]), f[5])] = float(f[3])  # (size, algorithm) -> Max Latency (us)
    return rows


def mean_of(paths, relative=False):
    acc = defaultdict(list)
    for p in paths:
        rows = read(p)
        for (s, a), v in rows.items():
            acc[(s, a)].append(v / rows[(s, "native")] if relative else v)
    return {k: sum(v) / len(v) for k, v in acc.items()}


def table(before, after, algos):
    ranges = [("8 B - 4 KiB", 8, 4096), ("8 KiB - 512 KiB", 8192, 512 << 10),
              ("1 MiB - 64 MiB", 1 << 20, 64 << 20)]
    print("| algorithm | " + " | ".join(r[0] for r in ranges) + " | all sizes | worst size |")
    print("|---|" + "---|" * (len(ranges) + 2))
    for a in algos:
        cells, logs = [], []
        worst = (0.0, 0)
        for _, lo, hi in ranges:
            part = [math.log(after[(s, a)] / before[(s, a)]) for (s, b) in before
                    if b == a and lo <= s <= hi and (s, a) in after]
            logs += part
            cells.append(f"{math.exp(sum(part) / len(part)):.3f}")
        for (s, b) in before:
            if b == a and (s, a) in after:
                r = after[(s, a)] / before[(s, a)]
                if abs(math.log(r)) > abs(math.log(worst[0] or 1.0)):
                    worst = (r, s)
        cells.append(f"{math.exp(sum(logs) / len(logs)):.3f}")
        cells.append(f"{worst[0]:.2f} at {worst[1]} B")
        print(f"| {a} | " + " | ".join(cells) + " |")


def main():
    i = sys.argv.index("--")
    old, new = sys.argv[1:i], sys.argv[i + 1:]
    before = mean_of(old)
    algos = sorted({a for _, a in before}, key=["native", "ring", "rhd", "auto"].index)
    print("Max Latency, after / before:")
    table(before, mean_of(new), algos)
    print("\nLatency relative to native's in the same run, after / before:")
    table(mean_of(old, True), mean_of(new, True), [a for a in algos if a != "native"])


if __name__ == "__main__":
    main()
