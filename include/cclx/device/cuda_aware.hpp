// Whether the MPI library takes CUDA device pointers (a CUDA-aware MPI), asked at run time where
// the MPI can say: MPICH's MPIX_GPU_query_support, Open MPI's MPIX_Query_cuda_support. Needs no
// CUDA, so it is built and tested everywhere.
#pragma once

#include <optional>
#include <vector>

namespace cclx::device {

/// What the MPI reports: true or false, or nullopt where it has no query. MPI must be initialized.
[[nodiscard]] std::optional<bool> mpi_reports_cuda_support();

/// The decision: CCLX_CUDA_AWARE (`setting`: 1 true, 0 false, auto nullopt) overrides the MPI's
/// report: 1 for an MPI that takes device pointers without saying so (e.g. one built without the
/// query), 0 to stage even where it does. auto: the report, and false where there is none.
[[nodiscard]] bool decide_cuda_aware(std::optional<bool> reported, std::optional<bool> setting);

/// One rank's decision as the ranks exchange it: stage, direct (the MPI's report) or direct
/// forced by CCLX_CUDA_AWARE=1.
enum class AwareVote : int { stage = 0, direct = 1, forced_direct = 2 };

/// The decision every rank runs with, from every rank's vote (index: rank): direct only where all
/// vote direct, since a staging rank cuts a transfer into chunks that a direct peer sends whole.
/// Reports that differ make every rank stage; a rank that forced direct while another stages
/// throws (on `rank`, the caller), naming both.
[[nodiscard]] bool combine_cuda_aware(const std::vector<int>& votes, int rank);

}  // namespace cclx::device
