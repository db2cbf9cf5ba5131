#!/usr/bin/python3
"""Tables and plots of the testbed allreduce measurements (docs/results-testbed.md).

Reads the cclx-bench JSON that benchmarks/testbed/campaign/run.sh writes (by default the stored
data set, benchmarks/results/testbed-allreduce/), runs cclx-sim on the testbed's topology for
every measurement, and writes the tables into docs/results-testbed.md between
`<!-- BEGIN GENERATED: NAME -->` / `<!-- END GENERATED: NAME -->` markers and the plots into
docs/img/testbed_*.png.

    /usr/bin/python3 benchmarks/results/scripts/plot_testbed.py --sim build/tools/cclx-sim
    /usr/bin/python3 benchmarks/results/scripts/plot_testbed.py --sim build/tools/cclx-sim \\
        --data /tmp/cclx-campaign --repeat-data /tmp/cclx-campaign-r9 --stdout --no-plots
    /usr/bin/python3 benchmarks/results/scripts/plot_testbed.py --check --sim build/tools/cclx-sim

--stdout prints the blocks instead of writing the page (for data that is not stored here);
--check writes nothing and fails (exit 1, naming the blocks) when a block of the page differs
from what the stored data gives. Only the plots need matplotlib (Debian: python3-matplotlib);
--check and --no-plots need none.

Model: one rank per host; every host has an up- and a down-link (star on a non-blocking
switch) at the rate TCP achieves through tbf, 0.956 x configured (docs/testbed.md); α is
charged once per message.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RESULTS = os.path.join(ROOT, "benchmarks", "results")
DATA = os.path.join(RESULTS, "testbed-allreduce")

TCP_EFF = 0.956
RATE = 200e6  # configured bit/s
SLOW = 50e6
ALGOS = ["native", "ring", "rhd", "binomial_tree", "stragglar"]
SIM_ALGOS = ["ring", "rhd", "binomial_tree", "stragglar"]
STRAG_ALGOS = ["native", "ring", "rhd", "stragglar"]
DELAYS = [0, 100, 150, 200, 300, 400, 600, 800, 1000, 1500]
SLOW_HOST = {8: 3, 4: 1}  # the runner's slow8 / slow4 phases
GOAL_SIZE = 4 * 2**20  # goals count sizes from 4 MiB
GOAL_RING_EFF = 0.95
GOAL_VS_RING, GOAL_VS_NATIVE = 1.2, 1.25
GOAL_SIM = 0.15
RS_DELAY_MS = 600  # 8 hosts, 16 MiB: the reduce-scatter takes 0.60-0.61 s
MID_TOPOLOGY = os.path.join(RESULTS, "adaptive-topologies", "testbed8.json")
MID_GAMMA = 2.5e-10
# cclx-topo's profiles of the 8-host testbed, uniform and with h3 at 50 Mbit/s (data set
# adaptive-testbed): the simulator block also predicts the 8-host measurements on them.
PROFILED8 = {(8, None): os.path.join(RESULTS, "adaptive-testbed", "topo-uniform8.json"),
             (8, 3): os.path.join(RESULTS, "adaptive-testbed", "topo-slow8.json")}


def pyplot():
    """matplotlib only when plotting (Debian: python3-matplotlib); --no-plots needs none."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def shown(path):
    """A path as the page names it: relative to the repository when inside it."""
    p = os.path.abspath(path)
    return os.path.relpath(p, ROOT) if p.startswith(ROOT + os.sep) else path


def load(path):
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return None
    text = open(path).read()
    return json.loads(text[text.index("{"):])


def rows(doc):
    """{(size, algo): max latency in s (max over measured ranks, median over repetitions)}"""
    return {(r["size"], r["algorithm"]): r["max_latency_us"] * 1e-6 for r in doc["results"]}


def reps(doc):
    """{(size, algo): [every repetition's max latency in s]}"""
    return {(r["size"], r["algorithm"]): [x * 1e-6 for x in r["repetitions_max_latency_us"]]
            for r in doc["results"]}


def bps(rate):
    return rate * TCP_EFF / 8


def bound(n, size):
    return 2 * (n - 1) / n * size / bps(RATE)


class Sim:
    def __init__(self, exe, alpha, profiled=None, files=None):
        # profiled: a directory with cclx-topo's topo<n>.json for the uniform testbeds;
        # files: {(n, slow host or None): topology JSON}
        self.exe, self.alpha, self.cache, self.profiled = exe, alpha, {}, profiled
        self.files = files or {}
        self.tmp = tempfile.TemporaryDirectory(prefix="cclxtb-sim-")

    def topo(self, n, slow=None):
        if (n, slow) in self.files:
            return self.files[(n, slow)]
        if self.profiled:
            # topo<n>.json: uniform testbed; topo<n>-slow<h>.json: host h at the slow rate
            prof = os.path.join(self.profiled,
                                f"topo{n}.json" if slow is None else f"topo{n}-slow{slow}.json")
            if os.path.exists(prof):
                return prof
        name = os.path.join(self.tmp.name, f"t{n}-{slow}.json")
        if not os.path.exists(name):
            host = [{"alpha": self.alpha, "bw": bps(SLOW if h == slow else RATE)} for h in range(n)]
            t = {"builder": "two_level", "hosts": n, "ranks_per_host": 1,
                 "intra": {"alpha": 0, "bw": 1e15},
                 "inter": {"alpha": self.alpha, "bw": bps(RATE)}, "host_inter": host}
            with open(name, "w") as f:
                json.dump(t, f)
        return name

    def run(self, args):
        try:
            out = subprocess.run([self.exe] + args, check=True, capture_output=True, text=True)
        except (OSError, subprocess.CalledProcessError) as e:
            sys.exit(f"plot_testbed.py: cclx-sim failed ({self.exe} {' '.join(args)}): {e}")
        return json.loads(out.stdout)

    def time(self, algo, n, size, slow=None, straggler=None, delay=0.0):
        key = (algo, n, size, slow, straggler, delay)
        if key in self.cache:
            return self.cache[key]
        cmd = ["--algo", algo, "--topology", self.topo(n, slow), "--bytes", str(size),
               "--elem-size", "4", "--no-critical-path", "--json"]
        if algo == "stragglar":
            cmd += ["--param", f"straggler={n - 1 if straggler is None else straggler}"]
        if straggler is not None:
            cmd += ["--start", f"{straggler}:{delay}"]
        out = self.run(cmd)
        run = out[0] if isinstance(out, list) else out
        ends = run["rank_end_s"]
        # Measured as the non-stragglers see it: their completion, from their own start (0).
        t = max(e for r, e in enumerate(ends) if r != straggler)
        self.cache[key] = t
        return t


def mib(s):
    return f"{s // 2**20} MiB" if s >= 2**20 else f"{s // 2**10} KiB"


def fmt(x):
    return f"{x:.3f}"


def pct(x):
    return f"{x * 100:.1f}%"


class Data:
    """Every measurement the page uses, and the simulator's prediction for each."""

    def __init__(self, data, repeat_data, mid, sim, sim_prof=None):
        self.dir, self.repeat_dir, self.mid_path, self.sim = data, repeat_data, mid, sim
        self.sim_prof = sim_prof  # a Sim on cclx-topo's profiles, or None
        self.base = {}  # n -> [(file, doc)]
        for n, names in ((4, ["base-4"]), (8, ["base-8", "base-8-64M"])):
            for name in names:
                doc = load(os.path.join(data, name + ".json"))
                if doc:
                    self.base.setdefault(n, []).append((name, doc))
        self.strag = {}  # (n, repetitions) -> {delay: doc}
        for d_dir in (data, repeat_data):
            if not d_dir:
                continue
            for n in (8, 4):
                for d in DELAYS:
                    doc = load(os.path.join(d_dir, f"strag-{n}-d{d}.json"))
                    if doc:
                        self.strag.setdefault((n, doc["repetitions"], d_dir), {})[d] = doc
        self.slow = {n: load(os.path.join(data, f"slow-{n}.json")) for n in (8, 4)}
        self.ablate = []
        for path in sorted(glob.glob(os.path.join(data, "ablate-8-*.json"))):
            m = re.match(r"ablate-8-ssai(on|off)-hs(\w+?)(?:-sb(\d+))?\.json$",
                         os.path.basename(path))
            doc = load(path)
            if m and doc:
                self.ablate.append((m[1], m[2], m[3] or "auto", doc))
        self.mid = json.load(open(mid)) if mid and os.path.exists(mid) else None

    def base_rows(self, n):
        m = {}
        for _, doc in self.base.get(n, []):
            m.update(rows(doc))
        return m

    def strag_runs(self):
        """[(n, repetitions, {delay: doc})], the main data set's first."""
        order = sorted(self.strag, key=lambda k: (k[2] != self.dir, -k[0], k[1]))
        return [(k[0], k[1], self.strag[k]) for k in order]

    def predictions(self, sim=None, hosts=None):
        """[(case, measured s, simulated s)] for every simulated measurement at >= 4 MiB (on
        `hosts` hosts only, when given)."""
        sim, out = sim or self.sim, []
        for n in sorted(self.base):
            if hosts and n != hosts:
                continue
            for (s, a), t in sorted(self.base_rows(n).items()):
                if a in SIM_ALGOS and s >= GOAL_SIZE:
                    out.append((f"{n} hosts, {mib(s)}, {a}", t, sim.time(a, n, s)))
        for n, r, docs in self.strag_runs():
            if hosts and n != hosts:
                continue
            for d, doc in sorted(docs.items()):
                m, strag = rows(doc), doc["straggler"]["rank"]
                for (s, a), t in sorted(m.items()):
                    if a in SIM_ALGOS:
                        p = sim.time(a, n, s, straggler=strag, delay=d / 1000)
                        out.append((f"{n} hosts, D = {d} ms ({r} repetitions), {a}", t, p))
        for n, doc in sorted(self.slow.items()):
            if doc and (not hosts or n == hosts):
                for (s, a), t in sorted(rows(doc).items()):
                    if a in SIM_ALGOS:
                        p = sim.time(a, n, s, slow=SLOW_HOST[n])
                        out.append((f"{n} hosts, h{SLOW_HOST[n]} slow, {mib(s)}, {a}", t, p))
        return out


# ---- blocks ------------------------------------------------------------------------------------

def block_goals(data):
    lines = ["| goal | measured | met? |", "|:---|:---|:---|"]
    # 1. ring at >= 95% of the bound from 4 MiB on
    parts, misses = [], []
    for n in sorted(data.base):
        m = data.base_rows(n)
        sizes = sorted(s for s, a in m if a == "ring" and s >= GOAL_SIZE)
        effs = [bound(n, s) / m[(s, "ring")] for s in sizes]
        if not sizes:
            continue
        parts.append(f"{n} hosts: " + " / ".join(f"{e * 100:.1f}" for e in effs) + "% at "
                     + " / ".join(str(s // 2**20) for s in sizes) + " MiB")
        misses += [f"{n} hosts, {mib(s)}" for s, e in zip(sizes, effs) if e < GOAL_RING_EFF]
    if parts:
        met = "**met**" if not misses else "**not met** at " + ", ".join(misses)
        lines.append(f"| cclx ring ≥ 95% of the α-β bound at ≥ 4 MiB | {'; '.join(parts)} | {met} |")
    # 2./3. StragglAR against ring and native, 8 hosts, 16 MiB, D >= the reduce-scatter time
    runs = [(r, docs) for n, r, docs in data.strag_runs() if n == 8]
    for other, goal in (("ring", GOAL_VS_RING), ("native", GOAL_VS_NATIVE)):
        parts, met, missed = [], [], []
        for r, docs in runs:
            cells = []
            for d in sorted(x for x in docs if x >= RS_DELAY_MS):
                m = rows(docs[d])
                s = next(iter(m))[0]
                sp = m[(s, other)] / m[(s, "stragglar")]
                cells.append(f"{sp:.2f}x ({d})")
                (met if sp >= goal else missed).append(f"{d} ms ({r} rep.)")
            if cells:
                parts.append(f"{r} repetitions: " + ", ".join(cells))
        if other == "ring" and runs:
            ds = sorted({d for _, docs in runs for d in docs if d >= RS_DELAY_MS})
            model = []
            for d in ds:
                ring = data.sim.time("ring", 8, 16 * 2**20, straggler=7, delay=d / 1000)
                sa = data.sim.time("stragglar", 8, 16 * 2**20, straggler=7, delay=d / 1000)
                model.append(f"{ring / sa:.2f}x ({d})")
            parts.append("model: " + ", ".join(model))
        if parts:
            verdict = ("**met** at " + ", ".join(met) if met else "**not met**")
            if met and missed:
                verdict += "; **not met** at " + ", ".join(missed)
            lines.append(f"| StragglAR, 8 hosts, 16 MiB, D ≥ the reduce-scatter time "
                         f"(ms in brackets): ≥ {goal}x over {other} | {'; '.join(parts)} | {verdict} |")
    # 4. simulator within 15% from 4 MiB on
    preds = data.predictions()
    if preds:
        ratios = [p / t for _, t, p in preds]
        within = [abs(x - 1) <= GOAL_SIM for x in ratios]
        text = (f"{sum(within)} of {len(preds)} predictions within 15% "
                f"(sim / measured {min(ratios):.2f}–{max(ratios):.2f})")
        met = "**met**" if all(within) else f"**not met** for {len(preds) - sum(within)}"
        lines.append(f"| simulator within 15% of the measurement at ≥ 4 MiB | {text} | {met} |")
    return lines


def block_efficiency(data, img):
    lines = []
    files = [shown(os.path.join(data.dir, name + ".json")) for n in sorted(data.base)
             for name, _ in data.base[n]]
    lines.append("Data: " + ", ".join(f"`{f}`" for f in files) + ". Time (s), max over the ranks, "
                 "median of the repetitions, and efficiency = α-β bound / time.")
    lines.append("")
    sizes = sorted({s for n in data.base for s, _ in data.base_rows(n)})
    lines.append("| hosts | algorithm | " + " | ".join(mib(s) for s in sizes) + " |")
    lines.append("|---:|:---|" + "---:|" * len(sizes))
    for n in sorted(data.base):
        m = data.base_rows(n)
        have = {s for s, _ in m}
        lines.append(f"| {n} | *bound* | " + " | ".join(
            fmt(bound(n, s)) if s in have else "" for s in sizes) + " |")
        for a in ALGOS:
            cells = [f"{fmt(m[(s, a)])}, {pct(bound(n, s) / m[(s, a)])}" if (s, a) in m else ""
                     for s in sizes]
            lines.append(f"| {n} | {a} | " + " | ".join(cells) + " |")
    if os.path.exists(os.path.join(img[0], img[1] + "efficiency.png")):
        lines += ["", f"![allreduce efficiency against the α-β bound, 4 and 8 hosts]"
                      f"(img/{img[1]}efficiency.png)"]
    return lines


def block_simulator(data):
    lines = ["Simulated time (s) and sim / measured, for the measurements of the efficiency table:",
             ""]
    sizes = sorted({s for n in data.base for s, _ in data.base_rows(n)})
    lines.append("| hosts | algorithm | " + " | ".join(mib(s) for s in sizes) + " |")
    lines.append("|---:|:---|" + "---:|" * len(sizes))
    for n in sorted(data.base):
        m = data.base_rows(n)
        for a in SIM_ALGOS:
            cells = []
            for s in sizes:
                if (s, a) in m:
                    p = data.sim.time(a, n, s)
                    cells.append(f"{fmt(p)} ({p / m[(s, a)]:.2f})")
                else:
                    cells.append("")
            lines.append(f"| {n} | {a} | " + " | ".join(cells) + " |")
    preds = data.predictions()
    if preds:
        ratios = [p / t for _, t, p in preds]
        w15 = sum(abs(x - 1) <= GOAL_SIM for x in ratios)
        w5 = sum(abs(x - 1) <= 0.05 for x in ratios)
        lines += ["", f"Every prediction at ≥ 4 MiB (this table, the straggler and the slow-host "
                      f"tables): **{w15} of {len(preds)} within 15%**, {w5} within 5%, "
                      f"sim / measured {min(ratios):.2f}–{max(ratios):.2f}."]
        per = {}
        for (case, t, p), x in zip(preds, ratios):
            a = case.rsplit(", ", 1)[1]
            per.setdefault(a, []).append(x)
        lines.append("By algorithm: " + "; ".join(
            f"{a} {sum(abs(x - 1) <= GOAL_SIM for x in xs)} of {len(xs)} "
            f"({min(xs):.2f}–{max(xs):.2f})" for a, xs in per.items()) + ".")
        off = [(case, t, p) for case, t, p in preds if abs(p / t - 1) > GOAL_SIM]
        if off:
            lines.append("Outside 15%: " + "; ".join(
                f"{case} ({fmt(t)} s measured, {fmt(p)} predicted, {p / t:.2f})"
                for case, t, p in off) + ".")
    if data.sim_prof:
        built, prof = data.predictions(hosts=8), data.predictions(data.sim_prof, hosts=8)
        if prof:
            diff = max(abs(q / p - 1) for (_, _, p), (_, _, q) in zip(built, prof))
            w15 = sum(abs(q / t - 1) <= GOAL_SIM for _, t, q in prof)
            links = json.load(open(data.sim_prof.files[(8, None)]))["links"]
            bw = [1 / x["beta"] / 1e6 for x in links]
            al = [x["alpha"] * 1e6 for x in links]
            lines += ["", "On the topologies `cclx-topo` profiled on the 8-host testbed, uniform "
                          "and with h3 at 50 Mbit/s (" + ", ".join(
                              f"`{shown(f)}`" for f in data.sim_prof.files.values())
                      + f"; the uniform one's {len(links)} links: {min(bw):.1f}–{max(bw):.1f} MB/s, "
                        f"α {min(al):.0f}–{max(al):.0f} µs), the {len(prof)} predictions for 8 "
                        f"hosts differ from the ones on the built topology by at most "
                        f"{diff * 100:.1f}%; {w15} of {len(prof)} are within 15% of the "
                        "measurement."]
    return lines


def straggler_table(data, n, r, docs):
    d0 = next(iter(docs.values()))
    size = sorted({s for s, _ in rows(d0)})[0]
    strag = d0["straggler"]["rank"]
    lines = [f"#### {n} hosts, {mib(size)}, straggler rank {strag}, {r} repetitions", ""]
    lines.append("| delay (ms) | " + " | ".join(f"{a} (s)" for a in STRAG_ALGOS)
                 + " | StragglAR vs ring | vs native | vs rhd | sim: ring | sim: rhd "
                   "| sim: stragglar | model: vs ring |")
    lines.append("|---:|" + "---:|" * (len(STRAG_ALGOS) + 7))
    for d, doc in sorted(docs.items()):
        m = rows(doc)
        t = {a: m.get((size, a)) for a in STRAG_ALGOS}
        st = t["stragglar"]
        sp = [f"{t[a] / st:.2f}x" if t[a] and st else "—" for a in ["ring", "native", "rhd"]]
        sims = {a: data.sim.time(a, n, size, straggler=strag, delay=d / 1000)
                for a in ["ring", "rhd", "stragglar"]}
        lines.append(f"| {d} | " + " | ".join(fmt(t[a]) if t[a] else "—" for a in STRAG_ALGOS)
                     + " | " + " | ".join(sp) + " | "
                     + " | ".join(fmt(sims[a]) for a in ["ring", "rhd", "stragglar"])
                     + f" | {sims['ring'] / sims['stragglar']:.2f}x |")
    return lines


def block_straggler(data, img):
    runs = data.strag_runs()
    dirs = sorted({shown(d) for (n, r, d) in data.strag})
    lines = ["Data: " + ", ".join(f"`{d}/strag-*.json`" for d in dirs) + ". Time from the "
             "non-stragglers' own start of the call to completion (max over them, median of the "
             "repetitions); speedups are the other algorithm's time ÷ StragglAR's; `sim:` is "
             "cclx-sim with the straggler starting D late, `model: vs ring` their ratio."]
    for n, r, docs in runs:
        lines += [""] + straggler_table(data, n, r, docs)
    for n, r, docs in runs:
        if r <= 3:
            continue
        for d, doc in sorted(docs.items()):
            rp = reps(doc)
            size = sorted({s for s, _ in rp})[0]
            xs = rp.get((size, "stragglar"))
            if xs:
                lines += ["", f"StragglAR's {r} repetitions at {n} hosts, D = {d} ms: "
                              + ", ".join(fmt(x) for x in xs) + " s."]
    if os.path.exists(os.path.join(img[0], img[1] + "straggler.png")):
        lines += ["", f"![allreduce with a persistent straggler, 4 and 8 hosts]"
                      f"(img/{img[1]}straggler.png)"]
    return lines


def block_slow(data):
    lines = []
    for n in (8, 4):
        doc = data.slow.get(n)
        if doc is None:
            continue
        h = SLOW_HOST[n]
        m, b = rows(doc), data.base_rows(n)
        size = sorted({s for s, _ in m})[0]
        if lines:
            lines.append("")
        lines += [f"#### {n} hosts, {mib(size)}, h{h} at 50 Mbit/s, the others at 200 Mbit/s", "",
                  f"Data: `{shown(os.path.join(data.dir, f'slow-{n}.json'))}`; the first column "
                  f"is the {mib(size)} column of the efficiency table.", ""]
        lines.append(f"| algorithm | all 200 Mbit/s (s) | h{h} at 50 Mbit/s (s) | slowdown "
                     "| simulated (s) | sim / measured |")
        lines.append("|:---|---:|---:|---:|---:|---:|")
        for a in ALGOS:
            if (size, a) not in m:
                continue
            t, t0 = m[(size, a)], b.get((size, a))
            if a in SIM_ALGOS:
                p = data.sim.time(a, n, size, slow=h)
                sp, sr = fmt(p), f"{p / t:.2f}"
            else:
                sp, sr = "—", "—"
            lines.append(f"| {a} | {fmt(t0) if t0 else '—'} | {fmt(t)} | "
                         f"{f'{t / t0:.2f}x' if t0 else '—'} | {sp} | {sr} |")
    return lines


def block_ablation(data):
    size = 16 * 2**20
    b = bound(8, size)
    cells = [(ssai, sb, hs, rows(doc), f"`ablate-8-ssai{ssai}-hs{hs}"
              f"{'' if sb == 'auto' else '-sb' + sb}.json`")
             for ssai, hs, sb, doc in data.ablate]
    order = {"on": 0, "off": 1}
    cells.sort(key=lambda c: (order.get(c[0], 2), c[1], c[2] != "0"))
    # The same job with the testbed's defaults, from the other phases (separate jobs).
    for name in ("base-8", "strag-8-d0"):
        doc = load(os.path.join(data.dir, name + ".json"))
        if doc:
            cells.append(("off", "65536", "256K", rows(doc), f"`{name}.json`"))
    if not data.ablate:
        return []
    lines = [f"Data: `{shown(data.dir)}/`, the files in the last column. Time, max over the ranks, "
             "median of the repetitions, and efficiency against the bound.", ""]
    lines.append("| slow start after idle | UCX_TCP_SNDBUF | handshake | "
                 + " | ".join(STRAG_ALGOS) + " | file |")
    lines.append("|:---|:---|:---|" + "---:|" * len(STRAG_ALGOS) + ":---|")
    for ssai, sb, hs, m, name in cells:
        cols = [f"{fmt(m[(size, x)])} s, {b / m[(size, x)] * 100:.0f}%" if (size, x) in m else "—"
                for x in STRAG_ALGOS]
        lines.append(f"| {ssai} | {sb} | {'off' if hs == '0' else '≥ ' + hs} | "
                     + " | ".join(cols) + f" | {name} |")
    return lines


def block_mid(data):
    if not data.mid:
        return []
    entries = sorted((e for e in data.mid["entries"] if e["collective"] == "allreduce"),
                     key=lambda e: e["bytes"])
    if not entries:
        return []
    n = entries[0]["nranks"]
    lines = [f"Data: `{shown(data.mid_path)}` ({n} hosts, median of "
             f"{len(entries[0]['reps_us']['ring'])} repetitions; spread = slowest ÷ fastest "
             f"repetition − 1). Simulated: `cclx-sim --topology {shown(MID_TOPOLOGY)} "
             f"--algo ring,rhd --bytes SIZE --gamma {MID_GAMMA}`.", ""]
    lines.append("| size | native (ms) | ring (ms) | RHD (ms) | RHD spread | RHD ÷ ring "
                 "| sim: ring (ms) | sim: RHD (ms) |")
    lines.append("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for e in entries:
        t, rp = e["times_us"], e["reps_us"]
        out = data.sim.run(["--topology", MID_TOPOLOGY, "--algo", "ring,rhd", "--bytes",
                            str(e["bytes"]), "--gamma", str(MID_GAMMA), "--no-critical-path",
                            "--json"])
        sim = {r["algorithm"]: r["time_s"] for r in out}
        spread = max(rp["rhd"]) / min(rp["rhd"]) - 1
        lines.append(f"| {mib(e['bytes'])} | {t['native'] / 1e3:.2f} | {t['ring'] / 1e3:.2f} | "
                     f"{t['rhd'] / 1e3:.2f} | {spread * 100:.0f}% | {t['rhd'] / t['ring']:.2f} | "
                     f"{sim['ring'] * 1e3:.2f} | {sim['rhd'] * 1e3:.2f} |")
    return lines


def blocks(data, img):
    return {
        "testbed-goals": block_goals(data),
        "testbed-efficiency": block_efficiency(data, img),
        "testbed-simulator": block_simulator(data),
        "testbed-straggler": block_straggler(data, img),
        "testbed-slow-host": block_slow(data),
        "testbed-ablation": block_ablation(data),
        "testbed-mid-sizes": block_mid(data),
    }


# ---- plots -------------------------------------------------------------------------------------

def plot_base(data, path):
    plt = pyplot()
    ns = sorted(data.base)
    fig, axes = plt.subplots(1, len(ns), figsize=(5.5 * len(ns), 4), squeeze=False)
    for ax, n in zip(axes[0], ns):
        m = data.base_rows(n)
        sizes = sorted({s for s, _ in m})
        for a in ALGOS:
            xs = [s / 2**20 for s in sizes if (s, a) in m]
            ys = [bound(n, s) / m[(s, a)] * 100 for s in sizes if (s, a) in m]
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
    plt.close(fig)


def plot_straggler(data, path):
    plt = pyplot()
    sweeps = [(n, r, docs) for n, r, docs in data.strag_runs() if r <= 3]
    more = {n: (r, docs) for n, r, docs in data.strag_runs() if r > 3}
    fig, axes = plt.subplots(1, len(sweeps), figsize=(5.5 * len(sweeps), 4), squeeze=False)
    for ax, (n, r, docs) in zip(axes[0], sweeps):
        ds = sorted(docs)
        for a in STRAG_ALGOS:
            ys = []
            for d in ds:
                m = rows(docs[d])
                ys.append(m.get((sorted({s for s, _ in m})[0], a), float("nan")))
            line, = ax.plot(ds, ys, marker="o", label=f"{a} ({r} rep.)")
            if n in more:
                r9, docs9 = more[n]
                d9 = sorted(docs9)
                y9 = [rows(docs9[d]).get((16 * 2**20, a), float("nan")) for d in d9]
                ax.plot(d9, y9, ls="none", marker="s", mfc="none", color=line.get_color(),
                        label=f"{a} ({r9} rep.)")
        strag = next(iter(docs.values()))["straggler"]["rank"]
        ax.plot(ds, [data.sim.time("stragglar", n, 16 * 2**20, straggler=strag, delay=d / 1000)
                     for d in ds], ls=":", color="black", lw=1, label="stragglar, simulated")
        ax.set_xlabel("straggler delay D (ms)")
        ax.set_ylabel("time from non-stragglers' start (s)")
        ax.set_title(f"{n} hosts, 16 MiB, persistent straggler")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


# ---- the page ----------------------------------------------------------------------------------

def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=os.path.join(DATA, "campaign"),
                    help="run.sh's output directory (base, straggler, slow-host and ablation "
                         "phases)")
    ap.add_argument("--repeat-data", default=os.path.join(DATA, "strag8-repeat9"),
                    help="run.sh's output of the straggler phase with more repetitions")
    ap.add_argument("--mid", default=os.path.join(RESULTS, "auto-testbed", "tune-8hosts-mid.json"),
                    help="cclx-bench --tune-out table of 64 KiB - 1 MiB (the mid-sizes block)")
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    ap.add_argument("--alpha", type=float, default=150e-6)
    ap.add_argument("--profiled", help="directory with cclx-topo's topo4.json, topo8.json (uniform) "
                    "and topo4-slow1.json, topo8-slow3.json (slow host): simulate on the profiled "
                    "topologies instead of the built ones")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "results-testbed.md"))
    ap.add_argument("--img", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--img-prefix", default="testbed_", help="PNG names: PREFIXefficiency.png, ...")
    ap.add_argument("--no-plots", action="store_true", help="tables only (no matplotlib needed)")
    ap.add_argument("--stdout", action="store_true",
                    help="print the blocks instead of writing them into --doc")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; fail when a generated block of --doc differs from what "
                         "the data gives")
    a = ap.parse_args()
    sim = Sim(a.sim, a.alpha, a.profiled)
    prof = (Sim(a.sim, a.alpha, files=PROFILED8)
            if all(os.path.exists(f) for f in PROFILED8.values()) else None)
    data = Data(a.data, a.repeat_data, a.mid, sim, prof)
    img = (a.img, a.img_prefix)
    if a.check:
        out = {name: "\n".join(body) for name, body in blocks(data, img).items() if body}
        return generated.update(a.doc, out, True, f"{shown(a.data)} and {shown(a.repeat_data)}",
                                "benchmarks/results/scripts/plot_testbed.py --sim PATH")
    if not a.no_plots:
        os.makedirs(a.img, exist_ok=True)
        if data.base:
            plot_base(data, os.path.join(a.img, a.img_prefix + "efficiency.png"))
        if data.strag:
            plot_straggler(data, os.path.join(a.img, a.img_prefix + "straggler.png"))
    out = blocks(data, img)
    if a.stdout:
        for name, body in out.items():
            if body:
                print(f"\n### {name}\n")
                print("\n".join(body))
        return 0
    return generated.update(a.doc, {name: "\n".join(body) for name, body in out.items() if body},
                            False, shown(a.data), "")


if __name__ == "__main__":
    sys.exit(main())
