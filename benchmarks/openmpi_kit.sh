# shellcheck shell=bash
# A kit's Open MPI runtime (Debian's Open MPI 4.1), for a machine with no MPI installed (sourced by
# testbed/kit.sh, beside mpich_kit.sh): Debian's tree under KIT/ompi, which Open MPI finds again
# through OPAL_PREFIX (its library, component and help-file folders are configured below the
# prefix; only /etc/openmpi is not, and nothing needs it), and Debian's PMIx, which it is built
# against, under KIT/ompi/pmix2 (PMIX_PREFIX; PMIx's optional plugins are still looked for in
# Debian's folder, and run without where it is missing).
#   kit_openmpi KIT FILE...    KIT/ompi: orterun (as mpirun.openmpi), orted, Open MPI's libraries,
#                              components and help files, and in KIT/ompi/deps the libraries they
#                              and the FILEs (programs built against Open MPI) load
#   kit_openmpi_env KIT        OPAL_PREFIX, PMIX_PREFIX, PATH and LD_LIBRARY_PATH for them

openmpi_libdir=lib/x86_64-linux-gnu/openmpi/lib

kit_openmpi() {
  local kit=$1
  shift
  local root=$kit/ompi
  mkdir -p "$root/bin" "$root/$openmpi_libdir" "$root/share" "$root/deps"
  cp /usr/bin/orterun /usr/bin/orted "$root/bin/"
  ln -sf orterun "$root/bin/mpirun.openmpi"
  cp -rL /usr/lib/x86_64-linux-gnu/openmpi/lib/. "$root/$openmpi_libdir/"
  cp -r /usr/share/openmpi "$root/share/"
  cp -rL /usr/lib/x86_64-linux-gnu/pmix2 "$root/"
  # every component's dependencies; a component whose own are missing on the target is skipped by
  # Open MPI, as on any machine without that network
  kit_libs "$root/deps" "$@" "$root/bin/orterun" "$root/bin/orted" \
    "$root/$openmpi_libdir"/*.so* "$root/$openmpi_libdir"/openmpi3/*.so "$root"/pmix2/lib/pmix/*.so
}

kit_openmpi_env() {
  local root=$1/ompi
  export OPAL_PREFIX=$root PMIX_PREFIX=$root/pmix2 PATH="$root/bin:$PATH"
  export PMIX_MCA_pcompress_base_silence_warning=1  # its zlib plugin is optional
  export LD_LIBRARY_PATH="$root/deps:$root/$openmpi_libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}
