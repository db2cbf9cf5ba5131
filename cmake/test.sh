#!/usr/bin/env bash
# The whole test suite (CI runs exactly this, .ci/run): install what is missing and build, then
#   1. MPICH (the default MPI), release preset (the test programs' own code at -O1): every test -
#      unit, MPI at N = 1..5, 7, 8 (StragglAR also at 6), tools, installed-tree consumer (CMake
#      and pkg-config), prototypes, clang-format on the tree, check-mpi-test-cases (every test
#      case of cclx-mpi-tests runs in some entry) and the docs' checks (Doxygen on include/cclx
#      without a warning, generated tables current);
#   2. Open MPI 4.1 under ASan + UBSan, built with clang, asan-openmpi preset (the library at
#      -O1, the test programs' own code at -O0): the unit tests (sweeps to n = 12, without the scale tests), the
#      MPI tests at N = 2, 3 (grid, api, adaptive, stragglar), the fault tests (a stalled rank, a
#      count mismatch; dead-rank tests need hydra) and libcclx-mpi's linked-in tests at N = 2, 3:
#      one build checks the MPI calls under the other MPI, the code under a second compiler (clang
#      compiles the test grids in half the time GCC takes with the sanitizers) and the memory
#      handling under the sanitizers (the presets release-openmpi and asan keep them apart, for
#      local use);
#   3. clang-tidy on the library (lint-tidy), unless CCLX_CI_TIDY=0.
# Every MPI test has a timeout (ctest's, and mpiexec's own MPIEXEC_TIMEOUT under both MPIs), so a
# deadlock fails instead of hanging. Each stage prints its wall time; all stages run, and the
# script fails if any did.
set -uo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
bash cmake/setup.sh --no-bench || exit 1
echo "=== cclx test stage: set-up and release build: done in $((SECONDS - t0)) s"

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

openmpi_asan() {
  cmake --preset asan-openmpi >/dev/null &&
    cmake --build --preset asan-openmpi --target cclx-unit-tests cclx-mpi-tests cclx-fault-test \
      cclx-shim-tests &&
    ctest --preset asan-openmpi
}
stage "openmpi + asan+ubsan (asan-openmpi: unit, MPI N = 2, 3, faults, libcclx-mpi N = 2, 3)" \
  openmpi_asan

if [[ "${CCLX_CI_TIDY:-1}" != 0 ]]; then
  stage "clang-tidy (lib/)" ctest --preset lint -R "^lint-tidy$"
fi

if ((${#failed[@]})); then
  printf 'cclx test.sh: FAILED stages:\n'
  printf '  %s\n' "${failed[@]}"
  exit 1
fi
echo "cclx test.sh: all stages passed"
