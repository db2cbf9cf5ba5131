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

/// Descriptor of reduce_scatterv (MPI_Reduce_scatter): reduce_scatter with per-rank block sizes.
struct ReduceScatterV : VariableCounts<ReduceScatter> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::reduce_scatterv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "reduce_scatterv";
};

}  // namespace cclx::coll
