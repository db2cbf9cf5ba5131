// The CUDA-aware query (device/cuda_aware.hpp) against the MPIs we test with: Debian's MPICH 4.0.2
// and Open MPI 4.1 take no device pointers, so CudaBackend stages (docs/cuda.md). Needs no CUDA.
#include <cstdlib>
#include <string>

#include "cclx/device/cuda_aware.hpp"
#include "support.hpp"

TEST_CASE("device: Debian's MPIs report no CUDA support, so device data is staged") {
  const char* mpi = std::getenv("CCLX_TEST_MPI");
  if (!mpi) {
    MESSAGE("CCLX_TEST_MPI unset (not run by ctest): which MPI this is is unknown; not checked");
    return;
  }
  CAPTURE(std::string(mpi));
  const std::optional<bool> reported = cclx::device::mpi_reports_cuda_support();
  CHECK(reported.has_value());  // both have the query
  CHECK_FALSE(reported.value_or(true));
  CHECK_FALSE(cclx::device::decide_cuda_aware(reported, std::nullopt));
}
