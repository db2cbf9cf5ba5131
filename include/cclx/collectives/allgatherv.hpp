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
struct AllgatherV {
  /// The collective's enum value.
  static constexpr Collective id = Collective::allgatherv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "allgatherv";
  static constexpr bool reduces = false;            ///< takes a reduction op
  static constexpr bool rooted = false;             ///< has a root (checked to be in [0, n))
  static constexpr bool blocks_are_ranks = true;    ///< the partition has one block per rank
  static constexpr bool equal_blocks = false;       ///< every block has the same size
  static constexpr bool root_out_is_input = false;  ///< the root's Out holds the data initially
  static constexpr bool variable_counts = true;     ///< per-rank block sizes, given per call
  /// The equal-block collective whose windows, layout and schedules this one shares.
  static constexpr Collective shape = Collective::allgather;

  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Allgather::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return Allgather::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Allgather::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
