// allreduce: every rank ends with the reduction of all ranks' vectors.
//   count      elements of the whole vector (input and output both hold `count`)
//   in place   one buffer: input, then result (MPI_IN_PLACE)
//   blocks     In = Out = [0, nblocks) on every rank
//   MPI        MPI_Allreduce
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of allreduce: every rank ends with the reduction of all ranks' vectors.
struct Allreduce : Flags<FlagValues{.reduces = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::allreduce;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "allreduce";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t, bool, int, bool) { return in_size; }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int) { return count; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int, int, std::uint32_t nb) { return {{true, 0, nb}, {true, 0, nb}}; }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int, int) { return {}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int, int, std::uint32_t b) { return from_all(b); }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int) {
    if (!in_place && in != out) return size_mismatch(name, in, out, "output == input");
    return {};
  }
};

}  // namespace cclx::coll
