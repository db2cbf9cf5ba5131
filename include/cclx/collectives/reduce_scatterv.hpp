// reduce_scatterv (MPI_Reduce_scatter: per-rank counts; reduce_scatter.hpp is the equal-block
// MPI_Reduce_scatter_block): rank r ends with block r (counts[r] elements) of the reduction of all
// ranks' vectors of n blocks.
//   counts     per-rank element counts (MPI's recvcounts), the same array on every rank; zeros
//              allowed
//   buffers    input: the n blocks packed (MPI_Reduce_scatter has no displacements); output:
//              counts[rank] elements
//   in place   one buffer of the n blocks; the result goes to its first counts[rank] elements
//              (MPI_IN_PLACE)
//   blocks     as reduce_scatter: nblocks == n; In = [0, n), Out = [r, r + 1)
//   MPI        MPI_Reduce_scatter
#pragma once

#include "cclx/collectives/reduce_scatter.hpp"

namespace cclx::coll {

struct ReduceScatterV {
  static constexpr Collective id = Collective::reduce_scatterv;
  static constexpr std::string_view name = "reduce_scatterv";
  static constexpr bool reduces = true, rooted = false, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false, variable_counts = true;
  static constexpr Collective shape = Collective::reduce_scatter;

  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return ReduceScatter::windows(n, rank, root, nb);
  }
  static InPlaceLayout in_place(int rank, int root) { return ReduceScatter::in_place(rank, root); }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return ReduceScatter::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
