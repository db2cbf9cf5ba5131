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

struct GatherV {
  static constexpr Collective id = Collective::gatherv;
  static constexpr std::string_view name = "gatherv";
  static constexpr bool reduces = false, rooted = true, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false, variable_counts = true;
  static constexpr Collective shape = Collective::gather;

  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Gather::windows(n, rank, root, nb);
  }
  static InPlaceLayout in_place(int rank, int root) { return Gather::in_place(rank, root); }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Gather::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
