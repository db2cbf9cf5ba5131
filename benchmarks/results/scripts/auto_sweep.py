#!/usr/bin/env python3
"""Summarizes the 2-rank every-collective sweep of algo::Auto with a measured tuning table
(docs/tuning-results.md, "Auto with a measured table"): per collective, auto's time against native's and
against the fastest fixed candidate of the same run, their geometric means over sizes, the sizes
below 0.97x, a totals line, each point below 0.97x native (auto's and native's times with their
spreads), and a PNG of the ratios.

usage: auto_sweep.py SWEEP_DIR[,SWEEP_DIR...] [PNG]
       auto_sweep.py --paired SWEEP_DIR[,SWEEP_DIR...] [PNG]
       auto_sweep.py --write [--doc PAGE] [--results DIR]
       auto_sweep.py --check [--doc PAGE] [--results DIR]
  SWEEP_DIR holds cclx-bench --json files, one per collective. Several directories (separate
  launches of the same sweep) are pooled: each (collective, size, algorithm)'s repetitions of
  every launch, their median and spread (slowest - fastest) / median, as one launch's would be.
  --paired prints, per collective and size, auto against every other algorithm of the run, native
  included, round by round: cclx-bench times the algorithms of a repetition in one interleaved
  round, so repetition r of auto and of a candidate share the machine's state; the ratio of a
  candidate is the median over rounds of (candidate's time / auto's time): against the candidate
  with the lowest median time (with the interquartile range of its per-round ratios), and the
  lowest ratio against any candidate (the strictest reading: with many candidates one of them
  wins by chance).
  --write puts the page's tables, made from the sweeps stored under --results
  (benchmarks/results/auto-tuning/: TOTALS and ALLTOALLV below), into --doc (docs/tuning-results.md)
  between `<!-- BEGIN GENERATED: NAME -->` / `<!-- END GENERATED: NAME -->` markers (NAME:
  auto-sweep-totals, auto-sweep-alltoallv); --check writes nothing and fails (exit 1, naming the
  blocks) when a block differs from what the stored sweeps give. Neither needs matplotlib.
"""
import argparse
import glob
import json
import math
import os
import re
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
RESULTS = os.path.join(ROOT, "benchmarks", "results", "auto-tuning")
EXCLUDED = {"auto", "straggler_aware", "bruck_proto", "stragglar"}  # not fixed Auto candidates
LOW = 0.97
HEADER = ["| collective | sizes | auto vs native: geomean | min (at) | sizes < 0.97 | "
          "auto vs best fixed: geomean | min (at) | sizes < 0.97 |",
          "|---|---|---|---|---|---|---|---|"]
# The page's blocks, from the sweeps under RESULTS: each sweep's totals line, and alltoallv's row
# of two sweeps.
TOTALS = [("quiet machine (`sweep-2ranks-margin/`)", ["sweep-2ranks-margin"]),
          ("noisier machine, 3 launches pooled (`sweep-2ranks-pooled/`)",
           [f"sweep-2ranks-pooled/launch{i}" for i in (1, 2, 3)])]
ALLTOALLV = [("alltoallv served native (margin sweep)", ["sweep-2ranks-margin"]),
             ("alltoallv one choice for every size", ["sweep-2ranks-a2av"])]


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def geomean(r):
    return math.exp(sum(math.log(x) for x in r) / len(r))


def load(dirs):
    """{collective: {size: {algorithm: [repetitions' max latency, us]}}}, pooled over dirs."""
    pooled = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.json"))):
            j = json.load(open(path))
            if j.get("benchmark") != "cclx-bench":
                continue  # e.g. the tuning table beside the runs
            c = pooled.setdefault(j["collective"], {})
            for r in j["results"]:
                reps = r.get("repetitions_max_latency_us") or [r["max_latency_us"]]
                c.setdefault(r["size"], {}).setdefault(r["algorithm"], []).extend(reps)
    return pooled


def analyze(dirs):
    """{collective: (sizes, auto vs native, auto vs best fixed, lines of the points below 0.97x
    native)}, collectives in name order."""
    out = {}
    for coll, runs in sorted(load(dirs).items()):
        by_size, spread = {}, {}
        for size, algos in runs.items():
            for a, reps in algos.items():
                m = median(reps)
                by_size.setdefault(size, {})[a] = m
                spread[(size, a)] = 100 * (max(reps) - min(reps)) / m
        vs_native, vs_best, sizes, low = [], [], [], []
        for size, t in sorted(by_size.items()):
            if "auto" not in t:
                continue
            fixed = [v for k, v in t.items() if k not in EXCLUDED]
            sizes.append(size)
            vs_native.append(t["native"] / t["auto"])
            vs_best.append(min(fixed) / t["auto"])
            if vs_native[-1] < LOW:
                low.append(
                    f"{coll} {size} B: auto {t['auto']:.3f} us "
                    f"(spread {spread[(size, 'auto')]:.0f}%), native {t['native']:.3f} us "
                    f"(spread {spread[(size, 'native')]:.0f}%): {vs_native[-1]:.3f}")
        out[coll] = (sizes, vs_native, vs_best, low)
    return out


def quantile(v, q):
    v = sorted(v)
    x = q * (len(v) - 1)
    i = int(x)
    return v[i] if i + 1 >= len(v) else v[i] + (x - i) * (v[i + 1] - v[i])


def choices(dirs):
    """{(collective, size): the algorithm auto ran}, from a `choices.txt` beside the runs (lines
    of `cclx-tune explain`: "allreduce 64K: binomial_tree from tuning table: ..."), else {}."""
    out = {}
    for d in dirs:
        path = os.path.join(d, "choices.txt")
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"(\w+) (\d+)([KMG]?): (\S+) ", line)
            if m:
                size = int(m[2]) << {"": 0, "K": 10, "M": 20, "G": 30}[m[3]]
                out[(m[1], size)] = m[4]
    return out


def paired(dirs):
    """Markdown tables of auto's paired per-round ratios (see --paired), one per collective, and
    a summary line each: the sizes below 0.97; and {collective: (sizes, ratios to the fastest)}.
    With a choices.txt (choices()), two more columns: the algorithm auto ran, and auto against
    it, paired: the same schedule in the same rounds, so its distance from 1 is the rounds' noise
    (and auto's own cost per call)."""
    lines, series = [], {}
    ran = choices(dirs)
    for coll, runs in sorted(load(dirs).items()):
        extra = ran and any(c == coll for c, _ in ran)
        lines += [f"\n{coll}:\n",
                  "| size | fastest candidate (median) | auto vs it, paired | rounds: q25–q75 | "
                  "lowest paired ratio | against |" +
                  (" auto ran | auto vs what it ran, paired |" if extra else ""),
                  "|---:|---|---:|---:|---:|---|" + ("---|---:|" if extra else "")]
        low, strict, same = [], [], []
        for size, algos in sorted(runs.items()):
            if "auto" not in algos:
                continue
            auto = algos["auto"]
            per_round = {}
            for a, reps in algos.items():
                if a in EXCLUDED or len(reps) != len(auto):
                    continue
                per_round[a] = [c / t for c, t in zip(reps, auto)]
            fastest = min(per_round, key=lambda a: median(algos[a]))
            worst = min(per_round, key=lambda a: median(per_round[a]))
            r = per_round[fastest]
            series.setdefault(coll, ([], []))
            series[coll][0].append(size)
            series[coll][1].append(median(r))
            if median(r) < LOW:
                low.append(size)
            if median(per_round[worst]) < LOW:
                strict.append(size)
            row = (f"| {size} | {fastest} | {median(r):.3f} | {quantile(r, 0.25):.2f}–"
                   f"{quantile(r, 0.75):.2f} | {median(per_round[worst]):.3f} | {worst} |")
            if extra:
                chosen = ran.get((coll, size), "?")
                own = median(per_round[chosen]) if chosen in per_round else None
                row += f" {chosen} | {'' if own is None else f'{own:.3f}'} |"
                if median(r) < LOW and chosen == fastest:
                    same.append(size)
            lines.append(row)
        lines.append(f"\n{coll}: auto vs the fastest candidate below {LOW} at {len(low)} sizes" +
                     (f" ({', '.join(map(str, low))})" if low else "") +
                     f"; vs some candidate at {len(strict)}" +
                     (f" ({', '.join(map(str, strict))})" if strict else "") +
                     (f"; of the {len(low)}, auto ran the fastest candidate itself at "
                      f"{len(same)}" + (f" ({', '.join(map(str, same))})" if same else "")
                      if extra else ""))
    return "\n".join(lines), series


def row(label, sizes, vs_native, vs_best):
    def summary(r):
        i = min(range(len(r)), key=r.__getitem__)
        low = [s for s, x in zip(sizes, r) if x < LOW]
        return f"{geomean(r):.3f} | {r[i]:.3f} ({sizes[i]}) | {len(low)}"
    return f"| {label} | {len(sizes)} | {summary(vs_native)} | {summary(vs_best)} |"


def totals(res):
    """(points, auto vs native, auto vs best fixed) over every collective."""
    nat = [x for s, n, b, _ in res.values() for x in n]
    best = [x for s, n, b, _ in res.values() for x in b]
    return len(nat), nat, best


def blocks(results):
    out = {}
    lines = ["| sweep | points | auto vs native: geomean | below 0.97× native | "
             "auto vs best fixed: geomean | below 0.97× best |",
             "|---|---:|---:|---:|---:|---:|"]
    for label, dirs in TOTALS:
        n, nat, best = totals(analyze([os.path.join(results, d) for d in dirs]))
        lines.append(f"| {label} | {n} | {geomean(nat):.3f} | {sum(x < LOW for x in nat)} | "
                     f"{geomean(best):.3f} | {sum(x < LOW for x in best)} |")
    out["auto-sweep-totals"] = lines
    lines = list(HEADER)
    for label, dirs in ALLTOALLV:
        sizes, nat, best, _ = analyze([os.path.join(results, d) for d in dirs])["alltoallv"]
        lines.append(row(label, sizes, nat, best))
    out["auto-sweep-alltoallv"] = lines
    return out


def plot(series, png,
         title="algo::Auto with a measured tuning table vs native, 2 ranks (MPICH, shared memory)",
         ylabel="native time / auto time (>1: auto faster)", log_ratio=True):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(9, 5))
    for name, (sizes, r) in series.items():
        ax.plot(sizes, r, marker=".", label=name)
    ax.axhline(LOW, color="gray", linestyle="--", linewidth=1)
    ax.set_xscale("log", base=2)
    if log_ratio:
        ax.set_yscale("log", base=2)
    else:
        ax.grid(axis="y", linewidth=0.3)
    ax.set_xlabel("bytes (whole partition)")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    ax.legend(fontsize=7, ncol=3)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("sweeps", nargs="?", help="SWEEP_DIR[,SWEEP_DIR...]: print the summary")
    ap.add_argument("png", nargs="?", help="and plot the ratios into this PNG")
    ap.add_argument("--paired", action="store_true",
                    help="print auto's paired per-round ratios to every candidate instead")
    ap.add_argument("--results", default=RESULTS, help="the stored sweeps of the page's tables")
    generated.add_options(ap, os.path.join(ROOT, "docs", "tuning-results.md"),
                          "write the page's tables into --doc from --results", "a generated block",
                          "--results")
    a = ap.parse_args()
    if a.check or a.write:
        out = {name: "\n".join(body) for name, body in blocks(a.results).items()}
        return generated.update(a.doc, out, a.check, a.results,
                                "benchmarks/results/scripts/auto_sweep.py --write")
    if not a.sweeps:
        ap.error("SWEEP_DIR is required (or --write / --check)")
    if a.paired:
        text, series = paired(a.sweeps.split(","))
        print(text)
        if a.png:
            plot(series, a.png, title="algo::Auto with a measured tuning table vs the fastest "
                 "candidate of the run, paired per round",
                 ylabel="fastest candidate's time / auto's (median over rounds)", log_ratio=False)
        return 0
    res = analyze(a.sweeps.split(","))
    print("\n".join(HEADER))
    series = {}
    for coll, (sizes, vs_native, vs_best, _) in res.items():
        if sizes:
            series[coll] = (sizes, vs_native)
            print(row(coll, sizes, vs_native, vs_best))
    n, nat, best = totals(res)
    if n:
        print(f"\nall {n} points: auto vs native geomean {geomean(nat):.3f}, "
              f"{sum(x < LOW for x in nat)} below 0.97; auto vs best fixed geomean "
              f"{geomean(best):.3f}, {sum(x < LOW for x in best)} below 0.97")
    for _, _, _, low in res.values():
        for line in low:
            print("  below 0.97x native: " + line)
    if a.png:
        plot(series, a.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
