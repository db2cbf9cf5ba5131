#!/usr/bin/env bash
# Testbed campaign of cclx's allreduce (docs/results-testbed.md). Run as root from the repository root:
#   benchmarks/testbed/campaign/run.sh PHASE...
# Phases: base4 base8 base8-64 strag8 strag4 slow4 slow8 ablate8. Writes cclx-bench JSON and logs
# to $OUT (default /tmp/cclx-campaign); the testbed is always torn down on exit.
# TUNED=1 (default): hosts with TCP slow start after idle off and cclx's receiver-ready handshake
# for transfers >= 256 KiB (CCLX_HANDSHAKE_BYTES), on top of the testbed's run environment (which
# includes UCX_TCP_SNDBUF=65536); TUNED=0: the kernel's and UCX's defaults (slow start after idle
# on, UCX_TCP_SNDBUF=auto) and no handshake.
set -euo pipefail
TB=benchmarks/testbed/cclx-testbed
BENCH=${BENCH:-$PWD/build-campaign/benchmarks/cclx-bench}
OUT=${OUT:-/tmp/cclx-campaign}
TUNED=${TUNED:-1}
ALGOS=native,ring,rhd,binomial_tree,stragglar
COMMON=(-i 1 -x 1 --repeat "${REPEAT:-3}" --json)  # REPEAT: interleaved repetitions per point
if [[ $TUNED == 1 ]]; then
  UP_OPTS=(--slow-start-after-idle off)
  RUN_OPTS=(--env CCLX_HANDSHAKE_BYTES=256K)
else
  UP_OPTS=(--slow-start-after-idle on)
  RUN_OPTS=(--env UCX_TCP_SNDBUF=auto)
fi
mkdir -p "$OUT"
trap '$TB down >/dev/null 2>&1 || true' EXIT

up() { $TB up --force "${UP_OPTS[@]}" "$@" 2>&1 | tail -1; }
bench() { # bench NAME ARGS... : one job, JSON to $OUT/NAME.json, stderr+notes to $OUT/NAME.log
  local name=$1; shift
  local t0; t0=$(date +%s)
  echo "== $name: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/$name.log"
  echo "cmd: $TB run --idle block --timeout 900 ${RUN_OPTS[*]} -- $BENCH allreduce $*" >> "$OUT/$name.log"
  $TB run --idle block --timeout 900 "${RUN_OPTS[@]}" -- "$BENCH" allreduce "$@" \
    > "$OUT/$name.json" 2>> "$OUT/$name.log"
  echo "   done in $(( $(date +%s) - t0 )) s, load $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$OUT/$name.log"
}

for phase in "$@"; do
  case $phase in
    base4) up --hosts 4 --rate 200mbit; bench base-4 -m 1M:16M --algos $ALGOS "${COMMON[@]}" ;;
    base8) up --hosts 8 --rate 200mbit; bench base-8 -m 1M:16M --algos $ALGOS "${COMMON[@]}" ;;
    base8-64) up --hosts 8 --rate 200mbit; bench base-8-64M -m 32M:64M --algos native,ring,rhd,stragglar "${COMMON[@]}" ;;
    strag8)
      up --hosts 8 --rate 200mbit
      for d in ${DELAYS8:-0 300 600 1000 1500}; do
        bench "strag-8-d$d" -m 16M:16M --algos native,ring,rhd,stragglar --straggler 7 --delay-ms "$d" "${COMMON[@]}"
      done ;;
    strag4)
      up --hosts 4 --rate 200mbit
      for d in ${DELAYS4:-0 150 300 600}; do
        bench "strag-4-d$d" -m 16M:16M --algos native,ring,rhd,stragglar --straggler 3 --delay-ms "$d" "${COMMON[@]}"
      done ;;
    slow4) up --hosts 4 --rate 200mbit --rate-of h1=50mbit; bench slow-4 -m 4M:4M --algos $ALGOS "${COMMON[@]}" ;;
    slow8) up --hosts 8 --rate 200mbit --rate-of h3=50mbit; bench slow-8 -m 4M:4M --algos $ALGOS "${COMMON[@]}" ;;
    ablate8) # the handshake and slow start after idle one at a time, 8 hosts, 16 MiB (SNDBUF: ${SNDBUFS})
      for ssai in ${SSAIS:-on off}; do
        $TB up --force --hosts 8 --rate 200mbit --slow-start-after-idle $ssai 2>&1 | tail -1
        for sb in ${SNDBUFS:-auto}; do
          for hs in 0 256K; do
            name="ablate-8-ssai$ssai-hs$hs$([[ $sb == auto ]] || echo "-sb$sb")"
            echo "== $name: $(date -u +%H:%M:%S) load $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$OUT/$name.log"
            $TB run --idle block --timeout 900 --env CCLX_HANDSHAKE_BYTES=$hs --env UCX_TCP_SNDBUF=$sb \
              -- "$BENCH" allreduce -m 16M:16M --algos native,ring,rhd,stragglar "${COMMON[@]}" \
              > "$OUT/$name.json" 2>> "$OUT/$name.log"
          done
        done
      done ;;
    *) echo "unknown phase $phase" >&2; exit 2 ;;
  esac
done
