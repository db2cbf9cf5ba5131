#!/usr/bin/env bash
# What algo::Auto's model costs for a first decision at scale: wall time and peak memory of
# `cclx-tune explain` (the model ranking every candidate of an allreduce of 16 MiB) on 64 to 4096
# ranks, with no host map, on one host, and on hosts of 32 to 128 consecutive ranks
# (docs/tuning.md, "Model"). Each rank of a communicator pays this once per collective and size
# that Auto decides by its model. With a second build directory, its cclx-tune runs beside the
# first (a baseline), so that one table compares them.
#
#   bash benchmarks/model_cost.sh [build-dir] [baseline-build-dir]   (default: build)
#
# Every CCLX_* variable is removed, so that the model decides (no CCLX_ALGO, no tuning table).
# Prints a Markdown table on stdout: seconds (GNU time's %e) and peak resident MB (%M).
set -euo pipefail
builds=("${1:-build}")
[[ $# -ge 2 ]] && builds+=("$2")
for b in "${builds[@]}"; do
  [[ -x $b/tools/cclx-tune ]] || { echo "model_cost.sh: $b/tools/cclx-tune not built" >&2; exit 2; }
done
[[ -x /usr/bin/time ]] || { echo "model_cost.sh: /usr/bin/time (GNU time) not found" >&2; exit 2; }
while IFS= read -r name; do unset "$name"; done < <(compgen -e | grep '^CCLX_')

header="| ranks | ranks per host | size"
rule="|---|---|---"
for b in "${builds[@]}"; do
  header+=" | $b: s | $b: MB"
  rule+="|---|---"
done
echo "$header |"
echo "$rule|"
# "ranks ranks-per-host": 0 = no host map (every rank its own host, as far as the model knows).
for c in "64 0" "256 0" "1024 0" "4096 0" "1024 1024" "4096 4096" "256 32" "1024 64" "4096 128"; do
  read -r n k <<<"$c"
  args=(explain --collective allreduce --n "$n" --bytes 16M)
  ((k > 0)) && args+=(--ranks-per-host "$k")
  row="| $n | $( ((k > 0)) && echo "$k" || echo -) | 16 MiB"
  for b in "${builds[@]}"; do
    read -r secs kb < <({ /usr/bin/time -f '%e %M' "$b/tools/cclx-tune" "${args[@]}" >/dev/null; } 2>&1 | tail -1)
    row+=" | $secs | $((kb / 1024))"
  done
  echo "$row |"
done
