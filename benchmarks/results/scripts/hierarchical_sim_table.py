#!/usr/bin/env python3
"""docs/hierarchical.md's simulated comparison of flat and hierarchical allreduce: runs cclx-sim
on a two-level machine of 8 hosts of 8 ranks, with consecutive placement (--ranks-per-host) and
round-robin placement (benchmarks/round_robin_topology.py), and writes the table into the page's
GENERATED block, or with --check fails (exit 1) when the page says otherwise.

    /usr/bin/python3 benchmarks/results/scripts/hierarchical_sim_table.py --sim build/tools/cclx-sim
    /usr/bin/python3 benchmarks/results/scripts/hierarchical_sim_table.py --check --sim build/tools/cclx-sim
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import generated  # noqa: E402

DOC = os.path.join(ROOT, "docs", "hierarchical.md")
ALGOS = ["ring", "rhd", "recursive_doubling", "multilane_ring", "multilane_rhd",
         "leader_recursive_doubling", "leader_rhd"]
# The machine: 1 us and 50 GB/s inside a host, 5 us and one 12.5 GB/s NIC per host.
LINKS = ["--alpha", "1e-6", "--bw", "50e9", "--inter-alpha", "5e-6", "--inter-bw", "12.5e9"]
SIZES = [("8 B", "8"), ("64 KiB", "64K"), ("16 MiB", "16M")]


def simulate(sim, machine, size):
    out = subprocess.run([sim, "--algo", ",".join(ALGOS), "--bytes", size, "--json",
                          "--no-critical-path"] + machine,
                         check=True, capture_output=True, text=True).stdout
    return {run["algorithm"]: run["time_s"] for run in json.loads(out)}


def show(seconds):
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.3g} ms"
    return f"{seconds * 1e6:.3g} µs"


def table(sim, topology):
    machines = [("consecutive", ["--n", "64", "--ranks-per-host", "8"] + LINKS),
                ("round-robin", ["--topology", topology])]
    rows = ["| allreduce, time | " + " | ".join(ALGOS) + " |",
            "|---" * (len(ALGOS) + 1) + "|"]
    for placement, machine in machines:
        for label, size in SIZES:
            t = simulate(sim, machine, size)
            rows.append(f"| {label}, {placement} | " + " | ".join(show(t[a]) for a in ALGOS) + " |")
    return "\n".join(rows)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when the page's table differs")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        topology = os.path.join(tmp, "rr.json")
        with open(topology, "w") as f:
            subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks",
                                                         "round_robin_topology.py"),
                            "--hosts", "8", "--ranks-per-host", "8"], check=True, stdout=f)
        body = table(a.sim, topology)
    return generated.update(DOC, {"hierarchical-sim": body}, a.check, "cclx-sim",
                            "benchmarks/results/scripts/hierarchical_sim_table.py --sim PATH")


if __name__ == "__main__":
    sys.exit(main())
