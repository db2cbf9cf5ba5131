# Every dependency comes from a Debian package (see README / cmake/setup.sh).
find_package(MPI REQUIRED COMPONENTS CXX)  # the C API, found through the C++ compiler
find_package(Boost 1.74 REQUIRED)          # Boost.Graph (header-only parts; cclx::topology)
find_package(Eigen3 3.3 REQUIRED NO_MODULE)  # least-squares fit in cclx::topology (private)
find_package(nlohmann_json 3.10 REQUIRED)  # schedule / topology JSON (reader and writer)
find_package(Threads REQUIRED)             # the MPI tests' stall watchdog thread only

# MPI-4 large-count functions (MPI_Send_c, ...): MPICH 4 and Open MPI 5 have them, MPI 3.1
# libraries such as Open MPI 4.1 do not. Without them cclx expresses counts above INT_MAX with
# derived datatypes or chunks (lib/backend/mpi_large_count.hpp). CCLX_MPI_LARGE_COUNT=OFF forces
# that fallback on an MPI that has them (to test it).
option(CCLX_MPI_LARGE_COUNT "Use the MPI-4 large-count functions where the MPI has them" ON)
include(CheckCXXSourceCompiles)
include(CMakePushCheckState)
cmake_push_check_state(RESET)
set(CMAKE_REQUIRED_LIBRARIES MPI::MPI_CXX)
set(CMAKE_REQUIRED_QUIET ON)
check_cxx_source_compiles([=[
#include <mpi.h>
int main() {
  MPI_Count n = 1;
  char b = 0;
  MPI_Request r;
  MPI_Send_c(&b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
  MPI_Irecv_c(&b, n, MPI_BYTE, 0, 0, MPI_COMM_WORLD, &r);
  MPI_Allreduce_c(MPI_IN_PLACE, &b, n, MPI_BYTE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Reduce_scatter_block_c(MPI_IN_PLACE, &b, n, MPI_BYTE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Iallreduce_c(MPI_IN_PLACE, &b, n, MPI_BYTE, MPI_MAX, MPI_COMM_WORLD, &r);
  return 0;
}]=] CCLX_MPI_HAS_LARGE_COUNT)
check_cxx_source_compiles([=[
#include <mpi.h>
#ifndef OPEN_MPI
#error not Open MPI
#endif
int main() { return 0; }]=] CCLX_MPI_IS_OPENMPI)
cmake_pop_check_state()
if(CCLX_MPI_HAS_LARGE_COUNT AND CCLX_MPI_LARGE_COUNT)
  set(CCLX_USE_MPI_LARGE_COUNT ON)
else()
  set(CCLX_USE_MPI_LARGE_COUNT OFF)
endif()
if(CCLX_MPI_IS_OPENMPI)
  set(CCLX_MPI_FLAVOUR openmpi)
else()
  set(CCLX_MPI_FLAVOUR mpich)  # or another hydra-style mpiexec
endif()
message(STATUS "cclx: MPI ${MPI_CXX_VERSION} (${CCLX_MPI_FLAVOUR}, ${MPI_CXX_COMPILER}); "
               "large-count functions: ${CCLX_USE_MPI_LARGE_COUNT}")
