#!/usr/bin/env python3
"""Per size of a cclx-bench allreduce output (the Max Latency column, median of the
repetitions): native, the best flat cclx algorithm (ring, rhd), multi-lane RHD with its phases in
turn, the fastest hierarchical schedule, and that one's speed-up over each. Markdown on stdout.

    /usr/bin/python3 ratios.py allreduce-2x2.txt
"""
import collections
import sys

times = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) < 9 or not f[0].isdigit():
        continue
    times[int(f[0])][f[5]] = float(f[3]) / 1e3  # ms

print("| size | native | best flat | multilane_rhd | fastest hierarchical | × native | × best flat"
      " | × multilane_rhd |")
print("|---" * 8 + "|")
for size in sorted(times):
    t = times[size]
    flat = min(v for k, v in t.items() if k in ("ring", "rhd"))
    hier = {k: v for k, v in t.items() if k.startswith(("multilane", "leader"))}
    best = min(hier, key=hier.get)
    print(f"| {size >> 20} MiB | {t['native']:.1f} | {flat:.1f} | {t['multilane_rhd']:.1f} | "
          f"`{best}` {hier[best]:.1f} | {t['native'] / hier[best]:.2f} | {flat / hier[best]:.2f} | "
          f"{t['multilane_rhd'] / hier[best]:.2f} |")
