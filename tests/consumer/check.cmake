# ctest driver: install cclx from the build tree into a scratch prefix; configure and build the
# consumer against it with CMake (find_package) and with pkg-config; run both on 2 ranks; check
# that the collective API's exported target carries no Boost, Eigen or Threads.
foreach(var BUILD_DIR WORK_DIR SOURCE_DIR MPIEXEC MPI_CXX_COMPILER CXX_COMPILER)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check.cmake needs -D${var}=...")
  endif()
endforeach()
separate_arguments(MPIEXEC_FLAGS)  # "--oversubscribe;--bind-to;none" arrives as one list
file(REMOVE_RECURSE ${WORK_DIR})
function(run)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "failed (${rc}): ${ARGN}\n${out}\n${err}")
  endif()
  message(STATUS "${out}")
endfunction()
set(prefix ${WORK_DIR}/prefix)
run(${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${prefix})

file(GLOB targets ${prefix}/lib*/cmake/cclx/cclxTargets*.cmake)
foreach(f IN LISTS targets)
  file(READ ${f} text)
  if(text MATCHES "Boost|Eigen|Threads")
    message(FATAL_ERROR "${f} names ${CMAKE_MATCH_0}: the collective API must need MPI only")
  endif()
endforeach()
file(GLOB preload_lib ${prefix}/lib*/libcclx-mpi.so)
if(NOT preload_lib)
  message(FATAL_ERROR "cmake --install did not install libcclx-mpi.so")
endif()
if(NOT EXISTS ${prefix}/bin/cclx-bench AND EXISTS ${BUILD_DIR}/benchmarks/cclx-bench)
  message(FATAL_ERROR "cmake --install did not install cclx-bench")
endif()

if(NOT DEFINED WITH_CUDA)
  set(WITH_CUDA OFF)
endif()
run(${CMAKE_COMMAND} -S ${SOURCE_DIR} -B ${WORK_DIR}/build -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_BUILD_TYPE=Release -DMPI_CXX_COMPILER=${MPI_CXX_COMPILER}
    -DCCLX_CONSUMER_CUDA=${WITH_CUDA})
run(${CMAKE_COMMAND} --build ${WORK_DIR}/build)
run(${MPIEXEC} ${MPIEXEC_FLAGS} -n 2 ${WORK_DIR}/build/consumer)
run(${WORK_DIR}/build/consumer_topology)
run(${MPIEXEC} ${MPIEXEC_FLAGS} -n 2 ${WORK_DIR}/build/consumer_relay)
if(WITH_CUDA)
  run(${MPIEXEC} ${MPIEXEC_FLAGS} -n 2 ${WORK_DIR}/build/consumer_cuda)
endif()

# pkg-config as the README uses it: cclx.pc finds its prefix from where it is installed, so an
# install with --prefix anywhere needs only PKG_CONFIG_PATH.
find_program(PKG_CONFIG pkg-config REQUIRED)
file(GLOB pcdir ${prefix}/lib*/pkgconfig)
set(ENV{PKG_CONFIG_PATH} ${pcdir})
execute_process(COMMAND ${PKG_CONFIG} --cflags --libs cclx
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "pkg-config --cflags --libs cclx failed")
endif()
message(STATUS "pkg-config --cflags --libs cclx: ${flags}")
separate_arguments(flags UNIX_COMMAND "${flags}")
run(${CXX_COMPILER} -std=c++20 ${SOURCE_DIR}/main.cpp -o ${WORK_DIR}/consumer_pc ${flags})
run(${MPIEXEC} ${MPIEXEC_FLAGS} -n 2 ${WORK_DIR}/consumer_pc)
