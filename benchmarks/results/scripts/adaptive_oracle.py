#!/usr/bin/env python3
"""How much could any wait-or-proceed rule gain under the campaign's compute delays?

  /usr/bin/python3 benchmarks/results/scripts/adaptive_oracle.py --sim build/tools/cclx-sim \
      [--data benchmarks/results/adaptive-testbed] [--plan -1|0]

For each jitter and slow-rank job of the adaptive testbed campaign (uniform links, the built
topology benchmarks/results/adaptive-topologies/testbed8.json), replays the delays every rank drew and prints
the mean iteration time, all simulated (cclx-sim), of:
  ring-wait        ring, every rank starting when its delay ends (the best waiting policy there)
  ski              the runtime's ski-rental rule with today's relay plans (adaptive_campaign.py;
                   --plan -1, the default: the cheapest per active set, as the runtime picks it;
                   --plan 0: the relay-aware trees only, the runtime before the subset plans)
  oracle           the best moment to proceed, known in hindsight, with those relay plans:
                   at each arrival, or waiting for everyone (then the fastest full schedule)
  ideal-oracle     the same with *ideal* relay phases (a lower bound no implementation reaches):
                   phase 1 = ring over the ready ranks as if the relays cost nothing; phase 2 =
                   one chain broadcast (64 KiB segments) of the late data for one late rank, a
                   chain reduce among the late ranks plus that broadcast for two; three or more
                   late ranks are not considered (waiting for them is cheaper than 3 phases)
  ideal-ski        the ski-rental rule with those ideal costs
A ratio below 1 against ring-wait is what proceeding without the late ranks can gain at best.
"""
import argparse
import functools
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import adaptive_campaign as ac  # noqa: E402

JOBS = ["jitter8-j0", "jitter8-j40", "jitter8-j80", "jitter8-j150", "slowrank8-d300",
        "slowrank8-d1000"]


class Ideal:
    """Ideal relay phases on the uniform links of the built topology (full mesh, α and bw)."""

    def __init__(self, exe, topology, nbytes):
        with open(topology) as f:
            inter = json.load(f)["inter"]
        self.args = ["--alpha", str(inter["alpha"]), "--bw", str(inter["bw"]), "--bytes",
                     str(nbytes), "--no-critical-path", "--json"]
        self.exe = exe

    @functools.lru_cache(maxsize=None)
    def _sim(self, *args):
        out = subprocess.run([self.exe, *args, *self.args], check=True, capture_output=True,
                             text=True).stdout
        return json.loads(out)[0]["time_s"]

    def ring(self, k):
        return self._sim("--algo", "ring", "--n", str(k))

    def phase2(self, n, late):
        chain = self._sim("--algo", "pipelined_tree", "--n", str(n), "--collective", "bcast",
                          "--param", "fanout=1", "--param", "segment_bytes=65536")
        return chain if late == 1 else 2 * chain


def replay(sim, ideal, ready):
    n = len(ready)
    order = sorted(range(n), key=lambda r: ready[r])
    t = [ready[r] for r in order]
    ring_wait = sim.waiting("ring", ready)
    everyone = t[-1] + sim.relay(())
    oracle = everyone
    for i in range(n - 1):  # proceed at the (i+1)-th arrival with today's relay schedules
        present = set(order[: i + 1])
        late = tuple((q, round(ready[q] - t[i], 6)) for q in sorted(set(range(n)) - present))
        oracle = min(oracle, t[i] + sim.relay(late))
    ideal_oracle, ideal_ski = ring_wait, None
    for k in range(max(2, n - 2), n):  # k ready ranks, n - k late (one or two)
        cost = ideal.ring(k) + ideal.phase2(n, n - k)
        finish = max(t[k - 1] + ideal.ring(k), t[-1]) + ideal.phase2(n, n - k)
        ideal_oracle = min(ideal_oracle, finish)
    for k in range(1, n):  # ski rental on the ideal costs: proceed once waiting reaches cost(k)
        if n - k > 2:
            continue
        cost = ideal.ring(k) + ideal.phase2(n, n - k)
        if t[0] + cost <= t[k]:
            decide = max(t[k - 1], t[0] + cost)
            ideal_ski = max(decide + ideal.ring(k), t[-1]) + ideal.phase2(n, n - k)
            break
    return ring_wait, sim.adaptive(ready), oracle, ideal_oracle, ideal_ski or ring_wait


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sim", required=True)
    ap.add_argument("--data", default="benchmarks/results/adaptive-testbed")
    ap.add_argument("--plan", type=int, default=-1, help="relay plan (cclx-sim --param plan)")
    a = ap.parse_args()
    print("| job | ring-wait (s) | ski | oracle | ideal-oracle | ideal-ski |")
    print("|:---|---:|---:|---:|---:|---:|")
    for job in JOBS:
        path = os.path.join(a.data, job + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            doc = json.load(f)
        topo = ac.built_topology(job)
        sim = ac.Sim(a.sim, topo, doc["bytes"], a.plan)
        ideal = Ideal(a.sim, topo, doc["bytes"])
        rows = [replay(sim, ideal, ready) for rep in doc["delays"] for ready in rep]
        means = [statistics.mean(col) for col in zip(*rows)]
        base = means[0]
        cells = [f"{means[0]:.3f}"] + [f"{m:.3f} ({m / base:.3f})" for m in means[1:]]
        print(f"| {job} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
