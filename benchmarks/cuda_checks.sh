#!/usr/bin/env bash
# The GPU checks of docs/cuda.md ("Checks on a GPU") in one run, for a GPU machine that has
# no MPI installed and reaches no package registry: the binaries and the MPI runtime come in KIT,
# made here by `benchmarks/cuda_checks.sh --pack KIT` after a release build with CUDA
# (cclx-cuda-tests, cclx-cuda-bench, cclx-ring-gap, cclx-proto-cma-fused).
#   benchmarks/cuda_checks.sh --pack KIT     collect binaries + MPICH/UCX runtime into KIT
#   benchmarks/cuda_checks.sh KIT OUT        run the checks; logs and a summary under OUT
# CCLX_CHECKS_ONLY=REGEX runs only the steps whose name matches.
# Every step has its own time limit, so one hang costs that step, not the run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
# shellcheck source-path=SCRIPTDIR source=mpich_kit.sh
source benchmarks/mpich_kit.sh

if [[ "${1:-}" == "--pack" ]]; then
  kit=$2
  rm -rf "$kit" && mkdir -p "$kit/bin" "$kit/lib/ucx"
  cp build/tests/cclx-cuda-tests build/benchmarks/cclx-cuda-bench build/benchmarks/cclx-ring-gap \
    "$kit/bin/"
  # The cross-memory ring prototype (docs/results-ring.md), to time it on the GPU machine's idle
  # cores too.
  cp build/benchmarks/cclx-proto-cma-fused "$kit/bin/cma-proto"
  # The installed-tree consumer (built by ctest's consumer_find_package against `cmake --install`).
  [[ -x build/tests/consumer/build/consumer_cuda ]] && cp build/tests/consumer/build/consumer_cuda "$kit/bin/"
  # The MPI runtime the binaries link.
  kit_mpich "$kit" "$kit"/bin/*
  strip --strip-unneeded "$kit"/bin/* "$kit"/lib/*.so* "$kit"/lib/ucx/*
  du -sh "$kit"
  exit 0
fi

kit=$(cd "$1" && pwd)
out=$2
deadline=${CCLX_CHECKS_DEADLINE_S:-330}  # no step starts after this many seconds
mkdir -p "$out"
kit_env "$kit"
export MPIEXEC_TIMEOUT=240
summary="$out/summary.txt"
: >"$summary"
step() {  # step NAME LIMIT_S COMMAND...: runs COMMAND with a time limit, logs to OUT/NAME.log
  local name=$1 limit=$2
  shift 2
  if [[ -n "${CCLX_CHECKS_ONLY:-}" && ! "$name" =~ $CCLX_CHECKS_ONLY ]]; then
    return
  fi
  if ((SECONDS > deadline)); then
    echo "$name: skipped (past the ${deadline}s deadline)" | tee -a "$summary"
    return
  fi
  local t0=$SECONDS
  timeout -k 5 "$limit" "$@" >"$out/$name.log" 2>&1
  local rc=$?
  printf '%-34s rc=%-3s %4ss  %s\n' "$name" "$rc" "$((SECONDS - t0))" \
    "$(grep -E 'test cases:|assertions:|^# device|ERROR|Error' "$out/$name.log" | head -4 |
      tr '\n' ' ' | cut -c1-160)" | tee -a "$summary"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee -a "$summary"
nproc | sed 's/^/cores: /' | tee -a "$summary"

tests="$kit/bin/cclx-cuda-tests"
bench="$kit/bin/cclx-cuda-bench"
# 1. Correctness, each test case alone (a failure that leaves ranks waiting costs one step);
#    N = 2 first, then the kernels' throughput and the staged allreduce, then N = 3 and 4.
cases=("cuda grid: allreduce*" "cuda grid: data movement*" "cuda streams*"
       "cuda grid: every collective*" "cuda nonblocking*")
grid() {
  local n=$1 c tag
  for c in "${cases[@]}"; do
    tag=$(echo "$c" | tr -cd '[:lower:]' | cut -c1-20)
    step "n$n-$tag" "$((n == 2 ? 60 : 150))" mpiexec -n "$n" "$tests" -tc="$c"
  done
}
step kernels-n1 45 mpiexec -n 1 "$tests" -tc="cuda kernels*"
grid 2
[[ -x "$kit/bin/consumer_cuda" ]] && step consumer-cuda-n2 30 mpiexec -n 2 "$kit/bin/consumer_cuda"
# 2. Kernels against the device-to-device copy.
step bench-kernels 60 "$bench" kernels
# 3. Staged allreduce against host buffers, 1 KiB - 256 MiB.
for a in ring native; do
  step "bench-allreduce-n2-$a" 60 mpiexec -n 2 "$bench" allreduce --algo "$a"
done
# One rank: the staging copies and kernels without another process on the GPU.
step bench-allreduce-n1-ring 60 mpiexec -n 1 "$bench" allreduce --algo ring --max 1048576
CCLX_WAIT=backoff step bench-allreduce-n2-ring-backoff 60 mpiexec -n 2 "$bench" allreduce \
  --algo ring --max 1048576
# The large-message ring (docs/results-ring.md) on quiet, separate cores: the 2-rank 64 MiB ring against its bound.
step ring-gap-n2 30 mpiexec -bind-to core -n 2 "$kit/bin/cclx-ring-gap" 67108864 11 0 1048576
step cma-proto-n2 40 mpiexec -bind-to core -n 2 "$kit/bin/cma-proto" 67108864 11 262144 524288
grid 3
grid 4
CCLX_CUDA_GRID_MAX_BYTES=268435456 step n2-allreduce-256M 150 mpiexec -n 2 "$tests" \
  -tc="cuda grid: allreduce*"
CCLX_CUDA_CHUNK_BYTES=4194304 step bench-allreduce-n2-ring-chunk4M 60 \
  mpiexec -n 2 "$bench" allreduce --algo ring
step bench-allreduce-n4-ring 60 mpiexec -n 4 "$bench" allreduce --algo ring
cat "$summary"
tar -C "$out" -czf /tmp/cclx-logs.tgz . && find "$out" -name "*.log" -delete && mv /tmp/cclx-logs.tgz "$out/logs.tgz"
