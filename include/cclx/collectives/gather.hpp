// gather: the root ends with every rank's block, block r from rank r.
//   count      elements of ONE block (each rank's input); the root's output holds n * count
//              (other ranks' output may be empty)
//   in place   on the root, one buffer of n blocks with its own block already at block root
//              (MPI_IN_PLACE); elsewhere the one buffer is the rank's input
//   blocks     nblocks == n; In = [r, r + 1); Out = [0, n) on the root only
//   MPI        MPI_Gather
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of gather: block r of the root's output comes from rank r.
struct Gather : Flags<FlagValues{.rooted = true, .blocks_are_ranks = true}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::gather;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "gather";

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n,
                           bool is_root) {
    return in_place && is_root ? out_size / static_cast<std::size_t>(n) : in_size;
  }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int rank, int root, std::uint32_t nb) {
    return {{true, static_cast<std::uint32_t>(rank), 1}, {rank == root, 0, nb}};
  }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int rank, int root) { return {rank == root, 0}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return rank == root ? from_rank(b, static_cast<int>(b)) : Expectation{};
  }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool is_root,
                                 int n) {
    const auto un = static_cast<std::size_t>(n);
    if (!is_root) return {};
    if (in_place)
      return out % un ? not_divisible(name, "the root's in-place buffer of ", out, n)
                      : std::string{};
    if (out != in * un) return size_mismatch(name, in, out, "output == n * input on the root");
    return {};
  }
};

}  // namespace cclx::coll
