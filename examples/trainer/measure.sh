#!/usr/bin/env bash
# The measurements of docs/trainer.md: cclx-trainer at N ranks (default 2) for every algorithm x
# mode, a larger model (hidden 1024, 1 MiB buckets), then with an injected straggler and with
# jitter; REPS interleaved rounds (default 3), one
# CSV per run in OUT. Summarize with python3 examples/trainer/summarize.py OUT.
#   examples/trainer/measure.sh [BUILD_DIR=build] [OUT=trainer-results]
set -euo pipefail
build=${1:-build}
out=${2:-trainer-results}
n=${N:-2}
reps=${REPS:-3}
trainer=$build/examples/trainer/cclx-trainer
mkdir -p "$out"
run() {  # tag algo mode rep [trainer options...]
  local tag=$1 algo=$2 mode=$3 rep=$4
  shift 4
  timeout 300 mpiexec -n "$n" "$trainer" --algo "$algo" --mode "$mode" \
    --csv "$out/${tag}_${algo}_${mode}_r${rep}.csv" "$@" >"$out/${tag}_${algo}_${mode}_r${rep}.log"
}
for rep in $(seq 1 "$reps"); do
  for algo in native ring rhd pipelined_tree; do
    for mode in blocking nonblocking persistent; do
      run plain "$algo" "$mode" "$rep" --iters 300
    done
  done
  for algo in native ring; do
    for mode in blocking nonblocking persistent; do
      run large "$algo" "$mode" "$rep" --iters 60 --hidden 1024 --buckets 1M
    done
  done
  for am in native:persistent ring:persistent ring:blocking straggler_aware:blocking; do
    run straggler "${am%:*}" "${am#*:}" "$rep" --iters 100 --straggler-rank 1 --straggler-ms 20
    run jitter "${am%:*}" "${am#*:}" "$rep" --iters 100 --jitter-ms 10
  done
done
echo "results in $out (N=$n, $reps rounds)"
