#!/usr/bin/env python3
"""Online tuning (CCLX_TUNE=online, docs/tuning.md "Online tuning"; the table is in
docs/tuning-results.md, "Online tuning: calls to convergence"): calls to convergence per
workload, and the converged choice against the best fixed candidate measured beside it.

Step 1, per collective: one cclx-bench run of `auto` alone with CCLX_TUNE=online and CCLX_LOG=tune
and enough warm-up calls (-x) that every size's workload converges in its first block; rank 0's
log names, per workload, the converged choice and the calls it took. Step 2, per (collective,
size): a separate launch of cclx-bench with the converged choice next to every fixed candidate
(the default algorithms that serve the collective, native included), interleaved; the ratio is
the best fixed candidate's median time over the choice's (>= 0.97 is the goal).

usage: online_convergence.py BUILD_DIR OUT_DIR [--collectives a,b] [--sizes 8:64M]
                             [--compare-every K] [--launcher "mpiexec -bind-to core"] [--repeat 5]
       online_convergence.py --write [--doc PAGE] [--results DIR] [--sizes 8:64M]
       online_convergence.py --check [--doc PAGE] [--results DIR] [--sizes 8:64M]
  --compare-every K: step 2 for every K-th size only (calls to convergence: every size)
Writes OUT_DIR/converge-<coll>.log, OUT_DIR/compare-<coll>-<size>.json and prints the tables.
--write makes the table from those files as stored under --results (benchmarks/results/
auto-tuning/online-2ranks/; the sizes of --sizes, a compared size wherever its compare file is
there) and puts it into --doc (docs/tuning-results.md) between `<!-- BEGIN GENERATED:
online-convergence -->` / `<!-- END GENERATED: online-convergence -->` markers; --check writes
nothing and fails (exit 1) when that block differs from what the stored files give. Neither runs
cclx-bench or needs matplotlib.
"""
import argparse
import json
import math
import os
import re
import statistics
import subprocess
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "auto-tuning", "online-2ranks")
BLOCK = "online-convergence"
COLLECTIVES = ("allreduce reduce bcast reduce_scatter allgather alltoall gather scatter barrier "
               "gatherv scatterv allgatherv reduce_scatterv alltoallv").split()
FIXED = "ring,rhd,rhd_elimination,recursive_doubling,binomial_tree,dissemination,pipelined_tree"
LINE = re.compile(r"^cclx tune: (\S+) (\S+) bytes, .*?: (\S+) from online tuning "
                  r"\(converged after (\d+) calls\)")
HEADER = ["| collective | workloads | calls to convergence: median | max | choice vs best fixed: "
          "geomean | min | < 0.97 |", "|---|---|---|---|---|---|---|"]
NOT_TUNED = "| alltoallv | - | not tuned online (one-shot: no size every rank knows) | | | | |"


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r


def nbytes(s):
    """8, 2K, 64M (cclx-bench's and the log's sizes) in bytes."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(s[:-1]) * scale[s[-1]] if s[-1] in scale else int(s)


def sizes_of(spec):
    """The sizes of cclx-bench -m LO:HI: powers of two from LO to HI."""
    lo, hi = (nbytes(x) for x in spec.split(":"))
    out = []
    while lo <= hi:
        out.append(lo)
        lo *= 2
    return out


def converged(log):
    """[(size in bytes, choice, calls)]: each workload's first convergence, in the order the sizes
    ran."""
    first = {}
    for line in log.splitlines():
        m = LINE.match(line)
        if m and m.group(2) not in first:
            first[m.group(2)] = (nbytes(m.group(2)), m.group(3), int(m.group(4)))
    return list(first.values())


def collective(coll, sizes, conv, compare):
    """One collective's row: (the row, calls, ratios, [(size, choice, calls, best, ratio)]).
    compare(size, choice) gives the compared run's {algorithm: max latency} or None (not
    compared)."""
    if coll == "barrier":  # no size: one workload, whatever the message size
        sizes = sizes[:1]
    elif conv and [s for s, _, _ in conv] != sizes:
        raise SystemExit(f"{coll}: the log's sizes are not {sizes[0]}..{sizes[-1]}")
    if len(conv) != len(sizes):
        raise SystemExit(f"{coll}: {len(conv)} converged workloads for {len(sizes)} sizes")
    rows, ratios, calls = [], [], []
    for i, (size, (_, choice, n)) in enumerate(zip(sizes, conv)):
        calls.append(n)
        t = compare(i, size, choice)
        if t is None:
            continue
        ratio = min(t.values()) / t[choice]
        rows.append((size, choice, n, min(t, key=t.get), ratio))
        ratios.append(ratio)
    line = (f"| {coll} | {len(sizes)} | {statistics.median(calls):.0f} | {max(calls)} | "
            f"{geomean(ratios):.3f} | {min(ratios):.3f} | {sum(x < 0.97 for x in ratios)} |")
    return line, calls, ratios, rows


def latencies(text):
    return {x["algorithm"]: x["max_latency_us"] for x in json.loads(text)["results"]}


def stored(results, sizes):
    """The table's lines, the totals and the points below 0.97, from a stored OUT_DIR."""
    lines, all_calls, all_ratios, below = list(HEADER), [], [], []
    for coll in COLLECTIVES:
        with open(os.path.join(results, f"converge-{coll}.log")) as f:
            conv = converged(f.read())
        if coll == "alltoallv" and not conv:
            lines.append(NOT_TUNED)
            continue

        def compare(_, size, choice):
            path = os.path.join(results, f"compare-{coll}-{size}.json")
            if not os.path.exists(path):
                return None
            with open(path) as f:
                return latencies(f.read())
        line, calls, ratios, rows = collective(coll, sizes, conv, compare)
        lines.append(line)
        all_calls += calls
        all_ratios += ratios
        below += [(coll,) + r for r in rows if r[-1] < 0.97]
    return lines, all_calls, all_ratios, below


def totals(all_calls, all_ratios, below):
    print(f"\nall {len(all_calls)} workloads: calls to convergence median "
          f"{statistics.median(all_calls):.0f}, max {max(all_calls)}; the {len(all_ratios)} "
          f"compared: converged choice vs best fixed geomean {geomean(all_ratios):.3f}, "
          f"{sum(x < 0.97 for x in all_ratios)} below 0.97")
    for coll, size, choice, n, best, ratio in below:
        print(f"  below 0.97: {coll} {size} B: {choice} (after {n} calls), best {best}: "
              f"{ratio:.3f}")


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build", nargs="?")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--collectives", default=",".join(COLLECTIVES))
    ap.add_argument("--sizes", default="8:64M")
    ap.add_argument("--launcher", default="mpiexec -bind-to core")
    ap.add_argument("--repeat", default="5")
    ap.add_argument("--compare-every", type=int, default=1)
    ap.add_argument("--results", default=RESULTS, help="the stored OUT_DIR of the page's table")
    generated.add_options(ap, os.path.join(ROOT, "docs", "tuning-results.md"),
                          "write the table into --doc from --results (no cclx-bench run)",
                          "the table", "--results")
    a = ap.parse_args()
    if a.check or a.write:
        lines = stored(a.results, sizes_of(a.sizes))[0]
        return generated.update(a.doc, {BLOCK: "\n".join(lines)}, a.check, a.results,
                                "benchmarks/results/scripts/online_convergence.py --write")
    if not a.build or not a.out:
        ap.error("BUILD_DIR and OUT_DIR are required (or --write / --check)")
    os.makedirs(a.out, exist_ok=True)
    bench = os.path.join(a.build, "benchmarks", "cclx-bench")
    launch = a.launcher.split() + ["-n", "2", bench]
    all_calls, all_ratios, below = [], [], []
    print("\n".join(HEADER), flush=True)
    for coll in a.collectives.split(","):
        env = dict(os.environ, CCLX_TUNE="online", CCLX_LOG="tune")
        env.pop("CCLX_TUNE_FILE", None)
        r = run(launch + [coll, "-m", a.sizes, "--algos", "auto", "-x", "60", "-i", "10",
                          "--repeat", "1", "--json"], env)
        open(os.path.join(a.out, f"converge-{coll}.log"), "w").write(r.stderr)
        sizes = sorted({x["size"] for x in json.loads(r.stdout)["results"]})
        conv = converged(r.stderr)
        if coll == "alltoallv" and not conv:  # one-shot: no size every rank knows, not tuned
            print(NOT_TUNED, flush=True)
            continue

        def compare(i, size, choice):
            if i % a.compare_every:
                return None
            algos = FIXED if choice in ["native"] + FIXED.split(",") else f"{choice},{FIXED}"
            c = run(launch + [coll, "-m", f"{size}:{size}", "--algos", algos, "--skip-unserving",
                              "--repeat", a.repeat, "--target-ms", "10", "--json"])
            open(os.path.join(a.out, f"compare-{coll}-{size}.json"), "w").write(c.stdout)
            return latencies(c.stdout)
        line, calls, ratios, rows = collective(coll, sizes, conv, compare)
        print(line, flush=True)
        all_calls += calls
        all_ratios += ratios
        below += [(coll,) + r for r in rows if r[-1] < 0.97]
    totals(all_calls, all_ratios, below)
    return 0


if __name__ == "__main__":
    sys.exit(main())
