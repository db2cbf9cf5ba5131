// bcast: every rank ends with the root's vector.
//   count      elements of the vector; one buffer on every rank (always "in place")
//   blocks     no In; Out = [0, nblocks), which holds the data on the root initially
//   MPI        MPI_Bcast
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of bcast: the root's buffer to every rank.
struct Bcast : Flags<FlagValues{.rooted = true, .root_out_is_input = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::bcast;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "bcast";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t, std::size_t out_size, bool, int, bool) { return out_size; }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int, int, std::uint32_t nb) { return {{false, 0, 0}, {true, 0, nb}}; }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int, int) { return {false, 0}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int, int root, std::uint32_t b) { return from_rank(b, root); }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t, std::size_t, bool, bool, int) { return {}; }
};

}  // namespace cclx::coll
