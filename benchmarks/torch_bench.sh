#!/usr/bin/env bash
# The torch backend against Gloo (docs/torch.md): benchmarks/torch_bench.py's three measurements,
# each cclx and Gloo side by side in one run, at 2 ranks (one per core) and at 4 (oversubscribed on
# a 2-core machine: functional, not a performance figure there).
#
#   bash benchmarks/torch_bench.sh [-o OUT_DIR] [-r ROUNDS]
#
# OUT_DIR gets busbw-n<N>.csv, ddp-<model>-n<N>.csv, straggler-<algo>-n3.csv and README.md (the
# commands, machine, date and commit).
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
out=torch-bench rounds=7
while getopts "o:r:" opt; do
  case $opt in
    o) out=$OPTARG ;;
    r) rounds=$OPTARG ;;
    *) exit 2 ;;
  esac
done
mkdir -p "$out"
out=$(cd "$out" && pwd -P)
cd "$root"  # the commands below, as recorded, run from the repository root
py=/usr/bin/python3 bench=benchmarks/torch_bench.py
export PYTHONWARNINGS=ignore
commands=()
run() {  # run FILE ENV... -- ARGS...
  local file=$1 envs=()
  shift
  while [[ $1 != -- ]]; do envs+=("$1"); shift; done
  shift
  local cmd=(env "${envs[@]}" mpiexec -bind-to none "$@")
  commands+=("${cmd[*]} > $file")
  echo "+ ${cmd[*]}" >&2
  timeout 900 "${cmd[@]}" 2>/dev/null | grep -v Warn >"$out/$file"
  cat "$out/$file"
}
for n in 2 4; do
  wait=CCLX_WAIT=backoff  # the progress thread's default; stated for the record
  run busbw-n$n.csv $wait -- -n $n $py "$bench" busbw --sizes 1K:64M --rounds "$rounds"
  run ddp-small-n$n.csv $wait -- -n $n $py "$bench" ddp --model small --rounds "$rounds" --iters 20
  run ddp-large-n$n.csv $wait -- -n $n $py "$bench" ddp --model large --batch 8 --rounds "$rounds" \
    --iters 3
done
run straggler-auto-n3.csv CCLX_WAIT=backoff -- -n 3 $py "$bench" straggler --delay-ms 50 \
  --rounds "$rounds" --iters 5
run straggler-stragglar-n3.csv CCLX_WAIT=backoff 'CCLX_ALGO=allreduce:*=stragglar' -- -n 3 $py \
  "$bench" straggler --delay-ms 50 --rounds "$rounds" --iters 5
{
  echo "# torch backend vs Gloo"
  echo
  echo "- commit: $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (modified)')"
  echo "- date: $(date -u +%Y-%m-%dT%H:%MZ)"
  echo "- machine: $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "- torch $($py -c 'import torch; print(torch.__version__)'), $(mpichversion 2>/dev/null | head -1 | tr -s ' ')"
  echo
  echo "Commands (from the repository root):"
  echo
  for c in "${commands[@]}"; do echo "    $c"; done
} >"$out/README.md"
echo "torch_bench.sh: results in $out"
