#!/bin/bash
# smoke-test.sh: opt-in ctest smoke test of the emulated testbed (ctest -R testbed_smoke).
# Brings up 2 emulated hosts (own prefix cclxtbsmoke), runs a tiny MPI job (shm check +
# 1 MiB transfer), then 2 ranks per host (node check; intra-host traffic must not touch the
# shaped links' tbf counters, inter-host traffic must; the node check with the ranks dealt round
# the hosts), then 2 NICs per host, and tears everything down. Exit 77 (ctest SKIP_RETURN_CODE) with a
# message when not enabled (CCLX_TESTBED_TESTS=1) or unavailable (not root, no network
# namespaces, no mpicc/mpiexec).
set -euo pipefail
HERE=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
skip() { echo "SKIPPED: $*"; exit 77; }

[[ ${CCLX_TESTBED_TESTS:-0} == 1 ]] ||
  skip "testbed smoke test is opt-in: set CCLX_TESTBED_TESTS=1 to run it (needs root and network namespaces)"
[[ $(id -u) -eq 0 ]] || skip "testbed smoke test needs root (network namespaces, veth, tc)"
if ! command -v mpicc >/dev/null || ! command -v mpiexec >/dev/null; then
  skip "testbed smoke test needs mpicc and mpiexec"
fi

export CCLX_TESTBED_PREFIX=cclxtbsmoke
TB=$HERE/cclx-testbed
trap '"$TB" down >/dev/null 2>&1 || true' EXIT
"$TB" down >/dev/null 2>&1 || true

rc=0
"$TB" up --hosts 2 --rate 200mbit || rc=$?
[[ $rc -ne 77 ]] || skip "network namespaces (or veth/bridge/tbf) are unavailable here"
[[ $rc -eq 0 ]] || { echo "FAIL: cclx-testbed up (rc=$rc)"; exit 1; }
T=$("$TB" build | sed -n 1p)  # sed reads all: head could make build die of SIGPIPE
"$TB" run --timeout 60 -- "$T" shm || { echo "FAIL: shm check"; exit 1; }
out=$("$TB" run --timeout 60 -- "$T" bw -s 1M -i 3 -w 1) || { echo "FAIL: bw job"; exit 1; }
echo "$out"
grep -q 'rate_mbit=' <<<"$out" || { echo "FAIL: no rate reported"; exit 1; }
# 2 ranks per host: MPI_COMM_TYPE_SHARED groups are the hosts, and an exchange between the two
# ranks of h0 leaves the tbf byte counters alone while one between h0 and h1 crosses them
"$TB" check --ranks-per-host 2 --size 1M --skip-rate ||
  { echo "FAIL: 2 ranks per host: node check or intra-host traffic check"; exit 1; }
# dealt round the hosts: ranks 0 and 2 on h0, 1 and 3 on h1, and the groups are still the hosts
out=$("$TB" run --ranks-per-host 2 --placement cyclic --idle block --timeout 60 -- "$T" shm -k 2) ||
  { echo "FAIL: cyclic placement: node check"; echo "$out"; exit 1; }
if ! grep -q 'rank 2 host cclxtbsmoke-h0 ' <<<"$out" || ! grep -q 'rank 1 host cclxtbsmoke-h1 ' <<<"$out"; then
  echo "FAIL: cyclic placement: ranks not dealt round the hosts"
  echo "$out"
  exit 1
fi
"$TB" down
# 2 NICs per host: a rank listens on rail (local rank mod 2). Rank 0 (h0) sends 3 x 1 MiB to
# rank 3 (h1, rail 1): the connection rank 0 makes to rank 3 leaves h0 on rail 1, not rail 0.
"$TB" up --hosts 2 --nics-per-host 2 --rate 200mbit || { echo "FAIL: up with 2 NICs"; exit 1; }
sent() { tc -n "$CCLX_TESTBED_PREFIX-h0" -s qdisc show dev "$1" | awk '/Sent/ {print $2; exit}'; }
up0=$(sent tb0) up1=$(sent tb1)
"$TB" run --ranks-per-host 2 --idle block --timeout 60 -- "$T" bw -s 1M -i 3 -w 0 -p 3 >/dev/null ||
  { echo "FAIL: transfer with 2 NICs per host"; exit 1; }
up0=$(($(sent tb0) - up0)) up1=$(($(sent tb1) - up1))
echo "2 NICs: h0 sent $up1 bytes on rail 1 and $up0 on rail 0 (3 x 1048576 to rank 3, on rail 1)"
((up1 >= 3 * 1048576 && up0 < 1048576)) ||
  { echo "FAIL: 2 NICs per host: the transfer did not take rank 3's rail"; exit 1; }
"$TB" down
left=$(ip netns list | awk '{print $1}' | grep -E "^${CCLX_TESTBED_PREFIX}-" || true)
[[ -z $left ]] || { echo "FAIL: namespaces left behind: $left"; exit 1; }
echo "PASS: testbed smoke test (2 hosts up, MPI job, 2 ranks per host in blocks and dealt round, 2 NICs per host, down, nothing left)"
