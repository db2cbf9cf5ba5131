"""The 2-rank tables of docs/algorithms/stragglar-results.md from the stored cclx-bench --json runs
of benchmarks/results/stragglar/2ranks-2026-11-28/:

  stragglar-2ranks    strag-2-d*.json (one run per straggler delay D): per size and D the max
                      latency over the non-straggler (ms) of native / ring / rhd / stragglar /
                      straggler_aware, and the critical D: the smallest tested delay from which
                      stragglar beats both ring and native at every larger tested delay ("none"
                      when it loses at the largest); compared on the values as printed, a tie is
                      no win.
  stragglar-overhead  overhead.json (no straggler): native, ring and straggler_aware (µs) and
                      straggler_aware / ring - 1.

Every latency is the median over the repetitions of the max-over-ranks latency
(`repetitions_max_latency_us`, one entry per repetition; cclx-bench's `max_latency_us` is the same
median).

    /usr/bin/python3 benchmarks/results/scripts/stragglar_tables.py           # to stdout
    /usr/bin/python3 benchmarks/results/scripts/stragglar_tables.py --write   # into the page
    /usr/bin/python3 benchmarks/results/scripts/stragglar_tables.py --check   # page matches data?

--check writes nothing and fails, naming the stale blocks, when a block between the page's
`<!-- BEGIN GENERATED: NAME -->` / `<!-- END GENERATED: NAME -->` markers differs from what the
data gives."""
import argparse
import glob
import json
import os
import statistics
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "benchmarks", "results", "stragglar", "2ranks-2026-11-28")
DOC = os.path.join(ROOT, "docs", "algorithms", "stragglar-results.md")
DELAY_ALGOS = ["native", "ring", "rhd", "stragglar", "straggler_aware"]
OVERHEAD_ALGOS = ["native", "ring", "straggler_aware"]


def load(path):
    """size -> algorithm -> median over the repetitions of the max-over-ranks latency (us)."""
    with open(path) as f:
        d = json.load(f)
    rows = {}
    for r in d["results"]:
        rows.setdefault(r["size"], {})[r["algorithm"]] = statistics.median(
            r["repetitions_max_latency_us"])
    return d, rows


def size_label(b):
    for unit, name in ((1 << 30, "GiB"), (1 << 20, "MiB"), (1 << 10, "KiB")):
        if b >= unit and b % unit == 0:
            return f"{b // unit} {name}"
    return f"{b} B"


def ms(us):
    return f"{us / 1000:.2f}"


def critical_delay(wins):
    """wins: (delay, stragglar beats ring and native) in increasing delay."""
    if not wins or not wins[-1][1]:
        return "none"
    i = len(wins) - 1
    while i > 0 and wins[i - 1][1]:
        i -= 1
    return f"{wins[i][0]:g}"


def delay_table(data):
    runs = []
    for path in glob.glob(os.path.join(data, "strag-2-d*.json")):
        d, rows = load(path)
        if not d.get("straggler"):
            sys.exit(f"{path}: not a straggler run (no 'straggler' entry)")
        runs.append((float(d["straggler"]["delay_ms"]), rows))
    if not runs:
        sys.exit(f"{data}: no strag-2-d*.json")
    runs.sort(key=lambda t: t[0])
    sizes = sorted(set().union(*(rows.keys() for _, rows in runs)))
    out = ["| size | " + " | ".join(f"D={delay:g} ms" for delay, _ in runs) + " | critical D |",
           "|---:|" + "---|" * len(runs) + "---:|"]
    for size in sizes:
        cells, wins = [], []
        for delay, rows in runs:
            r = rows.get(size, {})
            shown = {a: ms(r[a]) if a in r else "-" for a in DELAY_ALGOS}
            cells.append(" / ".join(shown[a] for a in DELAY_ALGOS))
            if all(a in r for a in ("native", "ring", "stragglar")):
                s = float(shown["stragglar"])
                wins.append((delay, s < float(shown["ring"]) and s < float(shown["native"])))
        out.append(f"| {size_label(size)} | " + " | ".join(cells) + f" | {critical_delay(wins)} |")
    return "\n".join(out)


def overhead_table(data):
    path = os.path.join(data, "overhead.json")
    d, rows = load(path)
    if d.get("straggler"):
        sys.exit(f"{path}: the overhead run has a straggler")
    out = ["| size | " + " | ".join(f"{a} (µs)" for a in OVERHEAD_ALGOS) +
           " | straggler_aware / ring - 1 |",
           "|---:|" + "---:|" * (len(OVERHEAD_ALGOS) + 1)]
    for size in sorted(rows):
        r = rows[size]
        cells = [f"{r[a]:.1f}" if a in r else "-" for a in OVERHEAD_ALGOS]
        rel = (f"{100 * (r['straggler_aware'] / r['ring'] - 1):+.1f}%"
               if "ring" in r and "straggler_aware" in r else "-")
        out.append(f"| {size_label(size)} | " + " | ".join(cells) + f" | {rel} |")
    return "\n".join(out)


def blocks(data):
    return {"stragglar-2ranks": delay_table(data), "stragglar-overhead": overhead_table(data)}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default=DATA, help="the runs' folder (default: %(default)s)")
    ap.add_argument("--doc", default=DOC, help="the page (default: %(default)s)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--write", action="store_true", help="write the tables into --doc")
    mode.add_argument("--check", action="store_true",
                      help="fail, naming them, when --doc's blocks differ from the data")
    a = ap.parse_args()
    out = blocks(a.data)
    if not (a.write or a.check):
        for name, body in out.items():
            print(f"<!-- {name} -->\n{body}\n")
        return 0
    return generated.update(a.doc, out, a.check, a.data,
                            "benchmarks/results/scripts/stragglar_tables.py --write")


if __name__ == "__main__":
    sys.exit(main())
