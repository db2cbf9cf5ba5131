#!/usr/bin/python3
"""The simulator's prediction next to each testbed measurement of a `measure.sh hierarchical` log.

Reads the cclx-bench tables of the log (one per collective and testbed shape), predicts every
measured schedule with cclx-sim on the two-level machine the testbed emulates, and prints, per
table, measured and predicted Max Latency and their ratio, then how many points lie within 20%.

The machine: hosts of K ranks (the log's --ranks-per-host, placed as its --placement says), one
link per host at the rate the
testbed achieves (--inter-bw, default 95.6% of 200 Mbit/s, docs/testbed.md), shared memory inside
a host (--bw). The latencies are fitted, not assumed: the simulator's time is linear in its two
alphas for small messages, so a least-squares fit of the relative error over the sizes up to
--fit-max bytes gives a constant per call (the testbed's blocked ranks wake through the kernel),
alpha inside a host and alpha between hosts; every larger size is a prediction.
native (MPI's own collective) and auto (whatever it chose) are not schedules the simulator knows
and are left out.

LOG may also be a directory of `cclx-bench --json` files (e.g. `measure.sh hierarchical-tuned`
with TUNED_JSON): one table per collective, its files' sizes together, on hosts of
--ranks-per-host ranks.

Usage: testbed_sim_compare.py LOG|DIR [--sim build/tools/cclx-sim] [--fit-max 256]
       [--ranks-per-host K] [--max-ranks N] [--heading TEXT] [--misses] [--check FILE] [--plot PNG]
(--check: compare with FILE, the stored output, instead of printing; exit 1 when they differ)
"""

import argparse
import contextlib
import glob
import io
import json
import math
import os
import re
import subprocess
import sys

import numpy as np

SKIP = {"native", "auto"}
# cclx-bench times back-to-back calls: a rooted collective's calls overlap, so its small-message
# times are not one call's latency; the fit leaves them out.
ROOTED = {"bcast", "reduce"}


def parse_log(path, heading=None):
    """Tables: dicts with collective, n, k (ranks per host), placement ("block" or "cyclic"), nics
    (per host), rows {(size, algo): max_us}; with
    `heading`, only the tables under a `### ` line (measure.sh's section titles) that contains it."""
    tables, cur, k, placement, nics = [], None, 1, "block", 1
    wanted = heading is None
    with open(path) as f:
        for line in f:
            if line.startswith("### "):
                wanted = heading is None or heading in line
                cur = None
                m = re.search(r"(\d+) NIC", line)
                nics = int(m.group(1)) if m else 1
                continue
            if not wanted:
                continue
            m = re.search(r"--ranks-per-host (\d+)", line)
            if line.startswith("$ ") and m:
                k = int(m.group(1))
                p = re.search(r"--placement (\w+)", line)
                placement = p.group(1) if p else "block"
            m = re.match(r"# Command: cclx-bench (\w+)", line)
            if m:
                cur = {"collective": m.group(1), "k": k, "placement": placement, "nics": nics,
                       "n": None, "rows": {}}
                tables.append(cur)
                continue
            m = re.match(r"# Ranks: (\d+)", line)
            if m and cur is not None:
                cur["n"] = int(m.group(1))
                continue
            parts = line.split()
            if cur is not None and len(parts) >= 6 and parts[0].isdigit():
                try:
                    cur["rows"][(int(parts[0]), parts[5])] = float(parts[3])
                except ValueError:
                    pass
    return [t for t in tables if t["rows"]]


def parse_json_dir(path, k):
    """The tables of parse_log from a directory of cclx-bench --json files."""
    tables = {}
    for f in sorted(glob.glob(os.path.join(path, "*.json"))):
        with open(f) as fh:
            j = json.load(fh)
        if j.get("benchmark") != "cclx-bench":
            continue  # e.g. a tuning table beside the runs
        t = tables.setdefault(j["collective"],
                              {"collective": j["collective"], "k": k, "placement": "block",
                               "nics": 1, "n": j["ranks"], "rows": {}})
        for r in j["results"]:
            t["rows"][(r["size"], r["algorithm"])] = r["max_latency_us"]
    return [t for t in tables.values() if t["rows"]]


def simulate(sim, table, algos, size, alpha_l, alpha_g, bw_l, bw_g):
    """Predicted seconds of each algorithm in `algos` for one size."""
    cmd = [sim, "--algo", ",".join(algos), "--n", str(table["n"]), "--bytes", str(size),
           "--collective", table["collective"], "--elem-size", "4",
           "--ranks-per-host", str(table["k"]), "--placement", table["placement"],
           "--alpha", repr(alpha_l), "--bw", repr(bw_l),
           "--inter-alpha", repr(alpha_g), "--inter-bw", repr(bw_g)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    unit = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9}
    got = {}
    for m in re.finditer(r"^(\S+)\s+n=\d+\s+rounds=\d+\s+time=([\d.e+-]+) (\w+)", out, re.M):
        got[m.group(1)] = float(m.group(2)) * unit[m.group(3)]
    return got


def fit_latencies(sim, tables, fit_max, bw_l, bw_g):
    """Per-call constant c and the two alphas, by least squares of the relative error over the
    points up to fit_max bytes: the simulated time is base + x*alpha_l + y*alpha_g there, plus c."""
    a_rows, r_rows = [], []
    for t in tables:
        if t["collective"] in ROOTED:
            continue
        algos = sorted({a for (_, a) in t["rows"] if a not in SKIP})
        for size in sorted({s for (s, _) in t["rows"] if s <= fit_max}):
            base = simulate(sim, t, algos, size, 0.0, 0.0, bw_l, bw_g)
            unit_l = simulate(sim, t, algos, size, 1e-6, 0.0, bw_l, bw_g)
            unit_g = simulate(sim, t, algos, size, 0.0, 1e-6, bw_l, bw_g)
            for a in algos:
                if (size, a) in t["rows"]:
                    meas = t["rows"][(size, a)]  # microseconds
                    a_rows.append([1.0 / meas, (unit_l[a] - base[a]) * 1e6 / meas,
                                   (unit_g[a] - base[a]) * 1e6 / meas])
                    r_rows.append(1.0 - base[a] * 1e6 / meas)
    x, *_ = np.linalg.lstsq(np.array(a_rows), np.array(r_rows), rcond=None)
    c_us, l_us, g_us = (max(float(v), 0.0) for v in x)
    return c_us, l_us * 1e-6, g_us * 1e-6, len(r_rows)


def size_label(b):
    for unit, f in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= f and b % f == 0:
            return f"{b // f} {unit}"
    return f"{b} B"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("log")
    ap.add_argument("--sim", default="build/tools/cclx-sim")
    ap.add_argument("--fit-max", type=int, default=256, help="largest size the fit uses (bytes)")
    ap.add_argument("--inter-bw", type=float, default=0.956 * 200e6 / 8, help="bytes/s per host link")
    ap.add_argument("--bw", type=float, default=5e9, help="bytes/s inside a host")
    ap.add_argument("--sizes", default="8,1024,65536,262144,1048576,4194304",
                    help="sizes shown in the tables (all sizes count in the summary)")
    ap.add_argument("--ranks-per-host", type=int, default=2,
                    help="ranks per host of a directory's JSON runs (a log names its own)")
    ap.add_argument("--max-ranks", type=int, default=4,
                    help="the tables of at most this many ranks (default: 2 hosts x 2 ranks)")
    ap.add_argument("--heading", help="a log's tables under the `### ` lines containing this only")
    ap.add_argument("--misses", action="store_true",
                    help="after the summary, each size's points outside 20%% (measured/predicted)")
    ap.add_argument("--check", help="compare with this stored output instead of printing")
    ap.add_argument("--plot", metavar="PNG",
                    help="also draw each table's measured times against native's (needs matplotlib)")
    args = ap.parse_args()
    if args.plot:
        plot(args)
    if args.check:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            report(args)
        with open(args.check) as f:
            stored = f.read()
        if out.getvalue() != stored:
            sys.exit(f"{args.check} differs from what {__file__} prints now:\n" + out.getvalue())
        print(f"{args.check}: as cclx-sim predicts it")
        return
    report(args)


def load_tables(args):
    """The tables of LOG (a log, or a directory of cclx-bench --json files)."""
    if os.path.isdir(args.log):
        return parse_json_dir(args.log, args.ranks_per_host)
    return parse_log(args.log, args.heading)


def plot(args):
    """One panel per table: native's time over each algorithm's, measured, against the size;
    the node-aware policies in colour, the flat algorithms grey, Auto black."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    tables = [t for t in load_tables(args) if "native" in {a for _, a in t["rows"]}]
    if not tables:
        sys.exit("nothing to plot: no table with native in " + args.log)
    ncols = min(4, len(tables))
    nrows = (len(tables) + ncols - 1) // ncols
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols, 4.2 * nrows), squeeze=False)
    for ax in axes.flat[len(tables):]:
        ax.set_visible(False)
    for ax, t in zip(axes.flat, tables):
        sizes = sorted({s for (s, _) in t["rows"]})
        for a in dict.fromkeys(a for (_, a) in t["rows"]):
            if a == "native":
                continue
            xs = [s for s in sizes if (s, a) in t["rows"] and (s, "native") in t["rows"]]
            ys = [t["rows"][(s, "native")] / t["rows"][(s, a)] for s in xs]
            node_aware = a.startswith(("multilane", "leader"))
            style = ({"color": "black", "linewidth": 2.2, "zorder": 3} if a == "auto" else
                     {"linewidth": 1.4} if node_aware else
                     {"color": "0.6", "linewidth": 0.9, "linestyle": "--"})
            ax.plot(xs, ys, marker=".", label=a, **style)
        ax.axhline(1.0, color="0.3", linewidth=0.8)
        ax.set_xscale("log", base=2)
        title = f"{t['collective']}, {t['n'] // t['k']} hosts x {t['k']} ranks"
        if t["placement"] == "cyclic":
            title += ", cyclic"
        if t["nics"] > 1:
            title += f", {t['nics']} NICs"
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("bytes")
        ax.grid(alpha=0.3)
        ax.legend(fontsize=6)
    for row in axes:
        row[0].set_ylabel("native's time / the algorithm's (above 1: faster)")
    fig.tight_layout()
    fig.savefig(args.plot, dpi=110)


def report(args):
    # Hosts of several NICs: the testbed carries a pair of ranks on the rail of the one connected
    # to, the simulator on each rank's own; their predictions would compare unlike machines.
    tables = [t for t in load_tables(args) if t["k"] > 1 and t["n"] and t["n"] <= args.max_ranks
              and t["nics"] == 1]
    if not tables:
        sys.exit("no 2-host tables in " + args.log)
    call_us, alpha_l, alpha_g, nfit = fit_latencies(args.sim, tables, args.fit_max, args.bw,
                                                    args.inter_bw)
    print(f"Fitted on {nfit} points up to {args.fit_max} B (not bcast): {call_us:.0f} us per "
          f"call, alpha {alpha_l * 1e6:.1f} us inside a host, {alpha_g * 1e6:.1f} us between "
          f"hosts; link {args.inter_bw / 1e6:.1f} MB/s, {args.bw / 1e9:.0f} GB/s inside a host.\n")
    shown = {int(s) for s in args.sizes.split(",")}
    within = total = 0
    within_pred = total_pred = 0
    misses = {}  # (collective, size) -> [(algorithm, ratio)] above the fitted sizes
    for t in tables:
        algos = [a for a in dict.fromkeys(a for (_, a) in t["rows"]) if a not in SKIP]
        placed = " (cyclic)" if t["placement"] == "cyclic" else ""
        print(f"{t['collective']}, {t['n'] // t['k']} hosts x {t['k']} ranks{placed}: measured / "
              f"predicted (ratio)\n")
        print("| size | " + " | ".join(algos) + " |")
        print("|---" * (len(algos) + 1) + "|")
        for size in sorted({s for (s, _) in t["rows"]}):
            pred = simulate(args.sim, t, algos, size, alpha_l, alpha_g, args.bw, args.inter_bw)
            cells = []
            for a in algos:
                meas = t["rows"].get((size, a))
                if meas is None or a not in pred:
                    cells.append("")
                    continue
                p = pred[a] * 1e6 + call_us
                ok = abs(math.log(meas / p)) <= math.log(1.2)
                within += ok
                total += 1
                if size > args.fit_max:
                    within_pred += ok
                    total_pred += 1
                    if not ok:
                        misses.setdefault((t["collective"], size), []).append((a, meas / p))
                cells.append(f"{meas:.0f} / {p:.0f} ({meas / p:.2f})")
            if size in shown:
                print(f"| {size_label(size)} | " + " | ".join(cells) + " |")
        print()
    print(f"Within 20% (measured/predicted in [1/1.2, 1.2]): {within} of {total} points; "
          f"{within_pred} of {total_pred} above the fitted sizes.")
    if args.misses:
        print("\nOutside 20% above the fitted sizes (measured/predicted):\n")
        for (c, size), v in sorted(misses.items()):
            print(f"- {c} {size_label(size)}: " + ", ".join(f"{a} {r:.2f}" for a, r in v))


if __name__ == "__main__":
    main()
