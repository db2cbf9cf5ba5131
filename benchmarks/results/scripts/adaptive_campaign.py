#!/usr/bin/env python3
"""Tables, simulator predictions and plots of the adaptive testbed campaign
(benchmarks/results/adaptive-testbed/).

  /usr/bin/python3 benchmarks/results/scripts/adaptive_campaign.py --data /tmp/cclx-adaptive-campaign \
      --sim build/tools/cclx-sim [--img-prefix adaptive_] [--no-plots]
  /usr/bin/python3 benchmarks/results/scripts/adaptive_campaign.py --write   # the page's summary
  /usr/bin/python3 benchmarks/results/scripts/adaptive_campaign.py --check   # the page matches?

Reads the cclx-adaptive-late JSON of benchmarks/testbed/campaign/adaptive.sh (training-loop mode:
per repetition, the mean iteration time of each policy, and the compute delays every rank drew)
and prints one markdown table per job: measured median over repetitions (min-max), the
simulator's prediction and their ratio, and the speedup over MPICH native.

Predictions (cclx-sim on the testbed's built topology, benchmarks/results/adaptive-topologies/testbed8*.json,
which docs/results-testbed.md validated against the emulated links) are per iteration, from the
delays that iteration drew, averaged over iterations and repetitions:
  ring, rhd, stragglar   every rank starts when its delay ends (--start R:S)
  straggler_aware        stragglar (straggler = the late rank) when the job has a persistently
                         late rank, its fallback ring otherwise
  adaptive               the runtime's rank 0 replayed call by call (Runtime below), with its state
                         over each repetition (a fresh request, one warm-up call on time): the
                         prediction of persistently late ranks, the last-rank rule and ski rental
                         with their replays in hindsight (relay/late_prediction.hpp), each set's
                         plans priced by cclx-sim (--param plan=I, the others ready at once, as
                         RelayModel::choices), the decided plan then run from the decision with the
                         late ranks ready at their times.
  native                 not simulated (MPICH's choice is internal to it)
--write puts the summary table of docs/algorithms/adaptive-results.md ("On the testbed": per
scenario the median of native, of the best waiting policy and of adaptive on the profiled and the
built topology, from the stored jobs under benchmarks/results/adaptive-testbed/ listed in SUMMARY)
between `<!-- BEGIN GENERATED: adaptive-testbed-summary -->` / `<!-- END GENERATED: ... -->`
markers of --doc; --check writes nothing and fails (exit 1) when that block differs from what the
stored jobs give. Neither runs cclx-sim or needs matplotlib (seconds).

"adaptive (profiled)" is predicted on the profile it ran on (topo-PROFILE.json in --data, as
adaptive.sh writes it) when that file is there: its trees are the profile's, not the built
topology's.
The schedules are those of the runtime: the relay-aware trees (--param relay=1) for partial
calls; when every rank is present, the fastest of ring, RHD, the pipelined and binomial trees and
both tree sets (relay=0 and 1), as lib/relay/model.cpp picks it.
"""
import argparse
import functools
import glob
import json
import os
import statistics
import subprocess
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "adaptive-testbed")
# The page's summary: (scenario, stored job relative to RESULTS).
SUMMARY = [
    ("one host (h3) at 50 Mbit/s", "slow8.json"),
    ("two classes: h4–h7 at 50 Mbit/s", "twoclasses-fix/classes8.json"),
    ("the same, second run", "twoclasses-fix/classes8-second/classes8.json"),
    ("no jitter", "owners/margin-control/jitter8-j0.json"),
    ("jitter, exponential mean 40 ms", "owners/margin/jitter8-j40.json"),
    ("jitter, mean 80 ms", "owners/margin/jitter8-j80.json"),
    ("jitter, mean 150 ms", "owners/margin/jitter8-j150.json"),
    ("rank 7 late by 300 ms every call", "owners/margin-control/slowrank8-d300.json"),
    ("rank 7 late by 1000 ms every call", "owners/margin-control/slowrank8-d1000.json"),
]
SUMMARY_BLOCK = "adaptive-testbed-summary"
BUILT = {
    "slow8": "testbed8-slow3",
    "classes8": "testbed8-two-classes",
    "jitter8": "testbed8",
    "slowrank8": "testbed8",
}
WAITING = ["native", "ring", "rhd", "stragglar", "straggler_aware"]
ALL_ACTIVE = ["ring", "rhd", "pipelined_tree", "binomial_tree"]  # lib/relay/model.cpp


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
            return os.path.join("benchmarks/results/adaptive-topologies", name + ".json")
    raise SystemExit(f"no built topology for job {job}")


# The runtime's constants (include/cclx/relay/late_prediction.hpp, relay_model.hpp,
# relay/adaptive.hpp).
PREDICTION_MARGIN, LATE_FRACTION, PREDICT_CALLS = 0.1, 0.1, 2
SKI_WINDOW, RULE_WINDOW, TIE = 4, 8, 0.03
REPLAY_MARGIN = TIE  # kReplayMargin: each replayed proceed is charged this fraction of P1 + P2
PLANS = 4  # sched::partial_relay_plans(allreduce)
NIC_RATE = 200e6 / 8  # the testbed's NICs: the floor of proceeding's cost is bytes / NIC_RATE


class Sim:
    # plan: the relay plan of a partial call (cclx-sim --param plan): -1 the cheapest, as the
    # runtime picks it; 0 the relay-aware trees only (the runtime before the subset plans).
    def __init__(self, exe, topology, nbytes, plan=-1):
        self.exe, self.topology, self.bytes, self.plan = exe, topology, nbytes, plan

    @functools.lru_cache(maxsize=None)
    def _json(self, algo, flag, times, relay=1, plan=None):
        cmd = [self.exe, "--topology", self.topology, "--algo", algo, "--bytes", str(self.bytes),
               "--json", "--no-critical-path"]
        if algo == "synth":
            cmd += ["--param", f"relay={relay}",
                    "--param", f"plan={self.plan if plan is None else plan}"]
        if times:
            cmd += [flag, ",".join(f"{r}:{t:.6f}" for r, t in times)]
        out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        return json.loads(out)[0]

    def _run(self, algo, flag, times, relay=1, plan=None):
        return self._json(algo, flag, times, relay, plan)["time_s"]

    @functools.lru_cache(maxsize=None)
    def choices(self, missing):
        """RelayModel::choices: (phase1, phase2, plan) of every plan, the missing ranks ready now."""
        out = []
        for i in range(PLANS):
            try:
                j = self._json("synth", "--late", tuple((q, 0.0) for q in missing), 1, i)
            except subprocess.CalledProcessError:
                continue  # a plan that cannot serve the set
            out.append((j["phase1_s"], j["time_s"] - j["phase1_s"], i))
        return out

    @staticmethod
    def best_plan(choices, late_in):
        finish = lambda c: max(c[0], late_in) + c[1]
        best = choices[0]
        for c in choices:
            if finish(c) < finish(best) * (1 - TIE):
                best = c
        return best

    def run_plan(self, plan, decide, late):  # late: ((rank, ready time), ...) absolute
        times = tuple((q, round(t - decide, 6)) for q, t in late)
        return decide + self._run("synth", "--late", times, 1, plan)

    def waiting(self, algo, starts):
        times = tuple((r, s) for r, s in enumerate(starts) if s > 0)
        return self._run(algo, "--start", times)

    def relay(self, late):  # late: ((rank, ready time relative to phase 1's start), ...)
        if not late:  # everyone present: the runtime's fastest full schedule (relay_model.cpp)
            return min([self._run(a, "--late", ()) for a in ALL_ACTIVE] +
                       [self._run("synth", "--late", (), 0), self._run("synth", "--late", (), 1)])
        return self._run("synth", "--late", tuple(late))


class Runtime:
    """Rank 0 of one adaptive request (lib/relay/runtime.cpp), replayed on arrivals."""

    def __init__(self, sim, n):
        self.sim, self.n = sim, n
        self.full = sim.relay(())
        self.streak = [[] for _ in range(n)]  # LatePredictor
        self.ski_gains, self.calls = [], []   # WaitRules

    def late(self, q):
        return len(self.streak[q]) == PREDICT_CALLS

    def last_rank_on(self):
        if 2 * len(self.calls) < RULE_WINDOW:
            return False
        ski, last = sum(c[0] for c in self.calls), sum(c[1] for c in self.calls)
        return last > 0 and last > ski

    def ski_on(self):
        return not self.last_rank_on() and sum(self.ski_gains) >= 0

    def floor(self):
        return self.sim.bytes / NIC_RATE

    def cheapest(self, missing):
        return Sim.best_plan(self.sim.choices(missing), 0)

    def call(self, ready):
        """One call: its finish (seconds, as `ready`), then what rank 0 learns from it."""
        n, full = self.n, self.full
        order = sorted(range(n), key=lambda r: ready[r])
        first = ready[order[0]]
        finish = None
        for k in range(n):
            now = ready[order[k]]
            if k == n - 1:
                finish = now + full
                break
            missing = tuple(sorted(order[k + 1:]))
            late = tuple((q, ready[q]) for q in missing)
            nxt = ready[order[k + 1]]
            if nxt <= now:
                continue  # the next notice arrives with this one
            if any(self.late(q) for q in range(n)) and all(self.late(q) for q in missing):
                arrival = first + max(min(self.streak[q]) for q in missing)
                p1, p2, plan = Sim.best_plan(self.sim.choices(missing), arrival - now)
                a = max(arrival - now, 0)
                if max(p1, a) + p2 + PREDICTION_MARGIN * (p1 + p2) < a + full:
                    finish = self.sim.run_plan(plan, now, late)
                    break
            if k == n - 2 and self.last_rank_on():
                finish = self.sim.run_plan(self.cheapest(missing)[2], now, late)
                break
            if self.ski_on() and nxt - first >= self.floor():
                p1, p2, plan = self.cheapest(missing)
                tau = max(now, first + p1 + p2)
                if tau < nxt:
                    finish = self.sim.run_plan(plan, tau, late)
                    break
        self.learn(ready, order, first)
        return finish

    def learn(self, ready, order, first):
        n, full = self.n, self.full
        at = [ready[q] - first for q in order]
        last = at[-1]
        ski = lastr = None
        for k in range(n - 1):  # ski_gain
            nxt = at[k + 1]
            if not nxt > at[k] or nxt < self.floor():
                continue
            p1, p2, _ = self.cheapest(tuple(sorted(order[k + 1:])))
            tau = max(at[k], p1 + p2)
            if tau < nxt:
                ski = (last + full) - (max(tau + p1, last) + p2) - REPLAY_MARGIN * (p1 + p2)
                break
        if n >= 2 and at[n - 2] < last:  # last_rank_gain
            p1, p2, _ = self.cheapest((order[-1],))
            lastr = (last + full) - (max(at[n - 2] + p1, last) + p2) - REPLAY_MARGIN * (p1 + p2)
        if ski is not None:
            self.ski_gains = (self.ski_gains + [ski])[-SKI_WINDOW:]
        self.calls = (self.calls + [(ski or 0.0, lastr or 0.0)])[-RULE_WINDOW:]
        threshold = LATE_FRACTION * full
        for q in range(n):
            d = ready[q] - first
            if d >= threshold and d > 0:
                self.streak[q] = (self.streak[q] + [d])[-PREDICT_CALLS:]
            else:
                self.streak[q] = []


def predict(sim, algo, doc):
    if algo == "native":
        return None
    late_job = doc["late_ms"] > 0
    times = []
    for rep in doc["delays"]:
        runtime = Runtime(sim, doc["n"])
        if algo.startswith("adaptive"):
            runtime.call([0.0] * doc["n"])  # the warm-up call, on time
        for starts in rep:
            if algo in ("ring", "rhd", "stragglar"):
                times.append(sim.waiting(algo, starts))
            elif algo == "straggler_aware":
                times.append(sim.waiting("stragglar" if late_job else "ring", starts))
            elif algo.startswith("adaptive"):
                times.append(runtime.call(starts))
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


def summary_table(results):
    """The page's summary: medians over repetitions (as the job tables), the best waiting policy
    (every policy that rounds to its time named, ring's time added when ring is not among them),
    adaptive in bold where both topologies are at least 3% below the best waiting policy."""
    lines = ["| scenario | data (`benchmarks/results/adaptive-testbed/`) | native | best waiting "
             "policy | adaptive (profiled / built) | speedup over native | over the best waiting |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for scenario, rel in SUMMARY:
        with open(os.path.join(results, rel)) as f:
            per, _ = summarize(json.load(f))
        med = {a: statistics.median(v) for a, v in per.items()}
        waiting = [a for a in WAITING if a != "native" and a in med]
        best = min(med[a] for a in waiting)
        names = [a for a in waiting if f"{med[a]:.3f}" == f"{best:.3f}"]
        cell = f"{best:.3f} s ({', '.join(names)})"
        if "ring" not in names:
            cell += f", ring {med['ring']:.3f} s"
        ad = [med["adaptive (profiled)"], med["adaptive (built)"]]
        times = f"{ad[0]:.3f} / {ad[1]:.3f} s"
        if all(t <= (1 - TIE) * best for t in ad):
            times = f"**{times}**"
        lines.append(f"| {scenario} | `{rel}` | {med['native']:.3f} s | {cell} | {times} | "
                     f"{med['native'] / ad[0]:.2f}x / {med['native'] / ad[1]:.2f}x | "
                     f"{best / ad[0]:.2f}x / {best / ad[1]:.2f}x |")
    return lines


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
    ap.add_argument("--data", help="adaptive.sh's output directory (the job tables)")
    ap.add_argument("--sim", help="cclx-sim (the job tables' predictions)")
    ap.add_argument("--img-prefix", default="docs/img/adaptive_")
    ap.add_argument("--no-plots", action="store_true")
    ap.add_argument("--results", default=RESULTS,
                    help="the stored jobs of the summary table (--write, --check)")
    generated.add_options(ap, os.path.join(ROOT, "docs", "algorithms", "adaptive-results.md"),
                          "write the summary table into --doc from --results (no cclx-sim run)",
                          "the summary block", "--results")
    a = ap.parse_args()
    if a.check or a.write:
        return generated.update(a.doc, {SUMMARY_BLOCK: "\n".join(summary_table(a.results))},
                                a.check, a.results,
                                "benchmarks/results/scripts/adaptive_campaign.py --write")
    if not a.data or not a.sim:
        ap.error("--data and --sim are required for the job tables (or --write / --check)")
    jobs = load(a.data)
    results = {job: table(job, doc, a.sim, a.data) for job, doc in jobs.items()}
    if not a.no_plots:
        plot(results, {job: size(doc["bytes"]) for job, doc in jobs.items()}, a.img_prefix)
    return 0


if __name__ == "__main__":
    sys.exit(main())
