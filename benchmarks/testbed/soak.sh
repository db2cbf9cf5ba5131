#!/bin/bash
# soak.sh: reliability check of the testbed: CYCLES consecutive up/run/down cycles
# (default 10, 8 hosts), each running the shm check, a staggered-finalize job (the
# MPICH+UCX finalize hang reproducer), a 4 MiB transfer and an 8-rank latency job with
# idle blocking; after every cycle nothing may be left behind: no namespace of ours,
# root-namespace links and qdiscs unchanged, no process of ours.
# Usage: sudo benchmarks/testbed/soak.sh [--cycles N] [--hosts N] [--rate R]
# Exit 0 when every cycle passed. Uses its own prefix (cclxtbsoak).
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
export CCLX_TESTBED_PREFIX=${CCLX_TESTBED_PREFIX:-cclxtbsoak}
TB=$HERE/cclx-testbed
cycles=10 hosts=8 rate=200mbit
while [[ $# -gt 0 ]]; do
  case $1 in
    --cycles) cycles=$2; shift 2 ;;
    --hosts) hosts=$2; shift 2 ;;
    --rate) rate=$2; shift 2 ;;
    *) echo "soak.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
T=$("$TB" build | sed -n 1p)  # sed reads all: head could make build die of SIGPIPE
build_dir=$(dirname "$T")
trap '"$TB" down >/dev/null 2>&1 || true' EXIT
"$TB" down >/dev/null 2>&1 || true

links_before=$(ip -o link show | awk -F': ' '{print $2}' | sort)
qdiscs_before=$(tc qdisc show | sort)

our_procs() { # processes that can only be ours: our tbcheck build, proxies/mpiexec of this testbed
  {
    pgrep -f "^$build_dir/tbcheck" || true
    pgrep -f "hydra_pmi_proxy --control-port 10\\.77\\.0\\.254:" || true
    pgrep -f "launcher-exec $HERE/netns-launch" || true
  } | sort -u | tr '\n' ' '
}

fail=0
for ((c = 1; c <= cycles; c++)); do
  t0=$SECONDS
  status=ok
  "$TB" up --hosts "$hosts" --rate "$rate" 2>/dev/null || status="up-failed"
  if [[ $status == ok ]]; then
    "$TB" run --timeout 60 -- "$T" shm >/dev/null 2>&1 || status="shm-failed(rc=$?)"
  fi
  if [[ $status == ok ]]; then
    "$TB" run --timeout 60 -- "$T" fin -d 30 -B >/dev/null 2>&1 || status="fin-failed(rc=$?)"
  fi
  if [[ $status == ok ]]; then
    out=$("$TB" run --np 2 --timeout 60 -- "$T" bw -s 4M -i 3 -w 1 2>/dev/null) || status="bw-failed"
    rate_got=$(sed -n 's/.*rate_mbit=\([0-9.]*\).*/\1/p' <<<"$out")
  fi
  if [[ $status == ok ]]; then
    "$TB" run --idle block --timeout 60 -- "$T" lat -s 8 -i 3 >/dev/null 2>&1 ||
      status="lat-block-failed(rc=$?)"
  fi
  "$TB" down 2>/dev/null || status="$status,down-failed"
  # nothing left behind
  left_ns=$(ip netns list | awk '{print $1}' | grep -E "^${CCLX_TESTBED_PREFIX}-" || true)
  [[ -z $left_ns ]] || status="$status,leftover-namespaces:$(tr '\n' ' ' <<<"$left_ns")"
  [[ $(ip -o link show | awk -F': ' '{print $2}' | sort) == "$links_before" ]] ||
    status="$status,root-links-changed"
  [[ $(tc qdisc show | sort) == "$qdiscs_before" ]] || status="$status,root-qdiscs-changed"
  procs=$(our_procs)
  [[ -z ${procs// /} ]] || status="$status,leftover-processes:$procs"
  [[ ! -e /run/$CCLX_TESTBED_PREFIX ]] || status="$status,leftover-state-dir"
  printf 'cycle %2d/%d: %-4s %3ss  (bw 4 MiB h0->h1: %s Mbit/s)\n' "$c" "$cycles" \
    "$([[ $status == ok ]] && echo PASS || echo FAIL)" "$((SECONDS - t0))" "${rate_got:-?}"
  [[ $status == ok ]] || { echo "  -> $status"; fail=$((fail + 1)); }
done
echo "soak: $((cycles - fail))/$cycles cycles passed (hosts=$hosts rate=$rate prefix=$CCLX_TESTBED_PREFIX)"
[[ $fail -eq 0 ]]
