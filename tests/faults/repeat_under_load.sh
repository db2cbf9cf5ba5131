#!/usr/bin/env bash
# The fault tests (ctest entries fault-*) ROUNDS times in a row while BUSY busy loops keep the
# cores occupied: their time checks (a deadline honoured, not much later than it) must hold on a
# loaded machine. Prints one line per round with the load average, then the verdict; exits 1 if a
# round failed (each round's ctest output: $TMPDIR/cclx-fault-load-<round>.log).
#
#   bash tests/faults/repeat_under_load.sh [BUILD_DIR (build)] [ROUNDS (20)] [BUSY (2)]
set -uo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
rounds=${2:-20}
busy=${3:-2}
logs=${TMPDIR:-/tmp}
pids=()
for ((i = 0; i < busy; ++i)); do
  bash -c 'while :; do :; done' &
  pids+=($!)
done
trap 'kill "${pids[@]}" 2>/dev/null' EXIT
start=$SECONDS
failed=0
for ((i = 1; i <= rounds; ++i)); do
  log=$logs/cclx-fault-load-$i.log
  if (cd "$build" && ctest -j2 -R '^fault-' --output-on-failure >"$log" 2>&1); then verdict=passed; else
    verdict=FAILED
    failed=$((failed + 1))
  fi
  echo "round $i: $verdict ($(grep -E 'tests passed' "$log")), load average $(cut -d' ' -f1 /proc/loadavg)"
done
echo "$((rounds - failed)) of $rounds rounds passed with $busy busy loops, $((SECONDS - start)) s"
((failed == 0))
