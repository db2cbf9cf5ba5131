#!/usr/bin/env bash
# The whole test suite (CI runs exactly this, .ci/run): install what is missing and build, then
#   1. MPICH (the default MPI), release preset (the test programs' own code at -O1): every test -
#      unit, MPI at N = 1..5, 7, 8 (StragglAR also at 6), tools, installed-tree consumer (CMake
#      and pkg-config), prototypes, clang-format on the tree, and check-mpi-test-cases (every test
#      case of cclx-mpi-tests runs in some entry);
#   2. Open MPI 4.1, release-openmpi preset (everything at -O1): build, then the MPI tests at
#      N = 2, 3 (grid, api, adaptive, stragglar), the fault tests (a stalled rank, a count
#      mismatch; dead-rank tests need hydra) and libcclx-mpi's tests (shim-*);
#   3. ASan + UBSan (MPICH), asan preset: the unit tests (sweeps to n = 12, without the scale tests)
#      the MPI tests at N = 3 and libcclx-mpi's linked-in tests at N = 2, 3 (the release stage
#      runs every rank count; these two check the MPI calls under another MPI and under the
#      sanitizers);
#   4. clang-tidy on the library (lint-tidy), unless CCLX_CI_TIDY=0.
# Every MPI test has a timeout (ctest's, and mpiexec's own MPIEXEC_TIMEOUT under both MPIs), so a
# deadlock fails instead of hanging. Each stage prints its wall time; all stages run, and the
# script fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."
bash cmake/setup.sh --no-bench || exit 1

failed=()
stage() {  # stage NAME COMMAND...
  local name=$1 t0=$SECONDS
  shift
  echo "=== cclx test stage: $name"
  if "$@"; then
    echo "=== cclx test stage: $name: passed in $((SECONDS - t0)) s"
  else
    echo "=== cclx test stage: $name: FAILED after $((SECONDS - t0)) s"
    failed+=("$name")
  fi
}

stage "mpich (release: full suite)" ctest --preset release

openmpi() {
  cmake --preset release-openmpi >/dev/null &&
    cmake --build --preset release-openmpi --target cclx-mpi-tests cclx-fault-test cclx-shim-tests &&
    ctest --preset release-openmpi
}
stage "openmpi (release-openmpi: MPI tests N = 2, 3, fault tests)" openmpi

asan() {
  cmake --preset asan >/dev/null &&
    cmake --build --preset asan --target cclx-unit-tests cclx-mpi-tests cclx-shim-tests &&
    ctest --preset asan
}
stage "asan+ubsan (asan: unit, MPI N = 3, libcclx-mpi N = 2, 3)" asan

if [[ "${CCLX_CI_TIDY:-1}" != 0 ]]; then
  stage "clang-tidy (lib/)" ctest --preset lint -R "^lint-tidy$"
fi

if ((${#failed[@]})); then
  printf 'cclx test.sh: FAILED stages:\n'
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "cclx test.sh: all stages passed"
