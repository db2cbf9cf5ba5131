#!/usr/bin/env bash
# Reduced testbed campaign of issue 5 (see docs/results-testbed.md). Run as root from the
# repository root:  benchmarks/testbed/campaign/run.sh PHASE...   (phases: base4 base8 strag8
# strag4 slow8 ssai8). Writes cclx-bench JSON and logs to $OUT (default /tmp/cclx-campaign); the
# testbed is always torn down on exit.
set -euo pipefail
TB=benchmarks/testbed/cclx-testbed
BENCH=${BENCH:-$PWD/build-campaign/benchmarks/cclx-bench}
OUT=${OUT:-/tmp/cclx-campaign}
ALGOS=native,ring,rhd,binomial_tree,stragglar
COMMON=(-i 1 -x 1 --repeat 3 --json)
mkdir -p "$OUT"
trap '$TB down >/dev/null 2>&1 || true' EXIT

up() { $TB up --force "$@" 2>&1 | tail -1; }
bench() { # bench NAME ARGS... : one job, JSON to $OUT/NAME.json, stderr+notes to $OUT/NAME.log
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name: uptime $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/$name.log"
  echo "cmd: $TB run --idle block --timeout 900 -- $BENCH allreduce $*" >> "$OUT/$name.log"
  $TB run --idle block --timeout 900 -- "$BENCH" allreduce "$@" > "$OUT/$name.json" 2>> "$OUT/$name.log"
  echo "   done in $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/$name.log"
}

for phase in "$@"; do
  case $phase in
    base4) up --hosts 4 --rate 200mbit; bench base-4 -m 1M:16M --algos $ALGOS "${COMMON[@]}" ;;
    base8) up --hosts 8 --rate 200mbit; bench base-8 -m 1M:16M --algos $ALGOS "${COMMON[@]}" ;;
    base8-64) up --hosts 8 --rate 200mbit; bench base-8-64M -m 64M:64M --algos native,ring,rhd,stragglar "${COMMON[@]}" ;;
    strag8)
      up --hosts 8 --rate 200mbit
      for d in ${DELAYS8:-0 300 600 1000}; do
        bench "strag-8-d$d" -m 16M:16M --algos native,ring,rhd,stragglar --straggler 7 --delay-ms "$d" "${COMMON[@]}"
      done ;;
    strag4)
      up --hosts 4 --rate 200mbit
      for d in ${DELAYS4:-0 300 600}; do
        bench "strag-4-d$d" -m 16M:16M --algos native,ring,rhd,stragglar --straggler 3 --delay-ms "$d" "${COMMON[@]}"
      done ;;
    ssai8) # diagnostic: TCP slow start after idle off in every host namespace (ours only)
      up --hosts 8 --rate 200mbit
      for i in 0 1 2 3 4 5 6 7; do ip netns exec "cclxtb-h$i" sysctl -q -w net.ipv4.tcp_slow_start_after_idle=0; done
      ip netns exec cclxtb-h0 sysctl net.ipv4.tcp_slow_start_after_idle
      bench ssai0-8 -m 4M:16M --algos native,ring,rhd,stragglar "${COMMON[@]}" ;;
    slow8) up --hosts 8 --rate 200mbit --rate-of h3=50mbit; bench slow-8 -m 4M:4M --algos $ALGOS "${COMMON[@]}" ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
