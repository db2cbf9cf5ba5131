#!/usr/bin/env bash
# Testbed campaign of algo::Adaptive (docs/algorithms/adaptive-results.md, "On the testbed"; data in
# benchmarks/results/adaptive-testbed/).
# Run as root from the repository root:
#   benchmarks/testbed/campaign/adaptive.sh PHASE...
# Phases (8 hosts, 200 Mbit/s unless named): slow8 (h3 at 50 Mbit/s), classes8 (h4-h7 at
# 50 Mbit/s), jitter8 (exponential compute jitter of mean $JITTERS ms on every rank), slowrank8
# (rank 7 late by $DELAYS ms every iteration). Each phase first profiles its testbed with
# cclx-topo (topo-PHASE.json: the topology `adaptive` synthesizes on), then runs
# cclx-adaptive-late in training-loop mode, the policies interleaved $REPEAT times; `adaptive=`
# runs the same runtime on the testbed's built topology (benchmarks/results/adaptive-topologies/testbed8*.json).
# JSON and logs go to $OUT (default /tmp/cclx-adaptive-campaign); the testbed is always torn
# down on exit. Tables, predictions and plots: benchmarks/results/scripts/adaptive_campaign.py.
set -euo pipefail
TB=benchmarks/testbed/cclx-testbed
BUILD=${BUILD:-$PWD/build}
BENCH=$BUILD/benchmarks/cclx-adaptive-late
TOPO=$BUILD/tools/cclx-topo
OUT=${OUT:-/tmp/cclx-adaptive-campaign}
BYTES=${BYTES:-4194304}
ITERS=${ITERS:-4}
REPEAT=${REPEAT:-3}
JITTERS=${JITTERS:-0 40 80 150}
DELAYS=${DELAYS:-300 1000}
BUILT=benchmarks/results/adaptive-topologies
WAITING=native,ring,rhd,stragglar,straggler_aware
mkdir -p "$OUT"
trap '$TB down >/dev/null 2>&1 || true' EXIT

up() { $TB up --force --slow-start-after-idle off --hosts 8 --rate 200mbit "$@" 2>&1 | tail -1; }
run() { # run NAME CMD...: one job; stdout to $OUT/NAME.json, stderr and notes to $OUT/NAME.log
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/$name.log"
  echo "cmd: $TB run --idle block --timeout 900 --env CCLX_HANDSHAKE_BYTES=256K -- $*" >> "$OUT/$name.log"
  $TB run --idle block --timeout 900 --env CCLX_HANDSHAKE_BYTES=256K -- "$@" \
    > "$OUT/$name.json" 2>> "$OUT/$name.log"
  echo "   done in $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/$name.log"
}
profile() { # profile NAME: the testbed as cclx-topo measures it
  run "topo-$1-stdout" "$TOPO" --json "$OUT/topo-$1.json" --budget-s 30 --max-bytes 4194304
}
bench() { # bench NAME BUILT_TOPOLOGY PROFILE ARGS...
  local name=$1 built=$2 prof=$3; shift 3
  run "$name" "$BENCH" --loop --json --bytes "$BYTES" --iters "$ITERS" --repeat "$REPEAT" \
    --algos "$WAITING,adaptive,adaptive=$PWD/$BUILT/$built.json" --topology "$OUT/topo-$prof.json" "$@"
}

for phase in "$@"; do
  case $phase in
    slow8)
      up --rate-of h3=50mbit; profile slow8
      bench slow8 testbed8-slow3 slow8 --late-ms 0 ;;
    classes8)
      up --rate-of h4=50mbit --rate-of h5=50mbit --rate-of h6=50mbit --rate-of h7=50mbit
      profile classes8
      bench classes8 testbed8-two-classes classes8 --late-ms 0 ;;
    jitter8)
      up; profile uniform8
      for j in $JITTERS; do bench "jitter8-j$j" testbed8 uniform8 --late-ms 0 --jitter-ms "$j"; done ;;
    slowrank8)
      up; [[ -f $OUT/topo-uniform8.json ]] || profile uniform8
      for d in $DELAYS; do bench "slowrank8-d$d" testbed8 uniform8 --late-rank 7 --late-ms "$d"; done ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
