// scatter: rank r ends with block r of the root's input.
//   count      elements of ONE block (each rank's output); the root's input holds n * count
//              (other ranks' input may be empty)
//   in place   on the root, one buffer of n blocks whose block root stays where it is
//              (MPI_IN_PLACE as the root's receive buffer); elsewhere the one buffer is the
//              rank's output
//   blocks     nblocks == n; In = [0, n) on the root only; Out = [r, r + 1)
//   MPI        MPI_Scatter
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of scatter: rank r gets block r of the root's input.
struct Scatter : Flags<FlagValues{.rooted = true, .blocks_are_ranks = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::scatter;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "scatter";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n,
                           bool is_root) {
    return in_place && is_root ? in_size / static_cast<std::size_t>(n) : out_size;
  }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int rank, int root, std::uint32_t nb) {
    return {{rank == root, 0, rank == root ? nb : 0u}, {true, static_cast<std::uint32_t>(rank), 1}};
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return {rank == root, 0}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return b == static_cast<std::uint32_t>(rank) ? from_rank(b, root) : Expectation{};
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool is_root,
                                 int n) {
    const auto un = static_cast<std::size_t>(n);
    if (!is_root) return {};
    if (in_place)
      return in % un ? not_divisible(name, "the root's in-place buffer of ", in, n) : std::string{};
    if (in != out * un) return size_mismatch(name, in, out, "input == n * output on the root");
    return {};
  }
};

}  // namespace cclx::coll
