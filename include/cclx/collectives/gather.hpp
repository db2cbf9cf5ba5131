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

struct Gather {
  static constexpr Collective id = Collective::gather;
  static constexpr std::string_view name = "gather";
  static constexpr bool reduces = false, rooted = true, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false;

  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n,
                           bool is_root) {
    return in_place && is_root ? out_size / static_cast<std::size_t>(n) : in_size;
  }
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  static Windows windows(int, int rank, int root, std::uint32_t nb) {
    return {{true, static_cast<std::uint32_t>(rank), 1}, {rank == root, 0, nb}};
  }
  static InPlaceLayout in_place(int rank, int root) { return {rank == root, 0}; }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return rank == root ? from_rank(b, static_cast<int>(b)) : Expectation{};
  }
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
