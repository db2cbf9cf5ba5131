#!/usr/bin/env python3
"""Summarizes the 2-rank every-collective sweep of algo::Auto with a measured tuning table
(docs/tuning-results.md, "Auto with a measured table"): per collective, auto's time against native's and
against the fastest fixed candidate of the same run, their geometric means over sizes, the sizes
below 0.97x, a totals line, each point below 0.97x native (auto's and native's times with their
spreads), and a PNG of the ratios.

usage: auto_sweep.py SWEEP_DIR[,SWEEP_DIR...] [PNG]
  SWEEP_DIR holds cclx-bench --json files, one per collective. Several directories (separate
  launches of the same sweep) are pooled: each (collective, size, algorithm)'s repetitions of
  every launch, their median and spread (slowest - fastest) / median, as one launch's would be.
"""
import glob
import json
import math
import os
import sys

EXCLUDED = {"auto", "straggler_aware", "bruck_proto", "stragglar"}  # not fixed Auto candidates


def median(v):
    v = sorted(v)
    n = len(v)
    return v[n // 2] if n % 2 else 0.5 * (v[n // 2 - 1] + v[n // 2])


def load(dirs):
    """{collective: {size: {algorithm: [repetitions' max latency, us]}}}, pooled over dirs."""
    pooled = {}
    for d in dirs:
        for path in sorted(glob.glob(os.path.join(d, "*.json"))):
            j = json.load(open(path))
            c = pooled.setdefault(j["collective"], {})
            for r in j["results"]:
                reps = r.get("repetitions_max_latency_us") or [r["max_latency_us"]]
                c.setdefault(r["size"], {}).setdefault(r["algorithm"], []).extend(reps)
    return pooled


def main():
    dirs = sys.argv[1].split(",")
    png = sys.argv[2] if len(sys.argv) > 2 else None
    series = {}
    low_points, total, all_native, all_best = [], 0, [], []
    print("| collective | sizes | auto vs native: geomean | min (at) | sizes < 0.97 | "
          "auto vs best fixed: geomean | min (at) | sizes < 0.97 |")
    print("|---|---|---|---|---|---|---|---|")
    for coll, runs in sorted(load(dirs).items()):
        j = {"collective": coll}
        by_size, spread = {}, {}
        for size, algos in runs.items():
            for a, reps in algos.items():
                m = median(reps)
                by_size.setdefault(size, {})[a] = m
                spread[(size, a)] = 100 * (max(reps) - min(reps)) / m
        vs_native, vs_best, sizes = [], [], []
        for size, t in sorted(by_size.items()):
            if "auto" not in t:
                continue
            fixed = [v for k, v in t.items() if k not in EXCLUDED]
            sizes.append(size)
            vs_native.append(t["native"] / t["auto"])
            vs_best.append(min(fixed) / t["auto"])
            if vs_native[-1] < 0.97:
                low_points.append(
                    f"{j['collective']} {size} B: auto {t['auto']:.3f} us "
                    f"(spread {spread[(size, 'auto')]:.0f}%), native {t['native']:.3f} us "
                    f"(spread {spread[(size, 'native')]:.0f}%): {vs_native[-1]:.3f}")
        total += len(sizes)
        all_native += vs_native
        all_best += vs_best
        if not sizes:
            continue
        series[j["collective"]] = (sizes, vs_native)

        def summary(r):
            g = math.exp(sum(math.log(x) for x in r) / len(r))
            i = min(range(len(r)), key=r.__getitem__)
            low = [s for s, x in zip(sizes, r) if x < 0.97]
            return f"{g:.3f} | {r[i]:.3f} ({sizes[i]}) | {len(low)}"

        print(f"| {j['collective']} | {len(sizes)} | {summary(vs_native)} | {summary(vs_best)} |")
    if total:
        def g(r):
            return math.exp(sum(math.log(x) for x in r) / len(r))
        print(f"\nall {total} points: auto vs native geomean {g(all_native):.3f}, "
              f"{sum(x < 0.97 for x in all_native)} below 0.97; auto vs best fixed geomean "
              f"{g(all_best):.3f}, {sum(x < 0.97 for x in all_best)} below 0.97")
    for line in low_points:
        print("  below 0.97x native: " + line)
    if png:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        fig, ax = plt.subplots(figsize=(9, 5))
        for name, (sizes, r) in series.items():
            ax.plot(sizes, r, marker=".", label=name)
        ax.axhline(0.97, color="gray", linestyle="--", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log", base=2)
        ax.set_xlabel("bytes (whole partition)")
        ax.set_ylabel("native time / auto time (>1: auto faster)")
        ax.set_title("algo::Auto with a measured tuning table vs native, 2 ranks (MPICH, shared memory)")
        ax.legend(fontsize=7, ncol=3)
        fig.tight_layout()
        fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
