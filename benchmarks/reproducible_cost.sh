#!/usr/bin/env bash
# What reproducible mode costs: per size, the fastest algorithm that combines in the canonical order
# (binomial_tree, canonical_halving, and recursive_doubling at powers of two: what algo::Auto
# chooses among in reproducible mode) against the fastest one that does not (native, ring, rhd,
# recursive_doubling elsewhere), all side by side in one cclx-bench run per collective (float sum,
# out of place, medians of interleaved repetitions).
#
#   bash benchmarks/reproducible_cost.sh [-n RANKS] [-m MIN:MAX] [-b BUILD] [-o OUT.json]
#
# Prints a Markdown table per collective (allreduce, reduce_scatter): size, the fastest of each
# kind with its time in µs, and reproducible / fastest (1.00 = free). -o keeps cclx-bench's JSON
# (one object per collective) for the data set. Never oversubscribe when the numbers matter.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
ranks=2 sizes=8:64M build=$root/build out=
while getopts "n:m:b:o:" opt; do
  case $opt in
    n) ranks=$OPTARG ;;
    m) sizes=$OPTARG ;;
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    *) exit 2 ;;
  esac
done
bench=$build/benchmarks/cclx-bench
[[ -x $bench ]] || { echo "reproducible_cost.sh: $bench not built" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for coll in allreduce reduce_scatter; do
  mpiexec -n "$ranks" "$bench" "$coll" -m "$sizes" --skip-unserving --json \
    --algos ring,rhd,recursive_doubling,binomial_tree,canonical_halving >"$work/$coll.json"
done

/usr/bin/python3 - "$work" "$out" <<'EOF'
import json, sys
work, out = sys.argv[1], sys.argv[2]
runs = []
for coll in ("allreduce", "reduce_scatter"):
    with open(f"{work}/{coll}.json") as f:
        run = json.load(f)
    n = run["ranks"]
    ordered = {"binomial_tree", "canonical_halving"}
    if n & (n - 1) == 0:
        ordered.add("recursive_doubling")
    runs.append(run)
    by_size = {}
    for r in run["results"]:
        by_size.setdefault(r["size"], []).append((r["max_latency_us"], r["algorithm"]))
    print(f"\n{coll}, {run['ranks']} ranks, float sum (`{run['command']}`)\n")
    print("| size (B) | fastest reproducible (µs) | fastest other (µs) | reproducible / other |")
    print("|---|---|---|---|")
    for size in sorted(by_size):
        rep = min(x for x in by_size[size] if x[1] in ordered)
        other = min(x for x in by_size[size] if x[1] not in ordered)
        print(f"| {size} | {rep[1]} {rep[0]:.2f} | {other[1]} {other[0]:.2f} | "
              f"{rep[0] / other[0]:.2f} |")
if out:
    with open(out, "w") as f:
        json.dump(runs, f, indent=1)
EOF
