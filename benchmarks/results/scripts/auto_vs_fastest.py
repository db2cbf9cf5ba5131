#!/usr/bin/env python3
"""Auto against native and against the fastest other algorithm of the same launch, per
collective, shape and size, from a `benchmarks/testbed/measure.sh` log (hierarchical-shapes,
-shapes-net, -rails-net, -placement; cclx-bench's Max Latency column: the median of the repetitions; the
log's tables as testbed_sim_compare.py reads them). Markdown on stdout: one row per collective
and shape with the range of each ratio over the sizes, then every point.

    /usr/bin/python3 benchmarks/results/scripts/auto_vs_fastest.py LOG
"""
import sys

from testbed_sim_compare import parse_log, size_label

points, ranges = [], []
for t in parse_log(sys.argv[1]):
    where = f"{t['collective']}, {t['n'] // t['k']} × {t['k']}"
    if t["placement"] == "cyclic":
        where += ", cyclic"
    if t["nics"] > 1:
        where += f", {t['nics']} NICs"
    sizes = sorted({size for size, _ in t["rows"]})
    native, best = [], []
    for size in sizes:
        row = {algo: us for (s, algo), us in t["rows"].items() if s == size}
        name, fastest = min(((a, us) for a, us in row.items() if a != "auto"), key=lambda x: x[1])
        native.append(row["native"] / row["auto"])
        best.append(fastest / row["auto"])
        points.append((where, size, row["auto"], name, fastest, best[-1]))
    ranges.append((where, native, best))

print("| collective, shape | Auto against native | Auto against the fastest other |")
print("|---|---|---|")
for where, native, best in ranges:
    print(f"| {where} | {min(native):.2f}–{max(native):.2f}× | {min(best):.2f}–{max(best):.2f}× |")
print()
print("| collective, shape | size | Auto (ms) | fastest other (ms) | Auto against it |")
print("|---|---|---|---|---|")
for where, size, auto, name, t, r in points:
    print(f"| {where} | {size_label(size)} | {auto / 1e3:.1f} | `{name}` {t / 1e3:.1f} | {r:.2f} |")
