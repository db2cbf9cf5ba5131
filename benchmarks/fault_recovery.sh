#!/usr/bin/env bash
# How long survivors take to go on after a rank dies (docs/faults.md): the fault test's shrink
# scenario (a rank dies in the middle of an allreduce; the survivors name it, shrink, and run a
# correct allreduce and barrier) REPS times at 8 ranks (one round per algorithm, 8 ranks down to 2)
# and at 4, and the trainer losing rank 2 of 4 in iteration ITER (--survive), for each deadline.
# MPICH hydra (-disable-auto-cleanup); UCX_TLS=^cma (docs/faults.md).
#
#   bash benchmarks/fault_recovery.sh [-b BUILD] [-o OUT_DIR] [-r REPS] [-t "1 2"]
#
# OUT_DIR gets recovery.csv (deadline, algorithm, ranks, rank, seconds from the failed call's start
# to the end of the first barrier on the shrunken communicator), trainer-<deadline>s.csv (the
# trainer's per-iteration CSV) and the logs; prints the median and maximum per deadline.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
build=$root/build out=fault-recovery reps=3 deadlines="1 2"
while getopts "b:o:r:t:" opt; do
  case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    r) reps=$OPTARG ;;
    t) deadlines=$OPTARG ;;
    *) exit 2 ;;
  esac
done
fault=$build/tests/cclx-fault-test
trainer=$build/examples/trainer/cclx-trainer
[[ -x $fault && -x $trainer ]] || { echo "fault_recovery.sh: build $build first" >&2; exit 2; }
mkdir -p "$out"
export UCX_TLS=^cma CCLX_WAIT=backoff
launch=(mpiexec -disable-auto-cleanup -bind-to none)

echo "deadline_s,algorithm,ranks,rank,seconds" >"$out/recovery.csv"
for t in $deadlines; do
  for rep in $(seq 1 "$reps"); do
    for job in "8 native,ring,rhd,recursive_doubling,binomial_tree,pipelined_tree" \
      "4 stragglar,canonical_halving"; do
      n=${job%% *} algos=${job#* }
      log=$out/shrink-${t}s-n$n-r$rep.log
      CCLX_TIMEOUT=$t timeout 300 "${launch[@]}" -n "$n" "$fault" shrink "$algos" >"$log" 2>&1 || true
      # "round K (ALGO, M ranks): rank R: PASS ... done S s after the fault" (MPI's error text
      # may span lines, so records are split at their prefix)
      /usr/bin/python3 - "$log" "$t" >>"$out/recovery.csv" <<'PY'
import re, sys
text = open(sys.argv[1], errors="replace").read()
for rec in text.split("cclx-fault-test: ")[1:]:
    m = re.match(r"round \d+ \(([a-z_]+), (\d+) ranks\): rank (\d+): PASS.*done ([0-9.]+) s after",
                 rec, re.S)
    if m:
        print(sys.argv[2], *m.groups(), sep=",")
PY
    done
  done
  CCLX_TIMEOUT=$t timeout 300 "${launch[@]}" -n 4 "$trainer" --algo ring --mode persistent \
    --iters 200 --survive --exit-rank 2 --exit-iter 100 --csv "$out/trainer-${t}s.csv" \
    >"$out/trainer-${t}s.log" 2>&1 || true
done

/usr/bin/python3 - "$out" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(f"{sys.argv[1]}/recovery.csv")))
for t in sorted({r["deadline_s"] for r in rows}, key=float):
    s = [float(r["seconds"]) for r in rows if r["deadline_s"] == t]
    print(f"deadline {t} s: {len(s)} survivors, fault to first collective on the shrunken "
          f"communicator: median {statistics.median(s):.3f} s, max {max(s):.3f} s")
EOF
