"""Markdown tables from cclx-bench --json output: per size and algorithm the minimum and the median
over the repetitions of the max-over-ranks latency, and each algorithm's ratio to native on the
minima (docs/results.md, the alltoallv section).

    /usr/bin/python3 benchmarks/results/scripts/bench_min_of_reps.py RESULT.json   # to stdout
    /usr/bin/python3 benchmarks/results/scripts/bench_min_of_reps.py --write   # into docs/results.md
    /usr/bin/python3 benchmarks/results/scripts/bench_min_of_reps.py --check   # docs match the data?

--write and --check take the stored runs of benchmarks/results/shm-2ranks/alltoall/ (BLOCKS below)
and the page's blocks between GENERATED markers; --check writes nothing and fails when a block
differs from what the data gives."""
import argparse
import json
import os
import sys

import generated

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DATA = os.path.join(ROOT, "benchmarks", "results", "shm-2ranks", "alltoall")
# GENERATED block of docs/results.md -> its cclx-bench JSON under DATA
BLOCKS = {"alltoall-2ranks": "a2.json", "alltoallv-2ranks": "av2.json"}


def table(path):
    d = json.load(open(path))
    algos = d["algorithms"]
    rows = {}
    for r in d["results"]:
        rows.setdefault(r["size"], {})[r["algorithm"]] = r
    out = ["| size (B) | " + " | ".join(f"{a} min / median (us)" for a in algos) + " | " +
           " | ".join(f"{a} ratio (min)" for a in algos if a != "native") + " |",
           "|---" * (1 + len(algos) + len(algos) - 1) + "|"]
    for size in sorted(rows):
        cells, ratios = [], []
        nat = min(rows[size]["native"]["repetitions_max_latency_us"])
        for a in algos:
            r = rows[size].get(a)
            if not r:
                cells.append("-")
                continue
            reps = r["repetitions_max_latency_us"]
            cells.append(f"{min(reps):.2f} / {r['max_latency_us']:.2f}")
            if a != "native":
                ratios.append(f"{nat / min(reps):.2f}")
        out.append(f"| {size} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("json", nargs="?", help="one cclx-bench --json file: its table to stdout")
    ap.add_argument("--doc", default=os.path.join(ROOT, "docs", "results.md"))
    ap.add_argument("--data", default=DATA)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args()
    if a.json:
        print(table(a.json))
        return 0
    if not (a.write or a.check):
        ap.error("give a JSON file, --write or --check")
    out = {name: table(os.path.join(a.data, f)) for name, f in BLOCKS.items()}
    return generated.update(a.doc, out, a.check, a.data,
                            "benchmarks/results/scripts/bench_min_of_reps.py --write")


if __name__ == "__main__":
    sys.exit(main())
