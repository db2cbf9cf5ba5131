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

struct AllgatherV {
  static constexpr Collective id = Collective::allgatherv;
  static constexpr std::string_view name = "allgatherv";
  static constexpr bool reduces = false, rooted = false, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false, variable_counts = true;
  static constexpr Collective shape = Collective::allgather;

  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Allgather::windows(n, rank, root, nb);
  }
  static InPlaceLayout in_place(int rank, int root) { return Allgather::in_place(rank, root); }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Allgather::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
