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
struct GatherV {
  /// The collective's enum value.
  static constexpr Collective id = Collective::gatherv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "gatherv";
  static constexpr bool reduces = false;            ///< takes a reduction op
  static constexpr bool rooted = true;              ///< has a root (checked to be in [0, n))
  static constexpr bool blocks_are_ranks = true;    ///< the partition has one block per rank
  static constexpr bool equal_blocks = false;       ///< every block has the same size
  static constexpr bool root_out_is_input = false;  ///< the root's Out holds the data initially
  static constexpr bool variable_counts = true;     ///< per-rank block sizes, given per call
  /// The equal-block collective whose windows, layout and schedules this one shares.
  static constexpr Collective shape = Collective::gather;

  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Gather::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return Gather::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Gather::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
