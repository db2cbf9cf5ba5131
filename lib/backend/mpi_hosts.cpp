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
  // Every rank takes every collective step, whatever its settings say, and a bad setting is
  // thrown on every rank after the allgather: a rank that threw alone would leave the others
  // waiting in it.
  MPI_Comm node = MPI_COMM_NULL;
  mpi_check(MPI_Comm_split_type(s.internal, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node), s.rank,
            "MPI_Comm_split_type");
  int lowest = world_rank;
  const int rc = MPI_Allreduce(&world_rank, &lowest, 1, MPI_INT, MPI_MIN, node);
  MPI_Comm_free(&node);
  mpi_check(rc, s.rank, "MPI_Allreduce");
  std::string error;
  int mine = lowest;
  try {
    if (const int emulated = emulated_host(world_rank, world_size, s.rank); emulated >= 0)
      mine = emulated;
  } catch (const Error& e) {
    error = e.detail();
  }
  const int pair[2] = {mine, error.empty() ? 0 : 1};
  std::vector<int> all(2 * static_cast<std::size_t>(s.size));
  mpi_check(MPI_Allgather(pair, 2, MPI_INT, all.data(), 2, MPI_INT, s.internal), s.rank,
            "MPI_Allgather");
  std::string failed;
  for (int r = 0; r < s.size; ++r)
    if (all[2 * static_cast<std::size_t>(r) + 1] != 0)
      failed += (failed.empty() ? "" : ", ") + std::to_string(r);
  if (!error.empty()) throw Error(s.rank, error);
  if (!failed.empty())
    throw Error(s.rank, "the host map: rank(s) " + failed +
                            " read a bad CCLX_HOSTS or CCLX_RANKS_PER_HOST");
  std::vector<int> ids(static_cast<std::size_t>(s.size));
  for (int r = 0; r < s.size; ++r)
    ids[static_cast<std::size_t>(r)] = all[2 * static_cast<std::size_t>(r)];
  s.host_ids = std::move(ids);
  s.host_ids_known = true;
  return s.host_ids;
}

}  // namespace cclx
