#!/usr/bin/env python3
"""docs/hierarchical.md's and docs/hierarchical-scale.md's simulated comparisons of flat and
hierarchical allreduce, written into the pages' GENERATED blocks (or with --check: exit 1 when a
page says otherwise):
- hierarchical-sim: cclx-sim on 8 hosts of 8 ranks, consecutive placement (--ranks-per-host) and
  round-robin placement (--placement cyclic);
- hierarchical-scale: the two-level machines of docs/simulation.md (8 ranks per host, 3 us and
  450 GB/s inside, 5 us and 50 GB/s per NIC, one NIC per host or one per rank), 8 to 64 hosts,
  8 B to 1 GiB, next to the inter-host lower bound (docs/hierarchical.md derives it);
- hierarchical-pipeline: the same machines with ranks that send (and receive) any number of
  messages at once (--ports 0), multi-lane RHD with its phases in turn and pipelined, next to the
  flat RHD and the bound, from 16 MiB.

    /usr/bin/python3 benchmarks/results/scripts/hierarchical_sim_table.py --sim build/tools/cclx-sim
    /usr/bin/python3 benchmarks/results/scripts/hierarchical_sim_table.py --check --sim build/tools/cclx-sim
"""
import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
sys.path.insert(0, HERE)
import generated  # noqa: E402

DOC = os.path.join(ROOT, "docs", "hierarchical.md")
SCALE_DOC = os.path.join(ROOT, "docs", "hierarchical-scale.md")
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


def table(sim):
    machines = [("consecutive", ["--n", "64", "--ranks-per-host", "8"] + LINKS),
                ("round-robin", ["--n", "64", "--ranks-per-host", "8", "--placement", "cyclic"] +
                 LINKS)]
    rows = ["| allreduce, time | " + " | ".join(ALGOS) + " |",
            "|---" * (len(ALGOS) + 1) + "|"]
    for placement, machine in machines:
        for label, size in SIZES:
            t = simulate(sim, machine, size)
            rows.append(f"| {label}, {placement} | " + " | ".join(show(t[a]) for a in ALGOS) + " |")
    return "\n".join(rows)


# docs/simulation.md's two-level machines; the scale sweep's algorithms and sizes.
SCALE_LINKS = ["--alpha", "3e-6", "--bw", "450e9", "--inter-alpha", "5e-6", "--inter-bw", "50e9",
               "--ranks-per-host", "8"]
SCALE_ALGOS = ["ring", "rhd", "stragglar", "multilane_ring", "multilane_rhd", "leader_rhd"]
SCALE_SIZES = [("8 B", "8", 8), ("64 KiB", "64K", 65536), ("16 MiB", "16M", 16 << 20),
               ("1 GiB", "1G", 1 << 30)]


def bound(hosts, nics, nbytes, inter_alpha=5e-6, nic_bw=50e9):
    """The inter-host lower bound of an allreduce: at least ceil(log2 h) rounds cross hosts, and
    every host sends (and receives) at least 2(h-1)/h of the message through its NICs."""
    rounds = (hosts - 1).bit_length()
    return max(rounds * inter_alpha, 2 * (hosts - 1) / hosts * nbytes / (nics * nic_bw))


def bound_table(heads, sizes, times):
    """Rows of `heads` (times(nics, hosts, size): their simulated seconds, in that order) for every
    machine and size, next to the bound."""
    rows = ["| NICs per host | hosts × 8 | size | " + " | ".join(heads) +
            " | bound | best / bound |",
            "|---" * (len(heads) + 5) + "|"]
    for nics in (1, 8):
        for hosts in (8, 16, 32, 64):
            for label, size, nbytes in sizes:
                t = times(nics, hosts, size)
                lb = bound(hosts, nics, nbytes)
                rows.append(f"| {nics} | {hosts} | {label} | " + " | ".join(show(x) for x in t) +
                            f" | {show(lb)} | {min(t) / lb:.2f} |")
    return "\n".join(rows)


def run_sim(sim, nics, hosts, size, args):
    """cclx-sim's runs on `hosts` hosts of 8 with `nics` NICs each, as JSON."""
    out = subprocess.run([sim, "--bytes", size, "--json", "--no-critical-path",
                          "--n", str(8 * hosts), "--nics-per-host", str(nics)] + SCALE_LINKS +
                         args, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def scale_table(sim):
    def times(nics, hosts, size):
        runs = run_sim(sim, nics, hosts, size, ["--algo", ",".join(SCALE_ALGOS)])
        t = {run["algorithm"]: run["time_s"] for run in runs}
        return [t[a] for a in SCALE_ALGOS]
    return bound_table(SCALE_ALGOS, SCALE_SIZES, times)


# The pipeline sweep: multi-port ranks; the segments tried.
PIPELINE_SIZES = [("16 MiB", "16M", 16 << 20), ("256 MiB", "256M", 256 << 20),
                  ("1 GiB", "1G", 1 << 30)]
PIPELINE_SEGMENTS = [1, 2, 4, 8, 16]


def pipeline_table(sim):
    variants = [("rhd", [])] + [("multilane_rhd", ["--param", f"pipeline={p}"])
                                for p in PIPELINE_SEGMENTS]

    def times(nics, hosts, size):
        return [run_sim(sim, nics, hosts, size, ["--ports", "0", "--algo", algo] + param)[0]
                ["time_s"] for algo, param in variants]
    heads = ["rhd"] + [f"multilane_rhd pipeline={p}" for p in PIPELINE_SEGMENTS]
    return bound_table(heads, PIPELINE_SIZES, times)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    ap.add_argument("--check", action="store_true",
                    help="write nothing; exit 1 when the page's table differs")
    a = ap.parse_args()
    body = table(a.sim)
    rerun = "benchmarks/results/scripts/hierarchical_sim_table.py --sim PATH"
    scale = {"hierarchical-scale": scale_table(a.sim),
             "hierarchical-pipeline": pipeline_table(a.sim)}
    return (generated.update(DOC, {"hierarchical-sim": body}, a.check, "cclx-sim", rerun) or
            generated.update(SCALE_DOC, scale, a.check, "cclx-sim", rerun))


if __name__ == "__main__":
    sys.exit(main())
