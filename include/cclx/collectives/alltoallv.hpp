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
struct AlltoallV {
  /// The collective's enum value.
  static constexpr Collective id = Collective::alltoallv;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "alltoallv";
  static constexpr bool reduces = false;            ///< takes a reduction op
  static constexpr bool rooted = false;             ///< has a root (checked to be in [0, n))
  static constexpr bool blocks_are_ranks = true;    ///< the partition has one block per rank
  static constexpr bool equal_blocks = false;       ///< every block has the same size
  static constexpr bool root_out_is_input = false;  ///< the root's Out holds the data initially
  static constexpr bool variable_counts = true;     ///< per-rank block sizes, given per call
  static constexpr bool separate_out_counts =
      true;  ///< Out's blocks have counts of their own (recvcounts)
  /// The equal-block collective whose windows, layout and schedules this one shares.
  static constexpr Collective shape = Collective::alltoall;

  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Alltoall::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return Alltoall::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Alltoall::expected(rank, root, b);
  }
};

}  // namespace cclx::coll
