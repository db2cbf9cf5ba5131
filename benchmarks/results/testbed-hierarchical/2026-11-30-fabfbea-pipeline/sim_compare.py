#!/usr/bin/env python3
"""The simulator's prediction beside each multi-lane measurement of a 2 x 2 allreduce output: the
two-level machine and latencies fitted in the 2026-11-29-804b494-paired data set
(sim-vs-measured.md: 115 us per call, alpha 20.0 us inside a host and 23.2 us between hosts; the
link at 23.9 MB/s, 5 GB/s inside a host). Prints measured / predicted ms (ratio) per size.

    /usr/bin/python3 sim_compare.py allreduce-2x2.txt [--sim build/tools/cclx-sim]
"""
import argparse
import re
import subprocess

ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
ap.add_argument("log")
ap.add_argument("--sim", default="build/tools/cclx-sim")
a = ap.parse_args()
MACHINE = ["--n", "4", "--elem-size", "4", "--ranks-per-host", "2", "--alpha", "20e-6", "--bw",
           "5e9", "--inter-alpha", "23.2e-6", "--inter-bw", "23.9e6"]
PER_CALL_US = 115
UNIT_US = {"s": 1e6, "ms": 1e3, "us": 1.0, "ns": 1e-3}

times = {}
for line in open(a.log):
    f = line.split()
    if len(f) > 8 and f[0].isdigit():
        times.setdefault(int(f[0]), {})[f[5]] = float(f[3])
for size, row in sorted(times.items()):
    cells = []
    for name, measured in row.items():
        m = re.fullmatch(r"(multilane_\w+?)(?:\(pipeline=(\d+)\))?", name)
        if not m:
            continue
        args = [a.sim, "--algo", m.group(1), "--bytes", str(size)] + MACHINE
        if m.group(2):
            args += ["--param", "pipeline=" + m.group(2)]
        out = subprocess.run(args, check=True, capture_output=True, text=True).stdout
        t = re.search(r"time=([\d.e+-]+) (\w+)", out)
        predicted = float(t.group(1)) * UNIT_US[t.group(2)] + PER_CALL_US
        cells.append(f"`{name}` {measured / 1e3:.1f} / {predicted / 1e3:.1f} "
                     f"({measured / predicted:.2f})")
    print(f"- {size >> 20} MiB: " + "; ".join(cells))
