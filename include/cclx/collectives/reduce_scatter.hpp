// reduce_scatter (equal blocks, MPI_Reduce_scatter_block): rank r ends with block r of the
// reduction of all ranks' vectors of n blocks.
//   count      elements of ONE block (the output); the input holds n * count
//   in place   one buffer of n blocks; the result goes to its first block (MPI_IN_PLACE)
//   blocks     nblocks == n; In = [0, n), Out = [r, r + 1)
//   MPI        MPI_Reduce_scatter_block
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of reduce_scatter (equal blocks): rank r gets block r of the reduction.
struct ReduceScatter : Flags<FlagValues{.reduces = true, .blocks_are_ranks = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::reduce_scatter;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "reduce_scatter";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n, bool) {
    return in_place ? in_size / static_cast<std::size_t>(n) : out_size;
  }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int rank, int, std::uint32_t nb) {
    return {{true, 0, nb}, {true, static_cast<std::uint32_t>(rank), 1}};
  }
  /// Out block r (the result) lands at the user buffer's first block.
  static InPlaceLayout in_place(int rank, int) { return {true, static_cast<std::uint32_t>(rank)}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int, std::uint32_t b) {
    return b == static_cast<std::uint32_t>(rank) ? from_all(b) : Expectation{};
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int n) {
    const auto un = static_cast<std::size_t>(n);
    if (in_place)
      return in % un ? not_divisible(name, "in-place buffer of ", in, n) : std::string{};
    if (in != out * un) return size_mismatch(name, in, out, "input == n * output");
    return {};
  }
};

}  // namespace cclx::coll
