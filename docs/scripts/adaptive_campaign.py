#!/usr/bin/env python3
"""Tables, simulator predictions and plots of the adaptive testbed campaign (issue 13 item 5).

  /usr/bin/python3 docs/scripts/adaptive_campaign.py --data /tmp/cclx-adaptive-campaign \
      --sim build/tools/cclx-sim [--img-prefix adaptive_] [--no-plots]

Reads the cclx-adaptive-late JSON of benchmarks/testbed/campaign/adaptive.sh (training-loop mode:
per repetition, the mean iteration time of each policy, and the compute delays every rank drew)
and prints one markdown table per job: measured median over repetitions (min-max), the
simulator's prediction and their ratio, and the speedup over MPICH native.

Predictions (cclx-sim on the testbed's built topology, docs/algorithms/adaptive/testbed8*.json,
which docs/results-testbed.md validated against the emulated links) are per iteration, from the
delays that iteration drew, averaged over iterations and repetitions:
  ring, rhd, stragglar   every rank starts when its delay ends (--start R:S)
  straggler_aware        stragglar (straggler = the late rank) when the job has a persistently
                         late rank, its fallback ring otherwise
  adaptive               the runtime's ski-rental rule replayed: the first notice at t0; at each
                         moment the set S of ranks ready so far; proceed once now - t0 reaches
                         cost(S) (synth relay time with the others ready at once, as the runtime's
                         RelayModel::cost), or when every rank is ready; then synth as a relay
                         collective from that moment with the late ranks ready at their times.
  native                 not simulated (MPICH's choice is internal to it)
"adaptive (profiled)" is predicted on the profile it ran on (topo-PROFILE.json in --data, as
adaptive.sh writes it) when that file is there: its trees are the profile's, not the built
topology's.
The schedules are those of the runtime: the relay-aware trees (--param relay=1) for partial
calls; when every rank is present, the fastest of ring, RHD, the pipelined and binomial trees and
both tree sets (relay=0 and 1), as lib/sim/relay_model.cpp picks it.
"""
import argparse
import functools
import glob
import json
import os
import statistics
import subprocess
import sys

BUILT = {
    "slow8": "testbed8-slow3",
    "classes8": "testbed8-two-classes",
    "jitter8": "testbed8",
    "slowrank8": "testbed8",
}
WAITING = ["native", "ring", "rhd", "stragglar", "straggler_aware"]
ALL_ACTIVE = ["ring", "rhd", "pipelined_tree", "binomial_tree"]  # lib/sim/relay_model.cpp


PROFILE = {"slow8": "slow8", "classes8": "classes8", "jitter8": "uniform8",
           "slowrank8": "uniform8"}


def profile_topology(job, data):
    for prefix, name in PROFILE.items():
        path = os.path.join(data, f"topo-{name}.json")
        if job.startswith(prefix) and os.path.exists(path):
            return path
    return None


def built_topology(job):
    for prefix, name in BUILT.items():
        if job.startswith(prefix):
            return os.path.join("docs/algorithms/adaptive", name + ".json")
    raise SystemExit(f"no built topology for job {job}")


class Sim:
    # plan: the relay plan of a partial call (cclx-sim --param plan): -1 the cheapest, as the
    # runtime picks it; 0 the relay-aware trees only (the runtime before the subset plans).
    def __init__(self, exe, topology, nbytes, plan=-1):
        self.exe, self.topology, self.bytes, self.plan = exe, topology, nbytes, plan

    @functools.lru_cache(maxsize=None)
    def _run(self, algo, flag, times, relay=1):
        cmd = [self.exe, "--topology", self.topology, "--algo", algo, "--bytes", str(self.bytes),
               "--json", "--no-critical-path"]
        if algo == "synth":
            cmd += ["--param", f"relay={relay}", "--param", f"plan={self.plan}"]
        if times:
            cmd += [flag, ",".join(f"{r}:{t:.6f}" for r, t in times)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(out)[0]["time_s"]

    def waiting(self, algo, starts):
        times = tuple((r, s) for r, s in enumerate(starts) if s > 0)
        return self._run(algo, "--start", times)

    def relay(self, late):  # late: ((rank, ready time relative to phase 1's start), ...)
        if not late:  # everyone present: the runtime's fastest full schedule (relay_model.cpp)
            return min([self._run(a, "--late", ()) for a in ALL_ACTIVE] +
                       [self._run("synth", "--late", (), 0), self._run("synth", "--late", (), 1)])
        return self._run("synth", "--late", tuple(late))

    def adaptive(self, ready):
        """The runtime's ski-rental decision replayed on `ready` (seconds per rank)."""
        order = sorted(range(len(ready)), key=lambda r: ready[r])
        t0 = ready[order[0]]
        for i, r in enumerate(order):
            now = ready[r]
            present = set(order[: i + 1])
            if len(present) == len(ready):  # everyone is here before the rule proceeded
                return now + self.relay(())
            cost = self.relay(tuple((q, 0.0) for q in sorted(set(range(len(ready))) - present)))
            nxt = ready[order[i + 1]]
            if t0 + cost <= nxt:  # proceeds before the next notice
                decide = max(now, t0 + cost)
                late = tuple((q, round(ready[q] - decide, 6))
                             for q in sorted(set(range(len(ready))) - present))
                return decide + self.relay(late)
        raise AssertionError("unreachable")


def predict(sim, algo, doc):
    if algo == "native":
        return None
    late_job = doc["late_ms"] > 0
    times = []
    for rep in doc["delays"]:
        for starts in rep:
            if algo in ("ring", "rhd", "stragglar"):
                times.append(sim.waiting(algo, starts))
            elif algo == "straggler_aware":
                times.append(sim.waiting("stragglar" if late_job else "ring", starts))
            elif algo.startswith("adaptive"):
                times.append(sim.adaptive(starts))
    return statistics.mean(times) if times else None


def load(data):
    jobs = {}
    for path in sorted(glob.glob(os.path.join(data, "*.json"))):
        name = os.path.basename(path)[:-5]
        if name.startswith("topo-"):
            continue
        with open(path) as f:
            text = f.read().strip()
        if not text:
            print(f"warning: {path} is empty (see its .log)", file=sys.stderr)
            continue
        jobs[name] = json.loads(text)
    return jobs


def label(algo):
    """adaptive runs on the profiled topology, adaptive[FILE] on the built one."""
    if algo == "adaptive":
        return "adaptive (profiled)"
    if algo.startswith("adaptive["):
        return "adaptive (built)"
    return algo


def summarize(doc):
    per, partial = {}, {}
    for r in doc["results"]:
        name = label(r["algo"])
        per.setdefault(name, []).append(r["iter_s"])
        partial[name] = partial.get(name, 0) + r.get("partial_decisions", 0)
    return per, partial


def size(b):
    return f"{b >> 20} MiB" if b >= 1 << 20 else f"{b >> 10} KiB"


def mean_compute(doc):
    """Mean over iterations of the largest delay: what no algorithm can hide."""
    return statistics.mean(max(it) for rep in doc["delays"] for it in rep)


def table(job, doc, sim_exe, data):
    topo = built_topology(job)
    sim = Sim(sim_exe, topo, doc["bytes"])
    prof = profile_topology(job, data)
    prof_sim = Sim(sim_exe, prof, doc["bytes"]) if prof else sim
    per, partial = summarize(doc)
    native = statistics.median(per["native"]) if "native" in per else None
    calls = doc["iters"] + 1
    print(f"#### {job}: {doc['n']} hosts, {size(doc['bytes'])}, late rank {doc['late_rank']} "
          f"by {doc['late_ms']:g} ms, jitter mean {doc['jitter_ms']:g} ms "
          f"({doc['repeat']} repetitions x {doc['iters']} iterations)\n")
    print(f"Predictions on `{topo}`"
          f"{f' (adaptive (profiled) on its profile `{os.path.basename(prof)}`)' if prof else ''}"
          f"; mean largest compute delay per iteration "
          f"{mean_compute(doc) * 1e3:.0f} ms.\n")
    print("| algorithm | mean iteration (s), median | min-max | simulated (s) | sim / measured "
          "| speedup over native | calls without some rank |")
    print("|:---|---:|---:|---:|---:|---:|---:|")
    rows = {}
    for algo, v in per.items():
        med = statistics.median(v)
        pred = predict(prof_sim if algo == "adaptive (profiled)" else sim, algo, doc)
        rows[algo] = (med, pred)
        part = (f"{partial[algo]} of {calls * doc['repeat']}" if algo.startswith("adaptive")
                else "—")
        print(f"| {algo} | {med:.3f} | {min(v):.3f}-{max(v):.3f} | "
              f"{'—' if pred is None else f'{pred:.3f}'} | "
              f"{'—' if pred is None else f'{pred / med:.2f}'} | "
              f"{'—' if native is None else f'{native / med:.2f}x'} | {part} |")
    print()
    return rows


def plot(results, sizes, img_prefix):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    groups = [("heterogeneous links", [j for j in results if j in ("slow8", "classes8")]),
              ("persistent slow rank",
               sorted((j for j in results if j.startswith("slowrank8")),
                      key=lambda j: float(j.split("-d")[1]))),
              ("compute jitter",
               sorted((j for j in results if j.startswith("jitter8")),
                      key=lambda j: float(j.split("-j")[1])))]
    for title, jobs in groups:
        if not jobs:
            continue
        algos = list(results[jobs[0]].keys())
        fig, ax = plt.subplots(figsize=(9, 4.5))
        width = 0.8 / len(jobs)
        for k, job in enumerate(jobs):
            xs = [i + k * width for i in range(len(algos))]
            meas = [results[job][a][0] for a in algos]
            pred = [results[job][a][1] for a in algos]
            ax.bar(xs, meas, width, label=f"{job} measured")
            ax.scatter([x for x, p in zip(xs, pred) if p is not None],
                       [p for p in pred if p is not None], marker="_", s=300, color="black",
                       zorder=3, label="simulated" if k == 0 else None)
        ax.set_xticks([i + 0.4 - width / 2 for i in range(len(algos))])
        ax.set_xticklabels(algos, rotation=20, ha="right", fontsize=8)
        ax.set_ylabel("mean iteration time (s)")
        ax.set_title(f"{title} (8 hosts, {sizes[jobs[0]]}; bars: measured, lines: simulated)",
                     fontsize=10)
        ax.legend(fontsize=8)
        fig.tight_layout()
        name = img_prefix + title.replace(" ", "-") + ".png"
        fig.savefig(name, dpi=110)
        print(f"wrote {name}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", required=True)
    ap.add_argument("--sim", required=True)
    ap.add_argument("--img-prefix", default="docs/img/adaptive_")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args()
    jobs = load(a.data)
    results = {job: table(job, doc, a.sim, a.data) for job, doc in jobs.items()}
    if not a.no_plots:
        plot(results, {job: size(doc["bytes"]) for job, doc in jobs.items()}, a.img_prefix)


if __name__ == "__main__":
    main()
