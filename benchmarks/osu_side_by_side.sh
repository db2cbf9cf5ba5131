#!/usr/bin/env bash
# One collective, OSU-style, twice: the MPI library's own collective (`cclx-bench --osu`, native:
# plain MPI calls, as OSU makes them) and the same unmodified binary with libcclx-mpi.so preloaded
# and CCLX_ALGO choosing a cclx algorithm (or algo::Auto choosing). Prints both latencies per size
# and their ratio, and the preload library's report of which calls it served (docs/osu.md,
# docs/preload.md).
#
#   benchmarks/osu_side_by_side.sh [-n RANKS] [-a ALGO] [-r REPEAT] [-B BUILD_DIR] COLLECTIVE \
#       [OSU options, e.g. -m 8:4194304 -T mpi_float]
#
# -a: a CCLX_ALGO candidate (default ring), or auto (CCLX_ALGO unset: algo::Auto decides); -r: runs
# of each, alternating, the median per size is shown (default 3); -B: the build tree with
# benchmarks/cclx-bench and shim/libcclx-mpi.so (default build; build-openmpi for Open MPI, built
# with -DCCLX_BUILD_BENCHMARKS=ON). The launcher is the one the build tree was configured with
# (MPIEXEC overrides it); for Open MPI the script passes -x and --oversubscribe, for MPICH -genv.
# Reductions need -T mpi_int or mpi_float (OSU's default MPI_CHAR has no cclx reduction: the
# preload library passes it through); without -T the script adds -T mpi_float (not for barrier).
set -euo pipefail

ranks=2 algo=ring repeat=3 build=build
while getopts "n:a:r:B:h" opt; do
  case $opt in
    n) ranks=$OPTARG ;;
    a) algo=$OPTARG ;;
    r) repeat=$OPTARG ;;
    B) build=$OPTARG ;;
    *) sed -n '2,18p' "$0" >&2; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[[ $# -ge 1 ]] || { sed -n '2,18p' "$0" >&2; exit 2; }
coll=$1
shift
osu_args=("$@")
[[ $coll == barrier || " ${osu_args[*]} " == *" -T "* ]] || osu_args+=(-T mpi_float)

bench=$build/benchmarks/cclx-bench
shim=$(cd "$(dirname "$build/shim/libcclx-mpi.so")" && pwd)/libcclx-mpi.so
[[ -x $bench && -f $shim ]] || {
  echo "osu_side_by_side: build $bench and $shim first" \
    "(cmake --build --preset release --target cclx-bench cclx-mpi)" >&2
  exit 2
}
# The launcher of the MPI the build tree uses: a binary run by another MPI's mpiexec starts as N
# separate one-rank jobs.
configured=$(sed -n 's/^MPIEXEC_EXECUTABLE:[A-Z]*=//p' "$build/CMakeCache.txt" 2>/dev/null || true)
mpiexec=${MPIEXEC:-${configured:-mpiexec}}
launch=()
if "$mpiexec" --version 2>&1 | grep -qi "open mpi\|open-mpi\|openrte"; then
  env_flag=-x
  # As the tests run it: more ranks than free cores on a shared machine, no binding; as root
  # Open MPI refuses to start without being told.
  launch=(--oversubscribe --bind-to none)
  ((EUID != 0)) || launch+=(--allow-run-as-root)
else
  env_flag=-genv
fi
if [[ $algo == auto ]]; then
  algo_env=()  # CCLX_ALGO unset: algo::Auto's model (or CCLX_TUNE_FILE, CCLX_TUNE) decides
  algo_text="(unset: algo::Auto)"
else
  algo_env=(CCLX_ALGO="$coll:*=$algo")
  algo_text="'$coll:*=$algo'"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
native_cmd=("$mpiexec" "${launch[@]}" -n "$ranks" "$bench" --osu "$coll" "${osu_args[@]}")
cclx_cmd=("$mpiexec" "${launch[@]}" -n "$ranks" "$env_flag" LD_PRELOAD="$shim" "$bench" --osu
  "$coll" "${osu_args[@]}")
for ((r = 0; r < repeat; ++r)); do
  # Alternate the order so that drift in the machine's load hits both alike.
  if ((r % 2 == 0)); then order="native cclx"; else order="cclx native"; fi
  for side in $order; do
    if [[ $side == native ]]; then
      "${native_cmd[@]}" >"$tmp/native.$r"
    else
      env -u CCLX_ALGO "${algo_env[@]}" CCLX_SHIM_REPORT="$tmp/report.$r" "${cclx_cmd[@]}" \
        >"$tmp/cclx.$r"
    fi
  done
done

echo "# OSU 7.4-format $coll, $ranks ranks, median of $repeat alternating runs per side"
echo "# MPI:  ${native_cmd[*]}"
echo "# cclx: CCLX_ALGO=$algo_text ${cclx_cmd[*]}"
grep -m1 '^# Datatype' "$tmp/native.0" || true
python3 - "$tmp" "$repeat" "$algo" <<'EOF'
import statistics, sys
tmp, repeat, algo = sys.argv[1], int(sys.argv[2]), sys.argv[3]
def rows(path):
    out = {}
    for line in open(path):
        f = line.split()
        if f and (f[0].isdigit() or f[0][0].isdigit()):
            key = int(f[0]) if len(f) > 1 else 0  # barrier rows have no size
            out.setdefault(key, float(f[1] if len(f) > 1 else f[0]))
    return out
runs = {side: [rows(f"{tmp}/{side}.{r}") for r in range(repeat)] for side in ("native", "cclx")}
sizes = sorted(set().union(*runs["native"]))
label = f"cclx {algo}(us)"
w = max(20, len(label) + 2)
print("%-10s%20s%*s%12s" % ("# Size", "MPI(us)", w, label, "MPI/cclx"))
for s in sizes:
    a = statistics.median(r[s] for r in runs["native"] if s in r)
    b = statistics.median(r[s] for r in runs["cclx"] if s in r)
    print("%-10d%20.2f%*.2f%12.2f" % (s, a, w, b, a / b if b > 0 else float("nan")))
EOF
echo "# MPI/cclx > 1: cclx's algorithm is faster. What libcclx-mpi.so served (last run):"
sed 's/^/#   /' "$tmp/report.$((repeat - 1))"
