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
struct ScatterV {
  /// The collective's enum value.
  static constexpr Collective id = Collective::scatterv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "scatterv";
  static constexpr bool reduces = false;            ///< takes a reduction op
  static constexpr bool rooted = true;              ///< has a root (checked to be in [0, n))
  static constexpr bool blocks_are_ranks = true;    ///< the partition has one block per rank
  static constexpr bool equal_blocks = false;       ///< every block has the same size
  static constexpr bool root_out_is_input = false;  ///< the root's Out holds the data initially
  static constexpr bool variable_counts = true;     ///< per-rank block sizes, given per call
  /// The equal-block collective whose windows, layout and schedules this one shares.
  static constexpr Collective shape = Collective::scatter;

  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Scatter::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return Scatter::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Scatter::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
