#include "cclx/device/cuda_aware.hpp"

#include <mpi.h>

#include <string>
#if defined(OPEN_MPI) && OPEN_MPI
#include <mpi-ext.h>  // MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include "cclx/error.hpp"

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

bool combine_cuda_aware(const std::vector<int>& votes, int rank) {
  std::string forced, staging;  // the ranks that forced direct, and those that stage
  const auto add = [](std::string& list, std::size_t r) {
    list += (list.empty() ? "" : ", ") + std::to_string(r);
  };
  for (std::size_t r = 0; r < votes.size(); ++r) {
    if (votes[r] == static_cast<int>(AwareVote::stage)) add(staging, r);
    if (votes[r] == static_cast<int>(AwareVote::forced_direct)) add(forced, r);
  }
  if (staging.empty()) return true;
  if (!forced.empty())
    throw Error(rank, "CCLX_CUDA_AWARE=1 passes device memory to MPI on rank(s) " + forced +
                          ", while rank(s) " + staging +
                          " stage it through host memory and cut each transfer into other "
                          "messages: set CCLX_CUDA_AWARE alike on every rank");
  return false;
}

}  // namespace cclx::device
