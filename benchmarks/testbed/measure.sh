#!/bin/bash
# measure.sh: the measurements behind docs/testbed.md, with the exact commands.
# Usage: sudo benchmarks/testbed/measure.sh [section...] 2>&1 | tee /tmp/testbed-measure.log
# Sections: rate rndv finalize idle gso (default: all). Uses its own testbed prefix
# (cclxtbm) so it never touches a testbed someone else brought up; tears it down on exit.
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
export CCLX_TESTBED_PREFIX=${CCLX_TESTBED_PREFIX:-cclxtbm}
TB=$HERE/cclx-testbed
T=$("$TB" build | head -1)
trap '"$TB" down >/dev/null 2>&1 || true' EXIT

say() { printf '\n### %s\n(load average: %s)\n' "$*" "$(cut -d' ' -f1-3 /proc/loadavg)"; }
cmd() { printf '$ %s\n' "$*"; "$@" 2>&1 | grep -v '^\[cclx-testbed\] run:' || true; }
# busy core-seconds (user+system+softirq, all cores) spent while running "$@"
cpu_of() {
  local a b
  a=$(awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat)
  "$@" 2>&1 | grep -v '^\[cclx-testbed\] run:' || true
  b=$(awk '/^cpu / {print $2+$3+$4+$7+$8}' /proc/stat)
  awk -v a="$a" -v b="$b" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "busy_core_seconds=%.2f\n", (b - a) / hz }'
}
up() { "$TB" down >/dev/null 2>&1; printf '$ cclx-testbed up %s\n' "$*"; "$TB" up "$@"; }

sections=${*:-rate rndv finalize idle gso}

for s in $sections; do
  case $s in
  rate)
    say "rate: one-way 16 MiB rank0->rank1, achieved vs configured (expect ~95.6%)"
    for r in 50mbit 200mbit 1gbit; do
      up --hosts 2 --rate "$r"
      cmd "$TB" run --timeout 300 -- "$T" bw -s 16M -i 10
    done
    say "rate: heterogeneous: h1 at 50mbit, h0 at 200mbit (the slower link bounds the transfer)"
    up --hosts 2 --rate 200mbit --rate-of h1=50mbit
    cmd "$TB" run --timeout 300 -- "$T" bw -s 16M -i 5
    ;;
  rndv)
    say "rndv: 16 MiB exchange (MPI_Sendrecv) between 2 hosts at 200mbit, 3 jobs x 10 iterations each"
    up --hosts 2 --rate 200mbit
    for v in auto inf; do
      for _ in 1 2 3; do
        cmd "$TB" run --timeout 300 --env UCX_RNDV_THRESH=$v -- "$T" xchg -s 16M -i 10
      done
    done
    ;;
  finalize)
    say "finalize: 8 hosts, ranks reach MPI_Finalize 30 ms apart (tbcheck fin -d 30 -B), 10 jobs per variant, 20 s timeout each"
    up --hosts 8 --rate 200mbit
    for v in off barrier noclose on; do
      ok=0 hang=0
      for _ in $(seq 1 10); do
        if [[ $v == off ]]; then
          args=(--finalize-fix off)
        elif [[ $v == on ]]; then
          args=(--finalize-fix on)
        else
          args=(--finalize-fix on --env "CCLXTB_FINALIZE_FIX=$v")
        fi
        if "$TB" run "${args[@]}" --timeout 20 -- "$T" fin -d 30 -B >/dev/null 2>&1; then
          ok=$((ok + 1))
        else
          hang=$((hang + 1))
        fi
      done
      echo "finalize-fix=$v: completed=$ok hung(timeout)=$hang  [cclx-testbed run ${args[*]} --timeout 20 -- tbcheck fin -d 30 -B]"
    done
    ;;
  idle)
    say "idle: 8-byte ping-pong h0<->h1 (100 round trips x 20), other ranks wait in MPI_Barrier"
    up --hosts 8 --rate 200mbit
    for idle in poll block; do
      for np in 2 8; do
        for _ in 1 2 3; do
          cmd "$TB" run --np $np --idle $idle --timeout 300 -- "$T" lat -s 8 -i 20
        done
      done
    done
    say "idle: bandwidth must not suffer from blocking (16 MiB one-way, 8 ranks)"
    for idle in poll block; do
      cmd "$TB" run --idle $idle --timeout 300 -- "$T" bw -s 16M -i 5
    done
    ;;
  gso)
    say "gso: tbf burst >= GSO super-packet (gso on, burst 80k) vs tbf splitting (gso on, burst 16k) vs no GSO/TSO (gso off, burst 16k); 2 x 64 MiB exchange per job, 3 jobs"
    for r in 200mbit 2gbit; do
      for cfg in on:81920 on:16384 off:16384; do
        gso=${cfg%:*} burst=${cfg#*:}
        up --hosts 2 --rate "$r" --gso "$gso" --burst "$burst"
        for _ in 1 2 3; do
          printf '$ cclx-testbed run --np 2 -- tbcheck xchg -s 64M -i 2 -w 0   (rate %s, gso %s, burst %s)\n' "$r" "$gso" "$burst"
          cpu_of "$TB" run --timeout 300 -- "$T" xchg -s 64M -i 2 -w 0
        done
      done
    done
    ;;
  *) echo "unknown section $s" >&2; exit 2 ;;
  esac
done
