#!/usr/bin/env python3
"""Scaling studies with the α-β simulator (cclx-sim): runs the sweeps, keeps their JSON, and writes
the tables into docs/simulation.md (between GENERATED markers) and plots into docs/img/.

    /usr/bin/python3 benchmarks/results/scripts/plot_scaling.py --sim build/tools/cclx-sim
    /usr/bin/python3 benchmarks/results/scripts/plot_scaling.py --from-results   # no simulator run
    /usr/bin/python3 benchmarks/results/scripts/plot_scaling.py --check   # docs match the JSON?

Every table is preceded by the exact cclx-sim command that produced it. Algorithms the library
does not have (yet) show up as "n/a": re-running the script after they land fills them in.
"""
import argparse
import json
import os
import shlex
import subprocess
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
ALGOS = ["ring", "rhd", "stragglar"]
PAPER_N = [8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256]
BEYOND_N = [256, 512, 1024]
TWO_LEVEL_N = [16, 32, 64, 128, 256, 512]
COMMON = ["--bytes", "1G", "--alpha", "3e-6", "--bw", "450e9", "--hide-prologue",
          "--no-critical-path", "--json"]


def two_level(nics_per_host, nic_per):
    """The two-level study with 8 ranks per host and `nics_per_host` NICs on each host: one per
    `nic_per` ("host" or "rank")."""
    return {
        "title": "Two-level: 8 ranks per host (3 us, 450 GB/s inside), one 50 GB/s NIC per "
                 f"{nic_per} (5 us)",
        "args": ["--algo", ",".join(ALGOS), "--n", ",".join(map(str, TWO_LEVEL_N)),
                 "--ranks-per-host", "8", "--inter-alpha", "5e-6", "--inter-bw", "50e9",
                 "--nics-per-host", str(nics_per_host)] + COMMON,
    }


STUDIES = {
    "paper": {
        "title": "Flat full mesh, n = 8 .. 256 (the StragglAR setting)",
        "args": ["--algo", ",".join(ALGOS), "--n", ",".join(map(str, PAPER_N))] + COMMON,
    },
    "beyond": {
        "title": "Flat full mesh beyond the paper, n = 256 .. 1024",
        "args": ["--algo", ",".join(ALGOS), "--n", ",".join(map(str, BEYOND_N))] + COMMON,
    },
    "two_level_1nic": two_level(1, "host"),
    "two_level_8nic": two_level(8, "rank"),
}


def run_study(sim, name, study, results_dir):
    cmd = [sim] + study["args"]
    shown = "cclx-sim " + " ".join(shlex.quote(a) for a in study["args"])
    print("running:", shown, file=sys.stderr)
    # cclx-sim exits 2 when some combination is unsupported; its JSON still holds the others.
    out = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=False)
    if out.returncode not in (0, 2):
        sys.exit(f"cclx-sim failed ({out.returncode}) for study {name}")
    runs = json.loads(out.stdout)
    with open(os.path.join(results_dir, f"{name}.json"), "w") as f:
        json.dump({"command": shown, "runs": runs}, f, indent=1)
    return shown, runs


def load_study(name, results_dir):
    """The stored sweep of a study (benchmarks/results/scaling-sim/NAME.json), without cclx-sim."""
    with open(os.path.join(results_dir, f"{name}.json")) as f:
        d = json.load(f)
    return d["command"], d["runs"]


def index(runs):
    """{(algo, n): seconds} with StragglAR timed from the end of its prologue."""
    t = {}
    for r in runs:
        if "error" in r:
            continue
        key = (r["algorithm"], r["nranks"])
        t[key] = r["after_prologue_s"] if r["algorithm"] == "stragglar" else r["time_s"]
    return t


def ms(v):
    return "n/a" if v is None else f"{v * 1e3:.3f}"


def ratio(a, b):
    return "n/a" if a is None or b is None else f"{a / b:.2f}x"


def table(ns, t, errors):
    lines = ["| n | ring (ms) | RHD (ms) | StragglAR after prologue (ms) | StragglAR rounds "
             "| speedup vs ring | speedup vs RHD | best |",
             "|---:|---:|---:|---:|---:|---:|---:|:---|"]
    for n in ns:
        ring, rhd, sa = (t.get((a, n)) for a in ALGOS)
        rounds = errors.get(("stragglar_rounds", n), "n/a")
        cands = {a: t.get((a, n)) for a in ALGOS if t.get((a, n)) is not None}
        best = min(cands, key=cands.get) if cands else "n/a"
        lines.append(f"| {n} | {ms(ring)} | {ms(rhd)} | {ms(sa)} | {rounds} | {ratio(ring, sa)} "
                     f"| {ratio(rhd, sa)} | {best} |")
    return "\n".join(lines)


def extras(runs):
    """StragglAR round counts and why cells are n/a."""
    e = {}
    for r in runs:
        if "error" in r:
            e[(r["algorithm"], r["nranks"])] = r["error"]
        elif r["algorithm"] == "stragglar":
            e[("stragglar_rounds", r["nranks"])] = r["rounds"] - r["prologue_steps"]
    return e


def plot(ns, t, title, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib missing: no plot", path, file=sys.stderr)
        return False
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    for a, label in zip(ALGOS, ["ring", "RHD", "StragglAR (after prologue)"]):
        xs = [n for n in ns if (a, n) in t]
        if xs:
            ax1.plot(xs, [t[(a, n)] * 1e3 for n in xs], marker="o", label=label)
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("ranks")
    ax1.set_ylabel("predicted time (ms)")
    ax1.set_title(title, fontsize=9)
    ax1.grid(True, alpha=0.3)
    ax1.legend(fontsize=8)
    for base, label in (("ring", "over ring"), ("rhd", "over RHD")):
        xs = [n for n in ns if (base, n) in t and ("stragglar", n) in t]
        if xs:
            ax2.plot(xs, [t[(base, n)] / t[("stragglar", n)] for n in xs], marker="o",
                     label=f"StragglAR speedup {label}")
    ax2.axhline(2.0, color="grey", linestyle="--", linewidth=0.8)
    ax2.axhline(1.0, color="grey", linestyle=":", linewidth=0.8)
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("ranks")
    ax2.set_ylabel("speedup")
    ax2.grid(True, alpha=0.3)
    ax2.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def study_block(name, study, shown, runs, img_dir, draw):
    """The text between a study's GENERATED markers; `draw`: write its plot, else name the plot
    only when it exists."""
    t, e = index(runs), extras(runs)
    ns = sorted({r["nranks"] for r in runs})
    body = [f"Command: `{shown}`", "", table(ns, t, e)]
    missing = sorted({a for (a, n), msg in e.items() if a in ALGOS})
    for a in missing:
        bad = [n for (x, n) in e if x == a]
        first = e[(a, bad[0])]
        body.append(f"\n{a}: n/a for n = {', '.join(map(str, bad))} ({first.splitlines()[0]})")
    img = f"scaling_{name}.png"
    path = os.path.join(img_dir, img)
    if plot(ns, t, study["title"], path) if draw else os.path.exists(path):
        body.append(f"\n![{study['title']}](img/{img})")
    return "\n".join(body)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sim", default=os.path.join(ROOT, "build", "tools", "cclx-sim"))
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "simulation.md"))
    ap.add_argument("--img", default=os.path.join(ROOT, "docs", "img"))
    ap.add_argument("--results", default=os.path.join(ROOT, "benchmarks", "results", "scaling-sim"))
    ap.add_argument("--only", nargs="*", choices=list(STUDIES), help="studies to (re)run")
    ap.add_argument("--from-results", action="store_true",
                    help="tables and plots from the stored JSON in --results (no cclx-sim run)")
    ap.add_argument("--check", action="store_true",
                    help="write nothing; fail when a table in --doc differs from the one the "
                         "stored JSON gives")
    args = ap.parse_args()
    if args.check:
        out = {name: study_block(name, study, *load_study(name, args.results), args.img, False)
               for name, study in STUDIES.items()}
        return generated.update(args.doc, out, True, args.results,
                                "benchmarks/results/scripts/plot_scaling.py --from-results")
    os.makedirs(args.img, exist_ok=True)
    os.makedirs(args.results, exist_ok=True)
    text = open(args.doc).read() if os.path.exists(args.doc) else "# Simulation\n"
    for name, study in STUDIES.items():
        if args.only and name not in args.only:
            continue
        if args.from_results:
            shown, runs = load_study(name, args.results)
        else:
            shown, runs = run_study(args.sim, name, study, args.results)
        text = generated.replace_block(text, name,
                                       study_block(name, study, shown, runs, args.img, True),
                                       append=True)
    with open(args.doc, "w") as f:
        f.write(text)
    print("wrote", args.doc, file=sys.stderr)


if __name__ == "__main__":
    sys.exit(main())
