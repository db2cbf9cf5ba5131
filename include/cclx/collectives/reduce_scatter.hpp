// reduce_scatter (equal blocks, MPI_Reduce_scatter_block): rank r ends with block r of the
// reduction of all ranks' vectors of n blocks.
//   count      elements of ONE block (the output); the input holds n * count
//   in place   one buffer of n blocks; the result goes to its first block (MPI_IN_PLACE)
//   blocks     nblocks == n; In = [0, n), Out = [r, r + 1)
//   MPI        MPI_Reduce_scatter_block
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

struct ReduceScatter {
  static constexpr Collective id = Collective::reduce_scatter;
  static constexpr std::string_view name = "reduce_scatter";
  static constexpr bool reduces = true, rooted = false, blocks_are_ranks = true,
                        equal_blocks = false, root_out_is_input = false;

  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n, bool) {
    return in_place ? in_size / static_cast<std::size_t>(n) : out_size;
  }
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  static Windows windows(int, int rank, int, std::uint32_t nb) {
    return {{true, 0, nb}, {true, static_cast<std::uint32_t>(rank), 1}};
  }
  // Out block r (the result) lands at the user buffer's first block.
  static InPlaceLayout in_place(int rank, int) { return {true, static_cast<std::uint32_t>(rank)}; }
  static Expectation expected(int rank, int, std::uint32_t b) {
    return b == static_cast<std::uint32_t>(rank) ? from_all(b) : Expectation{};
  }
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int n) {
    const auto un = static_cast<std::size_t>(n);
    if (in_place)
      return in % un ? not_divisible(name, "in-place buffer of ", in, n) : std::string{};
    if (in != out * un) return size_mismatch(name, in, out, "input == n * output");
    return {};
  }
};

}  // namespace cclx::coll
