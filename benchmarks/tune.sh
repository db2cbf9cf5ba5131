#!/usr/bin/env bash
# The tuning suite (MCR-DL's): measures every candidate of each collective at each communicator
# size over a range of message sizes with cclx-bench, one (collective, size) part at a time, and
# merges the parts into one tuning table for CCLX_TUNE_FILE (docs/tuning.md).
#
#   benchmarks/tune.sh -o tune-2ranks.json -n 2 -c allreduce,bcast -m 8:64M
#
# Runs: with -r RUNS each part is measured in RUNS separate launches, pooled (cclx-tune merge
# --pool: every repetition kept, times their medians), so that the native margin's sign test spans
# launches: on a VM a launch can favour one algorithm throughout (docs/tuning.md, "Native margin").
# Resumes: each finished part is kept in OUT.parts/<collective>-n<N>.json and skipped by the next
# run with the same OUT (delete the part to measure it again); a part cut short keeps the sizes it
# finished and is measured again from its start. Merges: the final table is OUT's earlier content
# (if any) merged with every part (cclx-tune merge; later measurements win).
# Extra arguments after `--` go to cclx-bench (e.g. -- --repeat 7 --target-ms 100).
set -euo pipefail

usage() {
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
  echo "options: -o OUT (required)  -n N[,N...] (2)  -c COLL[,COLL...] (every collective)"
  echo "         -r RUNS (1): launches per part, pooled"
  echo "         -m MIN:MAX (8:64M)  -a ALGOS (every algorithm)  -b BUILD_DIR (build)"
  echo "         -l LAUNCHER (mpiexec; e.g. 'mpiexec.openmpi --oversubscribe')"
}

out="" ranks="2" sizes="8:64M" algos="" build="build" launcher="mpiexec" runs=1
colls="allreduce,reduce,bcast,reduce_scatter,allgather,alltoall,gather,scatter,barrier"
colls+=",gatherv,scatterv,allgatherv,reduce_scatterv,alltoallv"
while getopts "o:n:c:m:a:b:l:r:h" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    n) ranks="$OPTARG" ;;
    c) colls="$OPTARG" ;;
    m) sizes="$OPTARG" ;;
    a) algos="$OPTARG" ;;
    b) build="$OPTARG" ;;
    l) launcher="$OPTARG" ;;
    r) runs="$OPTARG" ;;
    h) usage; exit 0 ;;
    *) usage >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
[[ -n "$out" ]] || { usage >&2; exit 2; }
[[ "$runs" =~ ^[1-9][0-9]*$ ]] || { echo "tune.sh: -r needs a positive count" >&2; exit 2; }

bench="$build/benchmarks/cclx-bench"
tune="$build/tools/cclx-tune"
[[ -x "$bench" && -x "$tune" ]] || { echo "tune.sh: build $bench and $tune first" >&2; exit 2; }

parts="$out.parts"
mkdir -p "$parts"
IFS=, read -r -a coll_list <<<"$colls"
IFS=, read -r -a rank_list <<<"$ranks"
total=$((${#coll_list[@]} * ${#rank_list[@]}))
k=0
for n in "${rank_list[@]}"; do
  for c in "${coll_list[@]}"; do
    k=$((k + 1))
    part="$parts/$c-n$n.json"
    if [[ -f "$part" ]]; then
      echo "[$k/$total] $c, $n ranks: done before ($part), skipped"
      continue
    fi
    echo "[$k/$total] $c, $n ranks, sizes $sizes ..."
    start=$(date +%s)
    # A part is written size by size into .partial (one per launch) and becomes the part only
    # once every launch is complete.
    rm -f "$part".*partial
    : >"$parts/$c-n$n.log"
    launches=()
    for ((r = 1; r <= runs; r++)); do
      ((runs == 1)) || echo "[$k/$total] $c, $n ranks: launch $r of $runs"
      echo "# launch $r of $runs" >>"$parts/$c-n$n.log"
      # shellcheck disable=SC2086  # the launcher may carry its own options
      $launcher -n "$n" "$bench" "$c" -m "$sizes" ${algos:+--algos "$algos" --skip-unserving} \
        --tune-out "$part.run$r.partial" "$@" >>"$parts/$c-n$n.log"
      launches+=("$part.run$r.partial")
    done
    if ((runs == 1)); then
      mv "$part.run1.partial" "$part"
    else
      "$tune" merge --pool -o "$part.partial" "${launches[@]}" 2>/dev/null
      mv "$part.partial" "$part"
      rm -f "${launches[@]}"
    fi
    echo "[$k/$total] $c, $n ranks: $(($(date +%s) - start)) s"
  done
done

inputs=()
[[ -f "$out" ]] && inputs+=("$out")
inputs+=("$parts"/*.json)
"$tune" merge -o "$out" "${inputs[@]}"
echo "table: $out ($("$tune" show "$out" | tail -n +3 | wc -l) entries)"
