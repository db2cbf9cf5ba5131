// gatherv: the root ends with every rank's block, block r (counts[r] elements) from rank r.
//   counts     per-rank element counts, the same array on EVERY rank (MPI reads recvcounts on the
//              root only; the tree algorithms need them on the ranks in between); zeros allowed
//   buffers    input: counts[rank] elements; the root's output: the n blocks, packed or at MPI
//              displacements (cclx::Displs, algo::Native only); other ranks' output may be empty
//   in place   on the root, one buffer of the n blocks with its own already at its place
//              (MPI_IN_PLACE); elsewhere the one buffer is the rank's input
//   blocks     as gather: nblocks == n; In = [r, r + 1); Out = [0, n) on the root only
//   MPI        MPI_Gatherv
#pragma once

#include "cclx/collectives/gather.hpp"

namespace cclx::coll {

/// Descriptor of gatherv: gather with per-rank block sizes.
struct GatherV : VariableCounts<Gather> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::gatherv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "gatherv";
};

}  // namespace cclx::coll
