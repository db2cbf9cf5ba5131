// allgatherv: every rank ends with all ranks' blocks, block r (counts[r] elements) from rank r.
//   counts     per-rank element counts, the same array on every rank; zeros allowed
//   buffers    input: counts[rank] elements; output: the n blocks, packed or at MPI displacements
//              (cclx::Displs, algo::Native only)
//   in place   one buffer of the n blocks; this rank's block is already at its place
//              (MPI_IN_PLACE)
//   blocks     as allgather: nblocks == n; In = [r, r + 1), Out = [0, n)
//   MPI        MPI_Allgatherv
#pragma once

#include "cclx/collectives/allgather.hpp"

namespace cclx::coll {

/// Descriptor of allgatherv: allgather with per-rank block sizes.
struct AllgatherV : VariableCounts<Allgather> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::allgatherv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "allgatherv";
};

}  // namespace cclx::coll
