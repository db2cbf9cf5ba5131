#!/usr/bin/python3
"""Tables and plots of the testbed campaign (docs/results-testbed.md).

Reads the cclx-bench JSON written by benchmarks/testbed/campaign/run.sh (default
/tmp/cclx-campaign), runs cclx-sim on the testbed topology for every measurement, prints
Markdown tables on stdout and writes docs/img/testbed_*.png.

  /usr/bin/python3 benchmarks/results/scripts/plot_testbed.py --data /tmp/cclx-campaign \
      --sim build-campaign/lib/cclx-sim --alpha 150e-6 [--no-plots]

Model: one rank per host; every host has an up- and a down-link (star on a non-blocking
switch) at the rate TCP achieves through tbf, 0.956 x configured (docs/testbed.md); α is
charged once per message.
"""
import argparse
import json
import os
import subprocess
import tempfile


def pyplot():
    """matplotlib only when plotting (Debian: python3-matplotlib); --no-plots needs none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt

TCP_EFF = 0.956
RATE = 200e6  # configured bit/s
SLOW = 50e6
ALGOS = ["native", "ring", "rhd", "binomial_tree", "stragglar"]
SIM_ALGOS = ["ring", "rhd", "binomial_tree", "stragglar"]


def load(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    text = open(path).read()
    return json.loads(text[text.index("{"):])


def rows(doc):
    """{(size, algo): max latency in s (max over measured ranks, median over repetitions)}"""
    return {(r["size"], r["algorithm"]): r["max_latency_us"] * 1e-6 for r in doc["results"]}


def bps(rate):
    return rate * TCP_EFF / 8


class Sim:
    def __init__(self, exe, alpha, profiled=None):
        # profiled: a directory with cclx-topo's topo<n>.json for the uniform testbeds
        self.exe, self.alpha, self.cache, self.profiled = exe, alpha, {}, profiled
        self.tmp = tempfile.mkdtemp(prefix="cclxtb-sim-")

    def topo(self, n, slow=None):
        if self.profiled:
            # topo<n>.json: uniform testbed; topo<n>-slow<h>.json: host h at the slow rate
            prof = os.path.join(self.profiled,
                                f"topo{n}.json" if slow is None else f"topo{n}-slow{slow}.json")
            if os.path.exists(prof):
                return prof
        name = os.path.join(self.tmp, f"t{n}-{slow}.json")
        host = [{"alpha": self.alpha, "bw": bps(SLOW if h == slow else RATE)} for h in range(n)]
        t = {"builder": "two_level", "hosts": n, "ranks_per_host": 1,
             "intra": {"alpha": 0, "bw": 1e15}, "inter": {"alpha": self.alpha, "bw": bps(RATE)},
             "host_inter": host}
        json.dump(t, open(name, "w"))
        return name

    def time(self, algo, n, size, slow=None, straggler=None, delay=0.0):
        key = (algo, n, size, slow, straggler, delay)
        if key in self.cache:
            return self.cache[key]
        cmd = [self.exe, "--algo", algo, "--topology", self.topo(n, slow), "--bytes", str(size),
               "--elem-size", "4", "--no-critical-path", "--json"]
        if algo == "stragglar":
            cmd += ["--param", f"straggler={n - 1 if straggler is None else straggler}"]
        if straggler is not None:
            cmd += ["--start", f"{straggler}:{delay}"]
        out = json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)
        run = out[0] if isinstance(out, list) else out
        ends = run["rank_end_s"]
        # Measured as the non-stragglers see it: their completion, from their own start (0).
        t = max(e for r, e in enumerate(ends) if r != straggler)
        self.cache[key] = t
        return t


def mib(s):
    return f"{s // 2**20} MiB"


def fmt(x):
    return f"{x:.3f}"


def base_table(doc, n, sim):
    m = rows(doc)
    sizes = sorted({s for s, _ in m})
    print(f"\n#### {n} hosts, 200 Mbit/s each\n")
    print("| size | algorithm | measured (s) | α-β bound (s) | efficiency | simulated (s) | sim / measured |")
    print("|---:|:---|---:|---:|---:|---:|---:|")
    eff = {}
    for s in sizes:
        bound = 2 * (n - 1) / n * s / bps(RATE)
        for a in ALGOS:
            if (s, a) not in m:
                continue
            t = m[(s, a)]
            e = bound / t
            eff[(s, a)] = (t, e)
            if a in SIM_ALGOS:
                p = sim.time(a, n, s)
                sp, sr = fmt(p), f"{p / t:.2f}"
            else:
                sp, sr = "—", "—"
            print(f"| {mib(s)} | {a} | {fmt(t)} | {fmt(bound)} | {e * 100:.1f}% | {sp} | {sr} |")
    return eff


def plot_base(effs, path):
    plt = pyplot()
    fig, axes = plt.subplots(1, len(effs), figsize=(5.5 * len(effs), 4), squeeze=False)
    for ax, (n, eff) in zip(axes[0], sorted(effs.items())):
        sizes = sorted({s for s, _ in eff})
        for a in ALGOS:
            xs = [s / 2**20 for s in sizes if (s, a) in eff]
            ys = [eff[(s, a)][1] * 100 for s in sizes if (s, a) in eff]
            if xs:
                ax.plot(xs, ys, marker="o", label=a)
        ax.axhline(95, color="gray", ls="--", lw=0.8)
        ax.set_xscale("log", base=2)
        ax.set_xlabel("message size (MiB)")
        ax.set_ylabel("efficiency vs 2(n-1)/n·s/rate (%)")
        ax.set_title(f"float allreduce, {n} hosts × 200 Mbit/s (tbf)")
        ax.set_ylim(0, 110)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def straggler_table(data, n, sim, delays):
    res = {}
    for d in delays:
        doc = load(os.path.join(data, f"strag-{n}-d{d}.json"))
        if doc is None:
            continue
        res[d] = (rows(doc), doc["straggler"]["rank"])
    if not res:
        return None
    size = sorted({s for s, _ in next(iter(res.values()))[0]})[0]
    algos = [a for a in ["native", "ring", "rhd", "stragglar"]]
    print(f"\n#### {n} hosts, {mib(size)}, straggler rank {n - 1}\n")
    print("| delay (ms) | " + " | ".join(f"{a} (s)" for a in algos)
          + " | StragglAR vs ring | vs native | vs rhd | sim: " + " | sim: ".join(a for a in algos if a in SIM_ALGOS) + " |")
    print("|---:|" + "---:|" * (len(algos) + 3 + len([a for a in algos if a in SIM_ALGOS])))
    for d, (m, strag) in sorted(res.items()):
        t = {a: m.get((size, a)) for a in algos}
        st = t["stragglar"]
        sp = [f"{t[a] / st:.2f}x" if t[a] and st else "—" for a in ["ring", "native", "rhd"]]
        sims = [fmt(sim.time(a, n, size, straggler=strag, delay=d / 1000)) for a in SIM_ALGOS if a in algos]
        print(f"| {d} | " + " | ".join(fmt(t[a]) if t[a] else "—" for a in algos) + " | "
              + " | ".join(sp) + " | " + " | ".join(sims) + " |")
    return size, res


def plot_straggler(results, path):
    plt = pyplot()
    fig, axes = plt.subplots(1, len(results), figsize=(5.5 * len(results), 4), squeeze=False)
    for ax, (n, (size, res)) in zip(axes[0], sorted(results.items())):
        ds = sorted(res)
        for a in ["native", "ring", "rhd", "stragglar"]:
            ax.plot(ds, [res[d][0].get((size, a), float("nan")) for d in ds], marker="o", label=a)
        ax.set_xlabel("straggler delay D (ms)")
        ax.set_ylabel("time from non-stragglers' start (s)")
        ax.set_title(f"{n} hosts, {size // 2**20} MiB, persistent straggler")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def slow_table(data, base, n, sim, slow):
    doc = load(os.path.join(data, f"slow-{n}.json"))
    if doc is None:
        return
    m, b = rows(doc), rows(base)
    size = sorted({s for s, _ in m})[0]
    print(f"\n#### {n} hosts, {mib(size)}, h{slow} at 50 Mbit/s, the others at 200 Mbit/s\n")
    print(f"| algorithm | all 200 Mbit/s (s) | h{slow} at 50 Mbit/s (s) | slowdown | simulated (s) | sim / measured |")
    print("|:---|---:|---:|---:|---:|---:|")
    for a in ALGOS:
        if (size, a) not in m:
            continue
        t, t0 = m[(size, a)], b.get((size, a))
        if a in SIM_ALGOS:
            p = sim.time(a, n, size, slow=slow)
            sp, sr = fmt(p), f"{p / t:.2f}"
        else:
            sp, sr = "—", "—"
        print(f"| {a} | {fmt(t0) if t0 else '—'} | {fmt(t)} | {t / t0:.2f}x | {sp} | {sr} |" if t0
              else f"| {a} | — | {fmt(t)} | — | {sp} | {sr} |")


def ablation_table(data):
    """8 hosts, 16 MiB: slow start after idle x handshake x UCX_TCP_SNDBUF (phase ablate8)."""
    import glob
    import re
    cells = []
    for path in sorted(glob.glob(os.path.join(data, "ablate-8-*.json"))):
        m = re.match(r"ablate-8-ssai(on|off)-hs(\w+?)(?:-sb(\d+))?\.json$", os.path.basename(path))
        doc = load(path)
        if m and doc:
            cells.append((m[1], m[2], m[3] or "auto", rows(doc)))
    if not cells:
        return
    size = 16 * 2**20
    bound = 2 * 7 / 8 * size / bps(RATE)
    algos = ["native", "ring", "rhd", "stragglar"]
    print("\n#### 8 hosts, 16 MiB: one change at a time (time, efficiency)\n")
    print("| slow start after idle | UCX_TCP_SNDBUF | handshake | " + " | ".join(algos) + " |")
    print("|:---|:---|:---|" + "---:|" * len(algos))
    for ssai, hs, sb, m in cells:
        cols = [f"{fmt(m[(size, x)])} s, {bound / m[(size, x)] * 100:.0f}%" if (size, x) in m else "—"
                for x in algos]
        print(f"| {ssai} | {sb} | {'off' if hs == '0' else '≥ ' + hs} | " + " | ".join(cols) + " |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/tmp/cclx-campaign")
    ap.add_argument("--sim", default="build-campaign/lib/cclx-sim")
    ap.add_argument("--alpha", type=float, default=150e-6)
    ap.add_argument("--img", default=os.path.join(os.path.dirname(__file__), "..", "..", "..", "docs", "img"))
    ap.add_argument("--profiled", help="directory with cclx-topo's topo4.json, topo8.json (uniform) "
                    "and topo4-slow1.json, topo8-slow3.json (slow host): simulate on the profiled "
                    "topologies instead of the built ones")
    ap.add_argument("--img-prefix", default="testbed_", help="PNG names: PREFIXefficiency.png, ...")
    ap.add_argument("--no-plots", action="store_true", help="tables only (no matplotlib needed)")
    a = ap.parse_args()
    os.makedirs(a.img, exist_ok=True)
    sim = Sim(a.sim, a.alpha, a.profiled)
    effs, bases = {}, {}
    for n in (4, 8):
        doc = load(os.path.join(a.data, f"base-{n}.json"))
        if doc:
            bases[n] = doc
            effs[n] = base_table(doc, n, sim)
    doc = load(os.path.join(a.data, "base-8-64M.json"))
    if doc:
        base_table(doc, 8, sim)
    if effs and not a.no_plots:
        plot_base(effs, os.path.join(a.img, a.img_prefix + "efficiency.png"))
    strag = {}
    for n in (8, 4):
        r = straggler_table(a.data, n, sim, [0, 100, 150, 200, 300, 400, 600, 800, 1000, 1500])
        if r:
            strag[n] = r
    if strag and not a.no_plots:
        plot_straggler(strag, os.path.join(a.img, a.img_prefix + "straggler.png"))
    if 8 in bases:
        slow_table(a.data, bases[8], 8, sim, slow=3)
    if 4 in bases:
        slow_table(a.data, bases[4], 4, sim, slow=1)
    ablation_table(a.data)


if __name__ == "__main__":
    main()
