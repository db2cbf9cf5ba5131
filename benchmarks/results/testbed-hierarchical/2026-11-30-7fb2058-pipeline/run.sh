#!/bin/bash
# The allreduce comparisons of measure.sh hierarchical-pipeline (not its tuning table), on the testbed as it is now.
cd "$(dirname "$0")/../../../.." || exit 1  # the repository root; D ($1) is relative to it
export CCLX_TESTBED_PREFIX=cclxtbp
TB=benchmarks/testbed/cclx-testbed
BENCH=$PWD/build/benchmarks/cclx-bench
D=$1
trap '"$TB" down >/dev/null 2>&1 || true' EXIT
pipelined="multilane_rhd,multilane_rhd(pipeline=2),multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)"
"$TB" down >/dev/null 2>&1; "$TB" up --hosts 2 --rate 200mbit > "$D/allreduce-2x2.txt" 2>&1
printf '$ cclx-testbed run --ranks-per-host 2 --idle block --timeout 900 -- cclx-bench allreduce -m 1M:16M --algos "ring,rhd,%s,multilane_ring(pipeline=4)" --repeat 5\n' "$pipelined" >> "$D/allreduce-2x2.txt"
"$TB" run --ranks-per-host 2 --idle block --timeout 900 -- "$BENCH" allreduce -m 1M:16M \
  --algos "ring,rhd,$pipelined,multilane_ring(pipeline=4)" --repeat 5 >> "$D/allreduce-2x2.txt" 2>&1
for shape in "4 2" "2 4"; do
  read -r hosts k <<<"$shape"
  out="$D"/allreduce-${hosts}x${k}.txt
  "$TB" down >/dev/null 2>&1; "$TB" up --hosts "$hosts" --rate 200mbit > "$out" 2>&1
  printf '$ cclx-testbed run --ranks-per-host %s --idle block --timeout 1500 -- cclx-bench allreduce -m 1M:16M --algos "ring,rhd,multilane_rhd,multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)" --repeat 3\n' "$k" >> "$out"
  "$TB" run --ranks-per-host "$k" --idle block --timeout 1500 -- "$BENCH" allreduce \
    -m 1M:16M --algos "ring,rhd,multilane_rhd,multilane_rhd(pipeline=4),multilane_rhd(pipeline=8)" \
    --repeat 3 >> "$out" 2>&1
done
date -u +%FT%TZ > /tmp/pipe.end
