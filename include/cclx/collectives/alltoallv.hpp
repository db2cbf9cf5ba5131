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

struct AlltoallV {
  static constexpr Collective id = Collective::alltoallv;
  static constexpr std::string_view name = "alltoallv";
  static constexpr bool reduces = false, rooted = false, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false, variable_counts = true,
                        separate_out_counts = true;
  static constexpr Collective shape = Collective::alltoall;

  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Alltoall::windows(n, rank, root, nb);
  }
  static InPlaceLayout in_place(int rank, int root) { return Alltoall::in_place(rank, root); }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Alltoall::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
