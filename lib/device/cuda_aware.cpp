#include "cclx/device/cuda_aware.hpp"

#include <mpi.h>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

namespace cclx::device {

std::optional<bool> mpi_reports_cuda_support() {
#if defined(MPICH) && defined(MPIX_GPU_SUPPORT_CUDA)
  int yes = 0;
  if (MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) != MPI_SUCCESS) return std::nullopt;
  return yes != 0;
#elif defined(MPIX_CUDA_AWARE_SUPPORT)
  // Open MPI: built with CUDA support (the macro) and running with it (the query).
  return MPIX_CUDA_AWARE_SUPPORT && MPIX_Query_cuda_support() != 0;
#else
  return std::nullopt;
#endif
}

bool decide_cuda_aware(std::optional<bool> reported, std::optional<bool> setting) {
  return setting ? *setting : reported.value_or(false);
}

}  // namespace cclx::device
