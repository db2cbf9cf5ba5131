#!/usr/bin/env python3
"""Markdown tables from the CSVs and logs of examples/trainer/measure.sh (docs/trainer.md).

Per scenario, algorithm and mode: the time per iteration (the slowest rank's, median over the
iterations after the first, one number per round, fastest round first), the wait after the
backward pass (median over the rounds), the final loss, and the largest relative loss difference
to native in the same mode (native persistent where native did not run in that mode); the choice
`straggler_aware` reported at the end of each round; the loss curve of the plain runs; and what
the runs were (model, buckets, iterations, parameter hashes).

    python3 examples/trainer/summarize.py OUT                      # tables on stdout
    /usr/bin/python3 examples/trainer/summarize.py --write         # into docs/trainer.md
    /usr/bin/python3 examples/trainer/summarize.py --check         # docs/trainer.md up to date?

OUT / DATA is measure.sh's output folder; --write and --check (and a plain run without one) use
the stored data set, benchmarks/results/trainer/2026-11-28. --write replaces the blocks between
`<!-- BEGIN GENERATED: NAME -->` and `<!-- END GENERATED: NAME -->` in --doc; --check writes
nothing and fails (exit 1, naming the blocks) when a block of the page differs from what the data
gives. Standard library only.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys
from collections import defaultdict

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "benchmarks", "results", "scripts"))
import generated  # noqa: E402  (the docs' GENERATED blocks, shared with the table scripts)
DEFAULT_DATA = os.path.join(ROOT, "benchmarks", "results", "trainer", "2026-11-28")
DEFAULT_DOC = os.path.join(ROOT, "docs", "trainer.md")
SCENARIOS = ("plain", "large", "straggler", "jitter")
LOSS_POINTS = [1, 10, 50, 100, 200, 300]
RUN = re.compile(r"(\w+?)_(\w+)_(blocking|nonblocking|persistent)_r(\d+)\.csv")


def load(data):
    """{(tag, algo, mode): [(round, rows, log lines)] sorted by round}."""
    runs = defaultdict(list)
    for path in sorted(glob.glob(os.path.join(data, "*.csv"))):
        m = RUN.fullmatch(os.path.basename(path))
        if not m:
            continue
        with open(path) as f:
            rows = [{k: float(v) for k, v in r.items()} for r in csv.DictReader(f)]
        log = path[:-len(".csv")] + ".log"
        lines = open(log).read().splitlines() if os.path.exists(log) else []
        runs[m.groups()[:3]].append((int(m.group(4)), rows, lines))
    for k in runs:
        runs[k].sort(key=lambda r: r[0])
    return runs


def per_round(rounds, key):
    return sorted(statistics.median(r[key] for r in rows[1:]) for _, rows, _ in rounds)


def med(rounds, key):
    return statistics.median(per_round(rounds, key))


def log_value(lines, prefix):
    for line in lines:
        if line.strip().startswith(prefix):
            return line.strip()[len(prefix):].strip()
    return None


def rel(data):
    """The data folder as the page names it: relative to the repository when inside it."""
    r = os.path.relpath(os.path.abspath(data), ROOT)
    return os.path.abspath(data) if r.startswith("..") else r.replace(os.sep, "/")


def one(values, missing="?"):
    """The common value of every run, or each distinct one."""
    vals = sorted({v if v is not None else missing for v in values})
    return " / ".join(vals) if vals else missing


def runs_block(runs, data):
    """What the data set holds: per scenario the runs, iterations, model, buckets, hashes."""
    allruns = [r for k in runs for r in runs[k]]
    ranks = one(log_value(lines, "cclx-trainer:").split(" ranks")[0] if
                log_value(lines, "cclx-trainer:") else None for _, _, lines in allruns)
    nrounds = len({rnd for rnd, _, _ in allruns})
    out = [f"Data: `{rel(data)}/`, {len(allruns)} runs (a CSV and a log each) on {ranks} ranks, "
           f"{nrounds} rounds.", "",
           "| scenario | runs | iterations | model (parameters) | buckets (bytes) | delay "
           "| parameter hash, all ranks and runs |",
           "|---|---:|---:|---|---|---|---|"]
    for tag in SCENARIOS:
        rs = [r for k in sorted(runs) if k[0] == tag for r in runs[k]]
        if not rs:
            continue
        iters = one(str(len(rows)) for _, rows, _ in rs)
        models, buckets, delays, hashes = [], [], [], []
        for _, _, lines in rs:
            m = re.match(r"(.*?) \((\d+) parameters\), \d+ buckets of >= \d+ bytes: (.*)",
                         log_value(lines, "model") or "")
            models.append(f"{m.group(1)} ({m.group(2)})" if m else None)
            buckets.append(", ".join(m.group(3).split()) if m else None)
            d = log_value(lines, "straggler:") or log_value(lines, "jitter:")
            delays.append(d or "none")
            h = re.search(r"identical on all \d+ ranks: hash (\w+)", "\n".join(lines))
            hashes.append(h.group(1) if h else "not checked")
        out.append(f"| {tag} | {len(rs)} | {iters} | {one(models)} | {one(buckets)} "
                   f"| {one(delays)} | {one(hashes)} |")
    return "\n".join(out)


def scenario_block(runs, tag):
    keys = sorted(k for k in runs if k[0] == tag)
    out = ["| algorithm | mode | time / iteration (ms), per round | wait after backward (ms) "
           "| final loss | max rel. loss diff vs native |",
           "|---|---|---:|---:|---:|---:|"]
    for k in keys:
        rows = runs[k][0][1]
        ref = runs.get((tag, "native", k[2])) or runs.get((tag, "native", "persistent"))
        diff = (max(abs(a["loss"] - b["loss"]) / abs(b["loss"]) for a, b in zip(rows, ref[0][1]))
                if ref else float("nan"))
        times = " / ".join(f"{t:.2f}" for t in per_round(runs[k], "time_ms"))
        out.append(f"| {k[1]} | {k[2]} | {times} | {med(runs[k], 'wait_ms'):.2f} "
                   f"| {rows[-1]['loss']:.6f} | {diff:.1e} |")
    for k in keys:
        choices = [(rnd, log_value(lines, "adaptive choice for the next call:"))
                   for rnd, _, lines in runs[k]]
        if not any(c for _, c in choices):
            continue
        by_choice = defaultdict(list)
        for rnd, c in choices:
            by_choice[c or "not reported"].append(str(rnd))
        said = "; ".join(f"`{c}` (round{'s' if len(r) > 1 else ''} {', '.join(r)})"
                         for c, r in sorted(by_choice.items()))
        out.append(f"\n`{k[1]}` {k[2]}, its choice at the end of each round: {said}.")
    return "\n".join(out)


def loss_block(runs):
    plain = sorted(k for k in runs if k[0] == "plain" and k[2] == "persistent")
    out = ["| iteration | " + " | ".join(k[1] for k in plain) + " |",
           "|---:|" + "---:|" * len(plain)]
    for p in LOSS_POINTS:
        cells = [f"{runs[k][0][1][p - 1]['loss']:.6f}" if p <= len(runs[k][0][1]) else "–"
                 for k in plain]
        out.append(f"| {p} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def blocks(runs, data):
    """[(name, heading for stdout, body)] in page order."""
    b = [("trainer-runs", "runs", runs_block(runs, data))]
    for tag in SCENARIOS:
        if any(k[0] == tag for k in runs):
            b.append((f"trainer-{tag}", tag, scenario_block(runs, tag)))
    if any(k[0] == "plain" and k[2] == "persistent" for k in runs):
        b.append(("trainer-loss", "loss curve (plain, persistent)", loss_block(runs)))
    return b


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("data", nargs="?", default=DEFAULT_DATA, metavar="DATA",
                    help="measure.sh's output folder (default: %(default)s)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true",
                      help="write the tables into --doc between its GENERATED markers")
    mode.add_argument("--check", action="store_true",
                      help="write nothing; exit 1 when a block of --doc differs from what DATA "
                           "gives")
    ap.add_argument("--doc", default=DEFAULT_DOC, help="the page (default: %(default)s)")
    args = ap.parse_args()

    runs = load(args.data)
    if not runs:
        print(f"{args.data}: no CSVs of measure.sh", file=sys.stderr)
        return 2
    bs = blocks(runs, args.data)
    if not (args.write or args.check):
        for _, heading, body in bs:
            print(f"\n### {heading}\n\n{body}")
        return 0

    return generated.update(args.doc, {name: body for name, _, body in bs}, args.check, args.data,
                            "examples/trainer/summarize.py --write")


if __name__ == "__main__":
    sys.exit(main())
