// allgather: every rank ends with all ranks' blocks, block r from rank r.
//   count      elements of ONE block (the input); the output holds n * count
//   in place   one buffer of n blocks; this rank's contribution is already at block rank
//              (MPI_IN_PLACE)
//   blocks     nblocks == n; In = [r, r + 1), Out = [0, n)
//   MPI        MPI_Allgather
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of allgather: block r of every rank's output comes from rank r.
struct Allgather : Flags<FlagValues{.blocks_are_ranks = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::allgather;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "allgather";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n, bool) {
    return in_place ? out_size / static_cast<std::size_t>(n) : in_size;
  }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int rank, int, std::uint32_t nb) {
    return {{true, static_cast<std::uint32_t>(rank), 1}, {true, 0, nb}};
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int, int) { return {}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int, int, std::uint32_t b) {
    return from_rank(b, static_cast<int>(b));
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int n) {
    const auto un = static_cast<std::size_t>(n);
    if (in_place)
      return out % un ? not_divisible(name, "in-place buffer of ", out, n) : std::string{};
    if (out != in * un) return size_mismatch(name, in, out, "output == n * input");
    return {};
  }
};

}  // namespace cclx::coll
