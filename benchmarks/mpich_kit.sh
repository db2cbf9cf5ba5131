# shellcheck shell=bash
# A kit's MPICH runtime, for a machine with no MPI installed (sourced by cuda_checks.sh and
# testbed/kit.sh): MPICH's launcher, the shared libraries of the kit's programs and UCX's
# cross-memory-attach module, in KIT/bin, KIT/lib and KIT/lib/ucx.
#   kit_libs DEST FILE...      the libraries FILEs load into DEST, but not the C and C++ runtime
#                              (the target's own are newer)
#   kit_mpich KIT FILE...      KIT/bin/mpiexec (hydra) and its proxy, and the libraries of FILEs
#                              and of the launcher
#   kit_env KIT                PATH, LD_LIBRARY_PATH and UCX_MODULE_DIR for the kit's programs

kit_libs() {
  local dest=$1
  shift
  ldd "$@" 2>/dev/null | awk '/=> \//{print $3}' | sort -u |
    grep -Ev '/lib(c|m|gcc_s|stdc\+\+|pthread|dl|rt|resolv)\.so' | xargs -r -I{} cp -L {} "$dest/"
}

kit_mpich() {
  local kit=$1
  shift
  mkdir -p "$kit/bin" "$kit/lib/ucx"
  cp /usr/bin/hydra_pmi_proxy "$kit/bin/"
  cp /usr/bin/mpiexec.hydra "$kit/bin/mpiexec"
  kit_libs "$kit/lib" "$@" "$kit/bin/mpiexec" "$kit/bin/hydra_pmi_proxy"
  cp -L /usr/lib/x86_64-linux-gnu/ucx/libuct_cma.so.0 "$kit/lib/ucx/"
}

kit_env() {
  export PATH="$1/bin:$PATH" LD_LIBRARY_PATH="$1/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  export UCX_MODULE_DIR="$1/lib/ucx"
}
