# Install + export so that another project can find_package(cclx CONFIG REQUIRED) or use
# pkg-config (cclx.pc).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

install(TARGETS cclx cclx_core EXPORT cclxTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# libcclx-mpi.so, the PMPI library for unmodified MPI applications (docs/preload.md); cclx::mpi.
install(TARGETS cclx-mpi EXPORT cclxTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS cclx_topology EXPORT cclxTopologyTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS cclx_relay EXPORT cclxRelayTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
# The CUDA device backend (docs/cuda.md), when built: find_package(cclx COMPONENTS cuda). Its
# kernels' static library is a link dependency of the static cclx_cuda, so it is exported too.
if(CCLX_WITH_CUDA)
  install(TARGETS cclx_cuda cclx_cuda_kernels EXPORT cclxCudaTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT cclxCudaTargets NAMESPACE cclx:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
endif()
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/cclx DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES ${PROJECT_BINARY_DIR}/include/cclx/version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/cclx)
install(EXPORT cclxTargets NAMESPACE cclx:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
install(EXPORT cclxTopologyTargets NAMESPACE cclx::
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
install(EXPORT cclxRelayTargets NAMESPACE cclx:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/cclxConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/cclxConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cclxConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/cclxConfig.cmake ${PROJECT_BINARY_DIR}/cclxConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/cclx)

# pkg-config: the core library plus the flags of the MPI it was built with (from FindMPI), since
# a static libcclx.a needs MPI at link time. The prefix is fixed at configure time, so install
# with the configured CMAKE_INSTALL_PREFIX, or pass --define-variable=prefix=... to pkg-config.
set(CCLX_PC_MPI_CFLAGS "")
foreach(dir IN LISTS MPI_CXX_INCLUDE_DIRS)
  string(APPEND CCLX_PC_MPI_CFLAGS " -I${dir}")
endforeach()
foreach(def IN LISTS MPI_CXX_COMPILE_DEFINITIONS)
  string(APPEND CCLX_PC_MPI_CFLAGS " -D${def}")
endforeach()
foreach(opt IN LISTS MPI_CXX_COMPILE_OPTIONS)
  string(APPEND CCLX_PC_MPI_CFLAGS " ${opt}")
endforeach()
set(CCLX_PC_MPI_LIBS "")
foreach(flag IN LISTS MPI_CXX_LINK_FLAGS)
  string(APPEND CCLX_PC_MPI_LIBS " ${flag}")
endforeach()
foreach(lib IN LISTS MPI_CXX_LIBRARIES)
  string(APPEND CCLX_PC_MPI_LIBS " ${lib}")
endforeach()
string(STRIP "${CCLX_PC_MPI_CFLAGS}" CCLX_PC_MPI_CFLAGS)
string(STRIP "${CCLX_PC_MPI_LIBS}" CCLX_PC_MPI_LIBS)
# The prefix relative to the .pc file itself, so that `cmake --install --prefix DIR` anywhere gives
# a cclx.pc that names DIR (pkg-config's ${pcfiledir}); an absolute libdir keeps the configured one.
if(IS_ABSOLUTE "${CMAKE_INSTALL_LIBDIR}")
  set(CCLX_PC_PREFIX "${CMAKE_INSTALL_PREFIX}")
else()
  file(RELATIVE_PATH pc_to_prefix "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" pc_to_prefix "${pc_to_prefix}")
  set(CCLX_PC_PREFIX "\${pcfiledir}/${pc_to_prefix}")
endif()
configure_file(${PROJECT_SOURCE_DIR}/cmake/cclx.pc.in ${PROJECT_BINARY_DIR}/cclx.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/cclx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
