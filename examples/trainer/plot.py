#!/usr/bin/env python3
"""PNG plots of the CSVs of examples/trainer/measure.sh (docs/trainer.md): the loss curves of the
plain runs (every algorithm and mode, first round) and the time per iteration of the straggler
and jitter scenarios (first round), each on its own axes.

usage: plot.py OUT PNG"""
import csv
import glob
import os
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def load(path):
    with open(path) as f:
        return [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]


runs = {}
for path in sorted(glob.glob(os.path.join(sys.argv[1], "*_r1.csv"))):
    m = re.fullmatch(r"(\w+?)_(\w+)_(blocking|nonblocking|persistent)_r1\.csv", os.path.basename(path))
    if m:
        runs[m.groups()] = load(path)

fig, (ax_loss, ax_time) = plt.subplots(1, 2, figsize=(12, 4.5))
for (tag, algo, mode), rows in sorted(runs.items()):
    if tag == "plain":
        ax_loss.plot([r["iter"] for r in rows], [r["loss"] for r in rows], label=f"{algo} {mode}",
                     linewidth=0.8)
    if tag in ("straggler", "jitter"):
        ax_time.plot([r["iter"] for r in rows[1:]], [r["time_ms"] for r in rows[1:]],
                     label=f"{tag}: {algo} {mode}", linewidth=0.8)
ax_loss.set(xlabel="iteration", ylabel="training loss (mean over ranks)",
            title="loss: every algorithm and mode (curves overlap)")
ax_loss.legend(fontsize=6)
ax_time.set(xlabel="iteration", ylabel="time per iteration (ms, slowest rank)",
            title="straggler (rank 1, 20 ms) and jitter (0-10 ms)")
ax_time.legend(fontsize=6)
fig.tight_layout()
fig.savefig(sys.argv[2], dpi=110)
print("wrote", sys.argv[2])
