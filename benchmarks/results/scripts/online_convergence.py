#!/usr/bin/env python3
"""Online tuning (CCLX_TUNE=online, docs/tuning.md "Online tuning"): calls to convergence per
workload, and the converged choice against the best fixed candidate measured beside it.

Step 1, per collective: one cclx-bench run of `auto` alone with CCLX_TUNE=online and CCLX_LOG=tune
and enough warm-up calls (-x) that every size's workload converges in its first block; rank 0's
log names, per workload, the converged choice and the calls it took. Step 2, per (collective,
size): a separate launch of cclx-bench with the converged choice next to every fixed candidate
(the default algorithms that serve the collective, native included), interleaved; the ratio is
the best fixed candidate's median time over the choice's (>= 0.97 is the goal).

usage: online_convergence.py BUILD_DIR OUT_DIR [--collectives a,b] [--sizes 8:64M]
                             [--compare-every K] [--launcher "mpiexec -bind-to core"] [--repeat 5]
  --compare-every K: step 2 for every K-th size only (calls to convergence: every size)
Writes OUT_DIR/converge-<coll>.log, OUT_DIR/compare-<coll>-<size>.json and prints the tables.
"""
import argparse
import json
import os
import re
import statistics
import subprocess

COLLECTIVES = ("allreduce reduce bcast reduce_scatter allgather alltoall gather scatter barrier "
               "gatherv scatterv allgatherv reduce_scatterv alltoallv").split()
FIXED = "ring,rhd,rhd_elimination,recursive_doubling,binomial_tree,dissemination,pipelined_tree"
LINE = re.compile(r"^cclx tune: (\S+) (\S+) bytes, .*?: (\S+) from online tuning "
                  r"\(converged after (\d+) calls\)")


def run(cmd, env=None):
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        raise SystemExit(f"FAILED ({r.returncode}): {' '.join(cmd)}\n{r.stdout}\n{r.stderr}")
    return r


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("out")
    ap.add_argument("--collectives", default=",".join(COLLECTIVES))
    ap.add_argument("--sizes", default="8:64M")
    ap.add_argument("--launcher", default="mpiexec -bind-to core")
    ap.add_argument("--repeat", default="5")
    ap.add_argument("--compare-every", type=int, default=1)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    bench = os.path.join(a.build, "benchmarks", "cclx-bench")
    launch = a.launcher.split() + ["-n", "2", bench]
    rows, all_calls, all_ratios = [], [], []
    for coll in a.collectives.split(","):
        env = dict(os.environ, CCLX_TUNE="online", CCLX_LOG="tune")
        env.pop("CCLX_TUNE_FILE", None)
        r = run(launch + [coll, "-m", a.sizes, "--algos", "auto", "-x", "60", "-i", "10",
                          "--repeat", "1", "--json"], env)
        open(os.path.join(a.out, f"converge-{coll}.log"), "w").write(r.stderr)
        sizes = sorted({x["size"] for x in json.loads(r.stdout)["results"]})
        # The first convergence of each workload, in the order the sizes ran.
        first = {}
        for line in r.stderr.splitlines():
            m = LINE.match(line)
            if m and m.group(2) not in first:
                first[m.group(2)] = (m.group(3), int(m.group(4)))
        conv = list(first.values())
        if coll == "barrier":  # no size: one workload, whatever the message size
            sizes = sizes[:1]
        if coll == "alltoallv" and not conv:  # one-shot: no size every rank knows, not tuned
            print(f"| {coll} | - | not tuned online (one-shot alltoallv has no shared size) |")
            continue
        if len(conv) != len(sizes):
            raise SystemExit(f"{coll}: {len(conv)} converged workloads for {len(sizes)} sizes")
        ratios, calls = [], []
        for i, (size, (choice, n)) in enumerate(zip(sizes, conv)):
            calls.append(n)
            if i % a.compare_every:
                continue
            algos = FIXED if choice in ["native"] + FIXED.split(",") else f"{choice},{FIXED}"
            c = run(launch + [coll, "-m", f"{size}:{size}", "--algos", algos, "--skip-unserving",
                              "--repeat", a.repeat, "--target-ms", "10", "--json"])
            open(os.path.join(a.out, f"compare-{coll}-{size}.json"), "w").write(c.stdout)
            t = {x["algorithm"]: x["max_latency_us"] for x in json.loads(c.stdout)["results"]}
            ratio = min(t.values()) / t[choice]
            best = min(t, key=t.get)
            rows.append((coll, size, choice, n, best, ratio))
            ratios.append(ratio)
        all_calls += calls
        all_ratios += ratios
        print(f"| {coll} | {len(sizes)} | {statistics.median(calls):.0f} | {max(calls)} | "
              f"{math_geo(ratios):.3f} | {min(ratios):.3f} | {sum(x < 0.97 for x in ratios)} |",
              flush=True)
    print(f"\nall {len(all_ratios)} workloads: calls to convergence median "
          f"{statistics.median(all_calls):.0f}, max {max(all_calls)}; converged choice vs best "
          f"fixed geomean {math_geo(all_ratios):.3f}, {sum(x < 0.97 for x in all_ratios)} below 0.97")
    for coll, size, choice, n, best, ratio in rows:
        if ratio < 0.97:
            print(f"  below 0.97: {coll} {size} B: {choice} (after {n} calls), best {best}: "
                  f"{ratio:.3f}")


def math_geo(v):
    import math
    return math.exp(sum(math.log(x) for x in v) / len(v))


if __name__ == "__main__":
    main()
