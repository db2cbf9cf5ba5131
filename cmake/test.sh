#!/usr/bin/env bash
# The whole test suite: install what is missing, build, run ctest (unit, MPI at N = 1..8, tools,
# installed-tree consumer). Every MPI test has a timeout, so a deadlock fails instead of hanging.
set -euo pipefail
cd "$(dirname "$0")/.."
bash cmake/setup.sh --no-bench
ctest --preset release
