// scatterv: rank r ends with block r (counts[r] elements) of the root's input.
//   counts     per-rank element counts, the same array on EVERY rank (MPI reads sendcounts on the
//              root only; the tree algorithms need them on the ranks in between); zeros allowed
//   buffers    the root's input: the n blocks, packed or at MPI displacements (cclx::Displs,
//              algo::Native only); other ranks' input may be empty; output: counts[rank] elements
//   in place   on the root, one buffer of the n blocks whose own block stays where it is
//              (MPI_IN_PLACE as the root's receive buffer); elsewhere the one buffer is the
//              rank's output
//   blocks     as scatter: nblocks == n; In = [0, n) on the root only; Out = [r, r + 1)
//   MPI        MPI_Scatterv
#pragma once

#include "cclx/collectives/scatter.hpp"

namespace cclx::coll {

/// Descriptor of scatterv: scatter with per-rank block sizes.
struct ScatterV : VariableCounts<Scatter> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::scatterv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "scatterv";
};

}  // namespace cclx::coll
