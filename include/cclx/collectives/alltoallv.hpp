// alltoallv: block i of rank r's input (sendcounts[i] elements) goes to rank i, where it lands as
// block r of the output (recvcounts[r] elements there).
//   counts     every rank gives its own sendcounts and recvcounts; rank i's sendcounts[j] must
//              equal rank j's recvcounts[i] (CCLX_VALIDATE=1 checks it); zeros allowed
//   buffers    input: the n blocks of sendcounts, output: the n blocks of recvcounts, each packed
//              or at MPI displacements (cclx::Displs, algo::Native only)
//   in place   one buffer of the n blocks laid out by recvcounts: input, then output (MPI_IN_PLACE;
//              sendcounts are not given: rank r sends recvcounts[i] elements to rank i, so rank
//              i's recvcounts[r] must equal rank r's recvcounts[i])
//   blocks     as alltoall: nblocks == n; In = Out = [0, n); In's blocks have sendcounts, Out's
//              (and Scratch's) recvcounts
//   MPI        MPI_Alltoallv
#pragma once

#include "cclx/collectives/alltoall.hpp"

namespace cclx::coll {

/// Descriptor of alltoallv: alltoall with per-rank send and receive counts.
struct AlltoallV : VariableCounts<Alltoall> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::alltoallv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "alltoallv";
  /// Out's blocks have counts of their own (recvcounts).
  static constexpr bool separate_out_counts = true;
};

}  // namespace cclx::coll
