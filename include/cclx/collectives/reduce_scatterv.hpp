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
struct ReduceScatterV {
  /// The collective's enum value.
  static constexpr Collective id = Collective::reduce_scatterv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "reduce_scatterv";
  static constexpr bool reduces = true;             ///< takes a reduction op
  static constexpr bool rooted = false;             ///< has a root (checked to be in [0, n))
  static constexpr bool blocks_are_ranks = true;    ///< the partition has one block per rank
  static constexpr bool equal_blocks = false;       ///< every block has the same size
  static constexpr bool root_out_is_input = false;  ///< the root's Out holds the data initially
  static constexpr bool variable_counts = true;     ///< per-rank block sizes, given per call
  /// The equal-block collective whose windows, layout and schedules this one shares.
  static constexpr Collective shape = Collective::reduce_scatter;

  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return ReduceScatter::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return ReduceScatter::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return ReduceScatter::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
