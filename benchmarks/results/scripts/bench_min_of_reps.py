"""Markdown table from cclx-bench --json output: per size and algorithm the minimum and the median
over the repetitions of the max-over-ranks latency, and each algorithm's ratio to native on the
minima (docs/results.md, the alltoallv section). Usage: bench_min_of_reps.py RESULT.json"""
import json, sys
d = json.load(open(sys.argv[1]))
algos = d["algorithms"]
rows = {}
for r in d["results"]:
    rows.setdefault(r["size"], {})[r["algorithm"]] = r
print("| size (B) | " + " | ".join(f"{a} min / median (us)" for a in algos) + " | " + " | ".join(f"{a} ratio (min)" for a in algos if a != "native") + " |")
print("|---" * (1 + len(algos) + len(algos) - 1) + "|")
for size in sorted(rows):
    cells, ratios = [], []
    nat = min(rows[size]["native"]["repetitions_max_latency_us"])
    for a in algos:
        r = rows[size].get(a)
        if not r: cells.append("-"); continue
        reps = r["repetitions_max_latency_us"]
        cells.append(f"{min(reps):.2f} / {r['max_latency_us']:.2f}")
        if a != "native": ratios.append(f"{nat / min(reps):.2f}")
    print(f"| {size} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
