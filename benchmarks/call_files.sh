#!/usr/bin/env bash
# How many of cclx's own source files one collective call runs code from, counted with valgrind's
# callgrind on rank 0 of `mpiexec -n 2` (RelWithDebInfo build, cclx-call-files from
# benchmarks/call_files.cpp). Three cases, each an allreduce of 16 Ki floats (sum, in place):
#
#   first_ring   the communicator's first call with algo::Ring
#   repeat_ring  its second call with algo::Ring, after one warm-up call
#   first_auto   a fresh communicator's first call with algo::Auto (its own process)
#
# Each case is one run: rank 0 under callgrind, collecting only inside the wrapper function of the
# measured call (--toggle-collect), and rank 1 natively (an MPMD command line). A file counts
# when the call executes at least one instruction attributed to it (self cost, inlined code
# included: callgrind's fl=/fi=/fe= lines name each cost line's file); only files under the
# repository's include/ and lib/ count. For each case it prints the number of files, headers and
# sources apart, and the files (paths relative to the repository) with their instruction counts.
# The instruction counts vary a little from run to run: the engine polls MPI while it waits for
# rank 1, and how often depends on timing. Every CCLX_* variable is removed from the environment,
# so that algo::Auto decides from its defaults (no CCLX_ALGO, CCLX_TUNE or CCLX_TUNE_FILE).
#
#   bash benchmarks/call_files.sh [build-dir]
#
# build-dir (default: build-callgrind in the repository) is configured by the script when needed
# and only the cclx-call-files target is built (ccache when installed; CMAKE_BUILD_PARALLEL_LEVEL
# jobs, 2 by default). Progress goes to stderr, the counts to stdout.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
build=${1:-$root/build-callgrind}
cases=(first_ring repeat_ring first_auto)

for tool in cmake mpiexec valgrind; do
  command -v "$tool" >/dev/null || {
    echo "call_files.sh: $tool not found" >&2
    exit 2
  }
done

# ---- Build: RelWithDebInfo, no CUDA, no examples or tests, only the one target.
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
mkdir -p "$build"
build=$(cd "$build" && pwd -P)
echo "configuring $build" >&2
if ! cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCCLX_WITH_CUDA=OFF \
  -DCCLX_BUILD_EXAMPLES=OFF -DCCLX_BUILD_TESTS=OFF -DCCLX_BUILD_BENCHMARKS=ON \
  "${launcher[@]}" >"$build/call_files.configure.log" 2>&1; then
  cat "$build/call_files.configure.log" >&2
  exit 1
fi
echo "building cclx-call-files" >&2
cmake --build "$build" --target cclx-call-files -j "${CMAKE_BUILD_PARALLEL_LEVEL:-2}" >&2
prog=$build/benchmarks/cclx-call-files

# ---- The environment of the runs: no CCLX_* variable.
clean_env=(env)
while IFS= read -r name; do
  case "$name" in CCLX_*) clean_env+=(-u "$name") ;; esac
done < <(compgen -e)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Self instructions per file of a callgrind output file: "count<TAB>file" lines. A cost line
# belongs to the file named by the last fl=, fi= or fe= line; the cost line after calls= is the
# callee's inclusive cost and is skipped. Names may be compressed: "(id) name" defines id,
# "(id)" refers to it (one id space for every file-name line).
self_per_file() {
  awk '
    function file_name(s,   id) {
      if (match(s, /^\([0-9]+\)/)) {
        id = substr(s, 2, RLENGTH - 2)
        s = substr(s, RLENGTH + 1)
        sub(/^ /, "", s)
        if (s != "") names[id] = s
        return names[id]
      }
      return s
    }
    /^(fl|fi|fe)=/ { file = file_name(substr($0, 4)); next }
    /^(cfi|cfl|jfi)=/ { file_name(substr($0, 5)); next }
    /^calls=/ { skip = 1; next }
    /^[0-9+*-]/ {
      if (skip) { skip = 0; next }
      if (NF >= 2) cost[file] += $2
      next
    }
    END { for (f in cost) if (cost[f] > 0) printf "%d\t%s\n", cost[f], f }
  ' "$1"
}

commit=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if command -v mpichversion >/dev/null; then
  mpi=$(mpichversion | awk 'NR == 1 { $1 = $1; print }')
else
  mpi=$(mpiexec --version 2>&1 | awk 'NR == 1 { $1 = $1; print }')
fi
echo "cclx call files: commit $commit; $mpi; RelWithDebInfo; allreduce of 16 Ki floats, rank 0"\
  "of mpiexec -n 2 under callgrind; self instructions per file under include/ and lib/"

for c in "${cases[@]}"; do
  echo "running $c" >&2
  start=$SECONDS
  out=$work/$c.callgrind
  if ! "${clean_env[@]}" mpiexec -n 1 valgrind --tool=callgrind --log-file="$work/$c.valgrind" \
    --callgrind-out-file="$out" --collect-atstart=no --toggle-collect="$c" \
    --separate-threads=no --dump-instr=no --compress-strings=no --compress-pos=no "$prog" "$c" \
    : -n 1 "$prog" "$c" >"$work/$c.mpiexec" 2>&1; then
    echo "call_files.sh: $c failed" >&2
    cat "$work/$c.mpiexec" "$work/$c.valgrind" >&2
    exit 1
  fi
  echo "  $((SECONDS - start)) s" >&2
  if ! grep -Eq '^(summary|totals): *[1-9]' "$out"; then
    echo "call_files.sh: $c: nothing collected (is $c a symbol of $prog?)" >&2
    exit 1
  fi
  # The files under include/ and lib/, as paths relative to the repository (one file may reach
  # callgrind under several spellings: summed). Relative names are other projects' (their own
  # build directories'), never ours: the build names every file of the repository by its full path.
  self_per_file "$out" | while IFS=$'\t' read -r n f; do
    [[ $f == /* ]] || continue
    rel=$(realpath -m --relative-to="$root" "$f")
    case "$rel" in include/* | lib/*) printf '%s\t%s\n' "$rel" "$n" ;; esac
  done | awk -F '\t' '{ n[$1] += $2 } END { for (f in n) printf "%s\t%d\n", f, n[f] }' |
    LC_ALL=C sort >"$work/$c.files"
  headers=$(grep -cv $'\\.\\(cpp\\|cc\\|cu\\)\t' "$work/$c.files" || true)
  sources=$(grep -c $'\\.\\(cpp\\|cc\\|cu\\)\t' "$work/$c.files" || true)
  total=$(awk -F '\t' '{ s += $2 } END { print s + 0 }' "$work/$c.files")
  echo
  echo "$c: $((headers + sources)) files ($headers headers, $sources sources), $total instructions"
  awk -F '\t' '{ printf "  %10d  %s\n", $2, $1 }' "$work/$c.files"
done
