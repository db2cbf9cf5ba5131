#!/usr/bin/env bash
# An MPI program built without cclx, run unchanged through libcclx-mpi.so (LD_PRELOAD):
#
#   preload_check.sh MPIEXEC mpich|openmpi LIBRARY APP NPROCS [MPIEXEC FLAGS...]
#
# Runs APP under MPIEXEC natively and with the library preloaded (CCLX_ALGO choosing scheduled
# algorithms); the two outputs must be identical and the preloaded run must print nothing more
# (the library is silent), and the library's report must show that it served the collectives and
# passed through what it does not serve.
set -euo pipefail
mpiexec=$1 flavour=$2 lib=$3 app=$4 np=$5
shift 5
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The library first, then what the environment preloads already (the tests' yield wrapper).
lib+=${LD_PRELOAD:+ $LD_PRELOAD}
if [[ $flavour == openmpi ]]; then preload=(-x "LD_PRELOAD=$lib"); else preload=(-genv LD_PRELOAD "$lib"); fi

"$mpiexec" "$@" -n "$np" "$app" >"$work/native.out" 2>"$work/native.err"
if ! "$here/run.sh" --algo ring \
  --expect '^allreduce cclx ring [1-9]' --expect '^reduce_scatter cclx ring [1-9]' \
  --expect '^allgather cclx ring [1-9]' --expect '^alltoall cclx ring' \
  --expect '^bcast cclx binomial_tree [1-9]' --expect '^reduce cclx binomial_tree [1-9]' \
  --expect '^gather cclx binomial_tree [1-9]' --expect '^scatter cclx binomial_tree [1-9]' \
  --expect '^barrier cclx dissemination [1-9]' --expect '^allgatherv cclx ring [1-9]' \
  --expect '^iallreduce cclx ring [1-9]' \
  --expect '^gatherv passthrough - [1-9][0-9]* counts significant at the root only' \
  -- "$mpiexec" "$@" "${preload[@]}" -n "$np" "$app" >"$work/preload.out" 2>"$work/preload.err"
then
  cat "$work/preload.out" "$work/preload.err" >&2
  exit 1
fi

if ! diff -u "$work/native.out" "$work/preload.out"; then
  echo "preload_check: the output differs with libcclx-mpi preloaded" >&2
  exit 1
fi
if ! diff -u "$work/native.err" "$work/preload.err"; then
  echo "preload_check: libcclx-mpi printed something (it must be silent without CCLX_LOG)" >&2
  exit 1
fi
echo "preload_check: identical output ($(wc -l <"$work/native.out") lines) with and without $lib"
