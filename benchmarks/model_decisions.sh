#!/usr/bin/env bash
# The decisions of algo::Auto's model over a grid of requests across hosts, as `cclx-tune explain`
# prints them (the choice and every candidate's predicted time): allreduce, bcast, reduce,
# allgather and reduce_scatter on 8, 13, 65, 100 and 257 ranks, 200 KiB, 1 MiB, 3000001 B and
# 16 MiB, hosts of 2, 4 and 16 consecutive ranks, roots 0 and 5 for bcast and reduce (420
# requests). With a second build directory it prints the two builds' differences instead and
# exits 1 when there are any: a change to how the model estimates must not change what it decides.
#
#   bash benchmarks/model_decisions.sh [build-dir] [baseline-build-dir]   (default: build)
#
# Every CCLX_* variable is removed, so that the model decides (no CCLX_ALGO, no tuning table).
set -euo pipefail
builds=("${1:-build}")
[[ $# -ge 2 ]] && builds+=("$2")
for b in "${builds[@]}"; do
  [[ -x $b/tools/cclx-tune ]] || {
    echo "model_decisions.sh: $b/tools/cclx-tune not built" >&2
    exit 2
  }
done
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^CCLX_')

decisions() {
  local c n b k root
  for c in allreduce bcast reduce allgather reduce_scatter; do
    for n in 8 13 65 100 257; do
      for b in 200K 1M 3000001 16M; do
        for k in 2 4 16; do
          for root in 0 5; do
            [[ $c != bcast && $c != reduce && $root != 0 ]] && continue
            echo "== $c n=$n bytes=$b ranks-per-host=$k root=$root"
            "$1/tools/cclx-tune" explain --collective "$c" --n "$n" --bytes "$b" \
              --ranks-per-host "$k" --root "$root" 2>&1
          done
        done
      done
    done
  done
}

if [[ ${#builds[@]} -eq 1 ]]; then
  decisions "${builds[0]}"
  exit 0
fi
diff <(decisions "${builds[0]}") <(decisions "${builds[1]}") && echo "model_decisions.sh: the same decisions (420 requests)"
