// MpiBackend::host_ids: the rank -> host map of the hierarchical policies (docs/hierarchical.md).
// A host is named by the lowest MPI_COMM_WORLD rank on it (emulated: the CCLX_HOSTS entry, or the
// group of CCLX_RANKS_PER_HOST consecutive world ranks), so that every rank names it alike; one
// allgather then gives every rank the whole map.
#include <string>
#include <vector>

#include "cclx/backend/mpi.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::mpi_check;

namespace {

// This rank's host id from the emulation settings, or -1 when neither is set.
int emulated_host(int world_rank, int world_size, int rank) {
  try {
    const auto list = settings::get<std::vector<int>>(settings::Id::hosts);
    if (!list.empty()) {
      if (list.size() != static_cast<std::size_t>(world_size))
        throw Error("CCLX_HOSTS has " + std::to_string(list.size()) + " entries for " +
                    std::to_string(world_size) + " ranks of MPI_COMM_WORLD");
      return list[static_cast<std::size_t>(world_rank)];
    }
    const auto k = settings::get<std::size_t>(settings::Id::ranks_per_host);
    if (k > 0) return static_cast<int>(static_cast<std::size_t>(world_rank) / k);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
  return -1;
}

}  // namespace

std::span<const int> MpiBackend::host_ids() const {
  State& s = *s_;
  if (s.host_ids_known) return s.host_ids;
  int world_rank = 0, world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  int mine = emulated_host(world_rank, world_size, s.rank);
  if (mine < 0) {
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(s.internal, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              s.rank, "MPI_Comm_split_type");
    mine = world_rank;
    const int rc = MPI_Allreduce(&world_rank, &mine, 1, MPI_INT, MPI_MIN, node);
    MPI_Comm_free(&node);
    mpi_check(rc, s.rank, "MPI_Allreduce");
  }
  std::vector<int> ids(static_cast<std::size_t>(s.size));
  mpi_check(MPI_Allgather(&mine, 1, MPI_INT, ids.data(), 1, MPI_INT, s.internal), s.rank,
            "MPI_Allgather");
  s.host_ids = std::move(ids);
  s.host_ids_known = true;
  return s.host_ids;
}

}  // namespace cclx
