#!/usr/bin/env bash
# Instructions per call of native and of algo::Auto's settled decision, per collective, counted by
# callgrind on one rank (docs/tuning-results.md, "Per-call cost of the decision"):
#
#   bash benchmarks/callcount.sh [build-dir] [iterations]   (defaults: build, 10000)
#
# For each collective, `cclx-callcount native|auto ITER COLL` runs under callgrind with only its
# timed loop collected (--collect-atstart=no; the program toggles collection around the loop);
# instructions per call = the total ("summary:" line) / ITER. Every CCLX_* variable is removed,
# so that Auto decides from its defaults (the model, which chooses native at 8 bytes). Prints a
# Markdown table on stdout; the raw callgrind summaries go to stderr.
set -euo pipefail
build=${1:-build}
iters=${2:-10000}
prog=$build/benchmarks/cclx-callcount
[[ -x $prog ]] || { echo "callcount.sh: $prog not built" >&2; exit 2; }
command -v valgrind >/dev/null || { echo "callcount.sh: valgrind not found" >&2; exit 2; }
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^CCLX_')
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

count() {  # count MODE COLL: instructions per call
  local out=$work/$1-$2.out
  valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$out" \
    "$prog" "$1" "$iters" "$2" >/dev/null 2>"$work/log"
  local total
  total=$(awk '/^summary:/ {print $2}' "$out")
  echo "$1 $2 summary: $total" >&2
  awk -v t="$total" -v n="$iters" 'BEGIN { printf "%.0f", t / n }'
}

echo "| collective | native | auto | decision |"
echo "|---|---:|---:|---:|"
for coll in allreduce reduce bcast scatter gather allgather reduce_scatter alltoall gatherv \
  scatterv allgatherv reduce_scatterv barrier; do
  n=$(count native "$coll")
  a=$(count auto "$coll")
  printf '| %s | %s | %s | %+d |\n' "$coll" "$n" "$a" $((a - n))
done
