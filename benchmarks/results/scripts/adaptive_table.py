#!/usr/bin/env python3
"""Synthesized trees against the library's algorithms in the α-β simulator (docs/algorithms/
adaptive-results.md, "Simulation results"): runs cclx-sim on the topologies in benchmarks/results/adaptive-topologies/
and prints Markdown tables (time in ms; the best per row in bold; synth's ratio to the best other).

    python3 benchmarks/results/scripts/adaptive_table.py --sim build/tools/cclx-sim

Each table is preceded by the cclx-sim command that produced one of its rows.
"""
import argparse
import json
import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
TOPO = os.path.join(HERE, "..", "adaptive-topologies")
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


def run(sim, topo, coll, algos, size, late=None):
    cmd = [sim, "--topology", os.path.relpath(os.path.join(TOPO, topo + ".json")), "--algo",
           ",".join(algos), "--bytes", size, "--collective", coll, "--json", "--no-critical-path"]
    if late:
        cmd += ["--late", late]
    out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
    return cmd, {r["algorithm"]: r for r in out}


def table(sim, coll, sizes):
    algos = OTHERS[coll] + ["par_trees", "synth"]
    print(f"\n#### {coll}\n")
    cmd = None
    print("| topology | size | " + " | ".join(algos) + " | synth / best other |")
    print("|---|---|" + "---:|" * len(algos) + "---:|")
    for topo, _ in TOPOLOGIES:
        for size in sizes[topo.startswith("testbed")]:
            cmd, res = run(sim, topo, coll, algos, size)
            times = {a: res[a]["time_s"] * 1e3 for a in algos if "time_s" in res[a]}
            best = min(times.values())
            cells = [(f"**{times[a]:.4g}**" if times[a] == best else f"{times[a]:.4g}")
                     if a in times else "n/a" for a in algos]
            other = min(times[a] for a in OTHERS[coll] if a in times)
            print(f"| {topo} | {size} | " + " | ".join(cells) + f" | {times['synth'] / other:.2f} |")
    print(f"\n`{' '.join(cmd)}` (one row; the script loops over topologies and sizes)")


def relay(sim):
    # One rank late by D: the waiting algorithms start when it is ready; synth runs phase 1
    # without it and phase 2 when it is ready.
    print("\n#### allreduce with one late rank (rank 3, ready D after the others)\n")
    algos = ["ring", "rhd", "pipelined_tree", "synth"]
    print("| topology | size | D (ms) | " + " | ".join(algos) + " | synth phase 1 ends |")
    print("|---|---|---:|" + "---:|" * len(algos) + "---:|")
    cmd = None
    for topo, size, ds in [("two-level", "64M", [0, 5, 10, 20]),
                           ("testbed8", "4M", [0, 300, 1000])]:
        for d in ds:
            cmd, res = run(sim, topo, "allreduce", algos, size, late=f"3:{d / 1e3}")
            cells = [f"{res[a]['time_s'] * 1e3:.4g}" for a in algos]
            print(f"| {topo} | {size} | {d} | " + " | ".join(cells) +
                  f" | {res['synth']['phase1_s'] * 1e3:.4g} |")
    print(f"\n`{' '.join(cmd)}`")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--sim", default="build/tools/cclx-sim")
    a = ap.parse_args()
    sizes = (["64K", "1M", "16M", "256M"], ["64K", "4M", "16M"])
    for coll in ["allreduce", "bcast", "reduce"]:
        table(a.sim, coll, sizes)
    relay(a.sim)


if __name__ == "__main__":
    main()
