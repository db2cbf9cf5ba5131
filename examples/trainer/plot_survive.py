#!/usr/bin/env python3
"""PNG plot of cclx-trainer --survive runs (benchmarks/fault_recovery.sh, docs/faults.md): the loss
and the time per iteration of each CSV, the iteration where a rank was lost marked by the drop in
the rank count.

usage: plot_survive.py PNG CSV..."""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

fig, (ax_loss, ax_time) = plt.subplots(1, 2, figsize=(12, 4.5))
for path in sys.argv[2:]:
    with open(path) as f:
        rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
    name = os.path.splitext(os.path.basename(path))[0]
    it = [r["iter"] for r in rows]
    ax_loss.plot(it, [r["loss"] for r in rows], label=name, linewidth=0.8)
    ax_time.plot(it[1:], [r["time_ms"] for r in rows[1:]], label=name, linewidth=0.8)
    lost = [r["iter"] for a, r in zip(rows, rows[1:]) if r["ranks"] < a["ranks"]]
    for x in lost:
        for ax in (ax_loss, ax_time):
            ax.axvline(x, color="grey", linestyle=":", linewidth=0.8)
ax_loss.set(xlabel="iteration", ylabel="training loss (mean over the ranks left)",
            title="loss: 4 ranks, then 3 (dotted: a rank exits)")
ax_loss.legend(fontsize=7)
ax_time.set(xlabel="iteration", ylabel="time per iteration (ms, slowest rank)", yscale="log",
            title="time per iteration: the lost one includes deadline, roll call, shrink")
ax_time.legend(fontsize=7)
fig.tight_layout()
fig.savefig(sys.argv[1], dpi=110)
print("wrote", sys.argv[1])
