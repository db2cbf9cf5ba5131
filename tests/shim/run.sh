#!/usr/bin/env bash
# Runs one libcclx-mpi test job (tests/shim) and checks the library's report.
#
#   run.sh [--algo ring|tree|native] [--expect REGEX]... -- COMMAND...
#
# --algo   sets CCLX_ALGO to one of the configurations below (kept here, since ctest cannot carry
#          the ';' that separates CCLX_ALGO's sections); native: every call takes cclx's native
#          path; auto: unset, algo::Auto's model decides.
# --expect an extended regular expression that some line of the report must match, fields
#          separated by single spaces: '^allreduce cclx ring [1-9]' (docs/preload.md, "Report").
# --uniform N  every line's count of calls must be a multiple of N: each of the N ranks decided
#          every call alike (for programs that call collectives on all ranks of MPI_COMM_WORLD
#          or its duplicates only).
set -euo pipefail

declare -A algos=(
  # Every collective on a scheduled algorithm: rings, binomial trees for the rooted ones, the
  # dissemination barrier.
  [ring]='allreduce:*=ring;reduce_scatter:*=ring;allgather:*=ring;alltoall:*=ring(segment_bytes=4K);bcast:*=binomial_tree;reduce:*=binomial_tree;gather:*=binomial_tree;scatter:*=binomial_tree;allgatherv:*=ring;reduce_scatterv:*=ring;alltoallv:*=ring(segment_bytes=4K);barrier:*=dissemination'
  # The others: size ranges, recursive halving/doubling, pipelined trees with small segments;
  # the barrier native.
  [tree]='allreduce:0-64=binomial_tree,64-inf=rhd;reduce:*=pipelined_tree(segment_bytes=256);bcast:*=pipelined_tree(segment_bytes=256,fanout=1);reduce_scatter:*=rhd;allgather:*=rhd;alltoall:*=ring;gather:*=binomial_tree;scatter:*=binomial_tree;allgatherv:0-64=native,64-inf=rhd;reduce_scatterv:*=rhd;alltoallv:*=ring'
  [native]='*:*=native'
  [auto]=''
)

expects=()
uniform=0
while [[ $# -gt 0 && $1 != -- ]]; do
  case $1 in
    --algo) [[ -v algos[$2] ]] || { echo "run.sh: unknown --algo $2" >&2; exit 2; }
            if [[ -n ${algos[$2]} ]]; then export CCLX_ALGO=${algos[$2]}; else unset CCLX_ALGO; fi
            shift 2 ;;
    --expect) expects+=("$2"); shift 2 ;;
    --uniform) uniform=$2; shift 2 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
[[ $# -gt 1 && $1 == -- ]] || { echo "usage: run.sh [--algo A] [--expect RE]... -- COMMAND..." >&2; exit 2; }
shift

report=$(mktemp)
trap 'rm -f "$report"' EXIT
export CCLX_SHIM_REPORT=$report
"$@"
for e in "${expects[@]}"; do
  # grep reads to the end (no -q): with pipefail, -q exiting at the first match could kill tr with
  # SIGPIPE and fail the pipeline though a line matched (seen in CI on a loaded machine).
  if ! tr '\t' ' ' <"$report" | grep -E -- "$e" >/dev/null; then
    echo "run.sh: no line of the libcclx-mpi report matches /$e/; the report:" >&2
    cat "$report" >&2
    exit 1
  fi
done
if ((uniform > 0)); then
  if ! awk -F'\t' -v n="$uniform" '!/^#/ && $4 % n != 0 { print; bad = 1 } END { exit bad }' "$report"; then
    echo "run.sh: the lines above count calls that not all $uniform ranks decided alike; the report:" >&2
    cat "$report" >&2
    exit 1
  fi
fi
