#!/usr/bin/env python3
"""Auto against native and against the fastest other algorithm of the same launch, per
collective, shape and size, from a `benchmarks/testbed/measure.sh` log whose sections are headed
`### SECTION: COLLECTIVE, H hosts x K ranks...` (hierarchical-shapes, -shapes-net, -rails-net;
cclx-bench's Max Latency column: the median of the repetitions). Markdown on stdout: one row per
collective and shape with the range of each ratio over the sizes, then every point.

    /usr/bin/python3 benchmarks/results/scripts/auto_vs_fastest.py LOG
"""
import re
import sys

sections = {}
section = None
for line in open(sys.argv[1]):
    m = re.match(r"### [\w-]+: (\w+), (\d+) hosts x (\d+) ranks", line)
    if m:
        section = (m.group(1), f"{m.group(2)} × {m.group(3)}")
        sections[section] = {}
        continue
    f = line.split()
    if section and len(f) == 10 and f[0].isdigit():
        sections[section].setdefault(int(f[0]), {})[f[5]] = float(f[3])


def size_text(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


print("| collective, shape | Auto against native | Auto against the fastest other |")
print("|---|---|---|")
points = []
for (coll, shape), sizes in sections.items():
    native, best = [], []
    for size, t in sorted(sizes.items()):
        fastest = min((v, k) for k, v in t.items() if k != "auto")
        native.append(t["native"] / t["auto"])
        best.append(fastest[0] / t["auto"])
        points.append((coll, shape, size, t["auto"], fastest[1], fastest[0], best[-1]))
    print(f"| {coll}, {shape} | {min(native):.2f}–{max(native):.2f}× | "
          f"{min(best):.2f}–{max(best):.2f}× |")
print()
print("| collective, shape | size | Auto (ms) | fastest other (ms) | Auto against it |")
print("|---|---|---|---|---|")
for coll, shape, size, auto, name, t, r in points:
    print(f"| {coll}, {shape} | {size_text(size)} | {auto / 1e3:.1f} | `{name}` {t / 1e3:.1f} | "
          f"{r:.2f} |")
