#!/usr/bin/env bash
# Testbed runs of algo::Auto (docs/tuning-results.md, "On the testbed"; data in
# benchmarks/results/auto-testbed/). Run as root from the
# repository root:
#   benchmarks/testbed/campaign/tuning.sh PHASE...
# Phases: tune4, tune8 (the tuning suite, benchmarks/tune.sh, on 4 / 8 hosts at 200 Mbit/s:
# allreduce and bcast over $SIZES, into $OUT/tune-Nhosts.json), auto8 (cclx-bench, Auto reading
# the 8-host table side by side with every fixed candidate over $SIZES), channels8 (ring and RHD
# allreduce, pipelined and binomial tree bcast at 1, 2 and 4 channels over $SIZES: does a split
# collective fill a TCP link better?). JSON, tables and logs go
# to $OUT (default /tmp/cclx-tuning-campaign); the testbed is always torn down on exit.
set -euo pipefail
TB=$PWD/benchmarks/testbed/cclx-testbed
BUILD=${BUILD:-$PWD/build}
OUT=${OUT:-/tmp/cclx-tuning-campaign}
SIZES=${SIZES:-1M:16M}
REPEAT=${REPEAT:-3}
ALGOS=${ALGOS:-native,ring,rhd,rhd_elimination,recursive_doubling,binomial_tree,pipelined_tree,stragglar}
RUN=(run --idle block --timeout 1800 --env CCLX_HANDSHAKE_BYTES=256K)
mkdir -p "$OUT"
trap '$TB down >/dev/null 2>&1 || true' EXIT

up() { $TB up --force --slow-start-after-idle off --rate 200mbit --hosts "$1" 2>&1 | tail -1; }
tune() { # tune HOSTS
  up "$1"
  echo "== tune $1 hosts: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
  benchmarks/tune.sh -o "$OUT/tune-$1hosts.json" -n "$1" -c allreduce,bcast -m "$SIZES" \
    -a "$ALGOS" -b "$BUILD" -l "$TB ${RUN[*]}" -- -i 1 -x 1 --repeat "$REPEAT"
  echo "   done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)"
}

for phase in "$@"; do
  case $phase in
    tune4) tune 4 ;;
    tune8) tune 8 ;;
    auto8)
      up 8
      for c in allreduce bcast; do
        echo "== auto8 $c: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/auto8-$c.log"
        $TB "${RUN[@]}" --env CCLX_TUNE_FILE="$OUT/tune-8hosts.json" -- "$BUILD/benchmarks/cclx-bench" \
          "$c" -m "$SIZES" --algos "auto,$ALGOS" --skip-unserving -i 1 -x 1 --repeat "$REPEAT" \
          > "$OUT/auto8-$c.txt" 2>> "$OUT/auto8-$c.log"
        echo "   done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/auto8-$c.log"
      done ;;
    channels8)
      up 8
      for c in allreduce bcast; do
        if [[ $c == allreduce ]]; then list='ring,ring(channels=2),ring(channels=4),rhd,rhd(channels=2),rhd(channels=4)'
        else list='pipelined_tree,pipelined_tree(channels=2),pipelined_tree(channels=4),binomial_tree,binomial_tree(channels=2)'; fi
        echo "== channels8 $c: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/channels8-$c.log"
        $TB "${RUN[@]}" -- "$BUILD/benchmarks/cclx-bench" "$c" -m "$SIZES" --algos "$list" \
          -i 1 -x 1 --repeat "$REPEAT" > "$OUT/channels8-$c.txt" 2>> "$OUT/channels8-$c.log"
        echo "   done $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/channels8-$c.log"
      done ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
