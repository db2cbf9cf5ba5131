#!/usr/bin/env bash
# The testbed on a machine that has no MPI installed and reaches no package registry (a larger
# machine for runs without oversubscription, such as measure.sh's hierarchical-2x8): the binaries
# and their runtime travel in KIT, made here after a build.
#   benchmarks/testbed/kit.sh --pack KIT        cclx-bench, cclx-tune, tbcheck and the UCX shim,
#                                              MPICH's launcher and runtime, iproute2 (ip, tc),
#                                              sysctl
#   benchmarks/testbed/kit.sh KIT SECTION...    run measure.sh's SECTIONs with KIT (as root)
#   benchmarks/testbed/kit.sh KIT -- CMD...     run CMD with KIT's mpiexec and libraries
# With OMPI_BENCH (a cclx-bench built against Open MPI, as measure.sh's Open MPI sections take it)
# set when packing, the kit also carries it and Debian's Open MPI runtime (openmpi_kit.sh), and
# the runs get both: mpirun.openmpi on PATH and OMPI_BENCH set.
# The target's own ip, tc, sysctl and hostname are used where it has them.
set -euo pipefail
here=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")" && pwd)
root=$(cd "$here/../.." && pwd)
net_tools=(ip tc sysctl hostname)
# shellcheck source-path=SCRIPTDIR source=../mpich_kit.sh
source "$root/benchmarks/mpich_kit.sh"
# shellcheck source-path=SCRIPTDIR source=../openmpi_kit.sh
source "$root/benchmarks/openmpi_kit.sh"

if [[ ${1:-} == --pack ]]; then
  kit=${2:?usage: kit.sh --pack KIT}
  rm -rf "$kit"
  mkdir -p "$kit/testbed" "$kit/net/bin" "$kit/net/lib" "$kit/build/benchmarks" "$kit/build/tools"
  # tbcheck and the UCX shim, where cclx-testbed run looks for them (CCLX_TESTBED_BUILD)
  mapfile -t built < <("$here/cclx-testbed" build)
  cp "${built[@]}" "$kit/testbed/"
  # where measure.sh and tune.sh look for them in a build folder
  cp "$root/build/benchmarks/cclx-bench" "$kit/build/benchmarks/"
  cp "$root/build/tools/cclx-tune" "$kit/build/tools/"
  kit_mpich "$kit" "$kit"/build/*/* "$kit"/testbed/*
  for t in "${net_tools[@]}"; do cp "$(command -v "$t")" "$kit/net/bin/"; done
  kit_libs "$kit/net/lib" "$kit"/net/bin/*
  if [[ -n ${OMPI_BENCH:-} ]]; then
    mkdir -p "$kit/ompi-bench"
    cp "$OMPI_BENCH" "$kit/ompi-bench/"
    kit_openmpi "$kit" "$kit/ompi-bench/cclx-bench"
    strip --strip-unneeded "$kit/ompi-bench/cclx-bench" "$kit"/ompi/deps/*
  fi
  strip --strip-unneeded "$kit"/bin/* "$kit"/build/*/* "$kit"/testbed/* "$kit"/lib/*.so* "$kit"/lib/ucx/* \
    "$kit"/net/bin/* "$kit"/net/lib/*
  du -sh "$kit"
  exit 0
fi

kit=$(cd "${1:?usage: kit.sh KIT SECTION...}" && pwd)
shift
kit_env "$kit"
export CCLX_TESTBED_BUILD=$kit/testbed BENCH=$kit/build/benchmarks/cclx-bench
if [[ -d $kit/ompi ]]; then
  kit_openmpi_env "$kit"
  export OMPI_BENCH=$kit/ompi-bench/cclx-bench
fi
# A tool the target lacks runs from the kit with its libraries (only it: they are older ones).
wrappers=$kit/net/wrappers
mkdir -p "$wrappers"
for t in "${net_tools[@]}"; do
  command -v "$t" >/dev/null && continue
  # shellcheck disable=SC2016  # the wrapper's own $LD_LIBRARY_PATH and "$@"
  printf '#!/bin/sh\nLD_LIBRARY_PATH=%s/net/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} exec %s/net/bin/%s "$@"\n' \
    "$kit" "$kit" "$t" >"$wrappers/$t"
  chmod +x "$wrappers/$t"
  echo "kit.sh: $t from the kit"
done
export PATH="$PATH:$wrappers"
touch "$kit"/testbed/*  # newer than their sources: cclx-testbed then does not rebuild them
[[ ${1:-} == -- ]] && shift && exec "$@"
exec "$here/measure.sh" "$@"
