#!/usr/bin/env python3
"""Synthesized trees against the library's algorithms in the α-β simulator (docs/algorithms/
adaptive-results.md, "Simulation results"): runs cclx-sim on the topologies in
benchmarks/results/adaptive-topologies/ and makes Markdown tables (time in ms; the best per row in
bold; synth's ratio to the best other).

    /usr/bin/python3 benchmarks/results/scripts/adaptive_table.py --sim build/tools/cclx-sim
    /usr/bin/python3 benchmarks/results/scripts/adaptive_table.py --sim build/tools/cclx-sim --write
    /usr/bin/python3 benchmarks/results/scripts/adaptive_table.py --sim build/tools/cclx-sim --check

Without --write or --check it prints every table (allreduce, bcast, reduce, and allreduce with
one late rank; the bcast and reduce tables are kept in benchmarks/results/adaptive-sim/). --write
puts the allreduce and late-rank tables into --doc between `<!-- BEGIN GENERATED: NAME -->` /
`<!-- END GENERATED: NAME -->` markers (NAME: adaptive-sim-allreduce, adaptive-sim-late-rank);
--check writes nothing and fails (exit 1, naming the blocks) when a block of --doc differs from
what cclx-sim gives. cclx-sim is deterministic, so the topologies are the stored data; a run takes
a few seconds and needs no matplotlib.

Each table is followed by the cclx-sim command that produced one of its rows (shown as
build/tools/cclx-sim, whatever --sim is).
"""
import argparse
import json
import os
import subprocess
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
TOPO = os.path.join("benchmarks", "results", "adaptive-topologies")  # relative to ROOT
SHOWN_SIM = "build/tools/cclx-sim"
OTHERS = {
    "allreduce": ["ring", "rhd", "binomial_tree", "pipelined_tree"],
    "reduce": ["rhd", "binomial_tree", "pipelined_tree"],
    "bcast": ["rhd", "binomial_tree", "pipelined_tree"],
}
TOPOLOGIES = [
    ("slow-host", "8 hosts x 1 rank, 100 Gb/s, host 3 at 1/4"),
    ("two-classes", "8 hosts x 1 rank, hosts 0-3 100 Gb/s, 4-7 25 Gb/s"),
    ("two-level", "4 hosts x 4 ranks, 100 GB/s inside, 100 Gb/s NICs"),
    ("two-level-slow-host", "two-level, host 2's NIC at 1/4"),
    ("testbed8", "the testbed: 8 hosts, 23.9 MB/s, α 150 µs"),
    ("testbed8-slow3", "the testbed with host 3 at 50 Mbit/s"),
    ("testbed8-two-classes", "the testbed with hosts 4-7 at 50 Mbit/s"),
]
SIZES = (["64K", "1M", "16M", "256M"], ["64K", "4M", "16M"])  # synthetic, testbed topologies
# The blocks of the page: its name, and the table.
BLOCKS = {"adaptive-sim-allreduce": "allreduce", "adaptive-sim-late-rank": "late"}


def run(sim, topo, coll, algos, size, late=None):
    """(the command as shown, {algorithm: cclx-sim's JSON record})."""
    args = ["--topology", os.path.join(TOPO, topo + ".json"), "--algo", ",".join(algos),
            "--bytes", size, "--collective", coll, "--json", "--no-critical-path"]
    if late:
        args += ["--late", late]
    out = subprocess.run([sim] + args, check=True, capture_output=True, text=True, cwd=ROOT)
    return [SHOWN_SIM] + args, {r["algorithm"]: r for r in json.loads(out.stdout)}


def table(sim, coll):
    """The lines of one collective's table and the command of its last row."""
    algos = OTHERS[coll] + ["par_trees", "synth"]
    lines = ["| topology | size | " + " | ".join(algos) + " | synth / best other |",
             "|---|---|" + "---:|" * len(algos) + "---:|"]
    cmd = None
    for topo, _ in TOPOLOGIES:
        for size in SIZES[topo.startswith("testbed")]:
            cmd, res = run(sim, topo, coll, algos, size)
            times = {a: res[a]["time_s"] * 1e3 for a in algos if "time_s" in res[a]}
            best = min(times.values())
            cells = [(f"**{times[a]:.4g}**" if times[a] == best else f"{times[a]:.4g}")
                     if a in times else "n/a" for a in algos]
            other = min(times[a] for a in OTHERS[coll] if a in times)
            lines.append(f"| {topo} | {size} | " + " | ".join(cells) +
                         f" | {times['synth'] / other:.2f} |")
    lines += ["", f"`{' '.join(cmd)}` (one row; the script loops over topologies and sizes)"]
    return lines


def relay(sim):
    """One rank late by D: the waiting algorithms start when it is ready; synth runs phase 1
    without it and phase 2 when it is ready."""
    algos = ["ring", "rhd", "pipelined_tree", "synth"]
    lines = ["| topology | size | D (ms) | " + " | ".join(algos) + " | synth phase 1 ends |",
             "|---|---|---:|" + "---:|" * len(algos) + "---:|"]
    cmd = None
    for topo, size, ds in [("two-level", "64M", [0, 5, 10, 20]),
                           ("testbed8", "4M", [0, 300, 1000])]:
        for d in ds:
            cmd, res = run(sim, topo, "allreduce", algos, size, late=f"3:{d / 1e3}")
            cells = [f"{res[a]['time_s'] * 1e3:.4g}" for a in algos]
            lines.append(f"| {topo} | {size} | {d} | " + " | ".join(cells) +
                         f" | {res['synth']['phase1_s'] * 1e3:.4g} |")
    lines += ["", f"`{' '.join(cmd)}`"]
    return lines


def make(sim, which):
    return relay(sim) if which == "late" else table(sim, which)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    generated.add_options(ap, os.path.join(ROOT, "docs", "algorithms", "adaptive-results.md"),
                          "write the allreduce and late-rank tables into --doc",
                          "a generated block", "cclx-sim")
    a = ap.parse_args()
    a.sim = os.path.abspath(a.sim)
    if a.check or a.write:
        blocks = {name: "\n".join(make(a.sim, which)) for name, which in BLOCKS.items()}
        return generated.update(a.doc, blocks, a.check, f"cclx-sim on {TOPO}/",
                                "benchmarks/results/scripts/adaptive_table.py --sim PATH --write")
    for coll in ["allreduce", "bcast", "reduce"]:
        print(f"\n#### {coll}\n")
        print("\n".join(table(a.sim, coll)))
    print("\n#### allreduce with one late rank (rank 3, ready D after the others)\n")
    print("\n".join(relay(a.sim)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
