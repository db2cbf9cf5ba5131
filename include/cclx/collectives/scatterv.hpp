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

struct ScatterV {
  static constexpr Collective id = Collective::scatterv;
  static constexpr std::string_view name = "scatterv";
  static constexpr bool reduces = false, rooted = true, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false, variable_counts = true;
  static constexpr Collective shape = Collective::scatter;

  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Scatter::windows(n, rank, root, nb);
  }
  static InPlaceLayout in_place(int rank, int root) { return Scatter::in_place(rank, root); }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Scatter::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
