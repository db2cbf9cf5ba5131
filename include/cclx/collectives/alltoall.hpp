// alltoall: block i of rank r's input goes to rank i, where it lands as block r of the output.
//   count      elements of ONE block; input and output both hold n * count
//   in place   one buffer of n blocks, input then output (MPI_IN_PLACE)
//   blocks     nblocks == n, all of equal size; In = Out = [0, n)
//   MPI        MPI_Alltoall
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of alltoall: block i of the input goes to rank i.
struct Alltoall : Flags<FlagValues{.blocks_are_ranks = true, .equal_blocks = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::alltoall;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "alltoall";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n, bool) {
    return (in_place ? out_size : in_size) / static_cast<std::size_t>(n);
  }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int, int, std::uint32_t nb) { return {{true, 0, nb}, {true, 0, nb}}; }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int, int) { return {}; }
  /// Rank r's Out block b is rank b's In block r.
  static Expectation expected(int rank, int, std::uint32_t b) {
    return from_rank(static_cast<std::uint32_t>(rank), static_cast<int>(b));
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int n) {
    const auto un = static_cast<std::size_t>(n);
    const std::size_t size = in_place ? out : in;
    if (!in_place && in != out) return size_mismatch(name, in, out, "output == input");
    if (size % un)
      return not_divisible(name, in_place ? "in-place buffer of " : "buffer of ", size, n);
    return {};
  }
};

}  // namespace cclx::coll
