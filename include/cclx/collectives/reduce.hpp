// reduce: the root ends with the reduction of all ranks' vectors; other ranks' buffers are only
// read (in place or not, MPI leaves a non-root's send buffer alone).
//   count      elements of the whole vector; the output matters on the root only (it may be empty
//              elsewhere)
//   in place   one buffer: on the root, input then result (MPI_IN_PLACE); elsewhere the input
//   blocks     In = [0, nblocks); Out = [0, nblocks) on the root only
//   MPI        MPI_Reduce
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of reduce: the reduction of all ranks' vectors lands on the root.
struct Reduce : Flags<FlagValues{.reduces = true, .rooted = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::reduce;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "reduce";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t, bool, int, bool) { return in_size; }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int rank, int root, std::uint32_t nb) {
    return {{true, 0, nb}, {rank == root, 0, nb}};
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return {rank == root, 0}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return rank == root ? from_all(b) : Expectation{};
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool is_root,
                                 int) {
    if (!in_place && is_root && in != out)
      return size_mismatch(name, in, out, "output == input on the root");
    return {};
  }
};

}  // namespace cclx::coll
