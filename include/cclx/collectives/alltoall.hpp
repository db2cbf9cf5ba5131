// alltoall: block i of rank r's input goes to rank i, where it lands as block r of the output.
//   count      elements of ONE block; input and output both hold n * count
//   in place   one buffer of n blocks, input then output (MPI_IN_PLACE)
//   blocks     nblocks == n, all of equal size; In = Out = [0, n)
//   MPI        MPI_Alltoall
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

struct Alltoall {
  static constexpr Collective id = Collective::alltoall;
  static constexpr std::string_view name = "alltoall";
  static constexpr bool reduces = false, rooted = false, blocks_are_ranks = true,
                        equal_blocks = true, root_out_is_input = false;

  static std::size_t count(std::size_t in_size, std::size_t out_size, bool in_place, int n, bool) {
    return (in_place ? out_size : in_size) / static_cast<std::size_t>(n);
  }
  static std::size_t partition_count(std::size_t count, int n) {
    return count * static_cast<std::size_t>(n);
  }
  static Windows windows(int, int, int, std::uint32_t nb) { return {{true, 0, nb}, {true, 0, nb}}; }
  static InPlaceLayout in_place(int, int) { return {}; }
  // Rank r's Out block b is rank b's In block r.
  static Expectation expected(int rank, int, std::uint32_t b) {
    return from_rank(static_cast<std::uint32_t>(rank), static_cast<int>(b));
  }
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
