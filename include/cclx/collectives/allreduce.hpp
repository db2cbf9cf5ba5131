// allreduce: every rank ends with the reduction of all ranks' vectors.
//   count      elements of the whole vector (input and output both hold `count`)
//   in place   one buffer: input, then result (MPI_IN_PLACE)
//   blocks     In = Out = [0, nblocks) on every rank
//   MPI        MPI_Allreduce
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

struct Allreduce {
  static constexpr Collective id = Collective::allreduce;
  static constexpr std::string_view name = "allreduce";
  static constexpr bool reduces = true, rooted = false, blocks_are_ranks = false,
                        equal_blocks = false, root_out_is_input = false;

  static std::size_t count(std::size_t in_size, std::size_t, bool, int, bool) { return in_size; }
  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int, int, int, std::uint32_t nb) { return {{true, 0, nb}, {true, 0, nb}}; }
  static InPlaceLayout in_place(int, int) { return {}; }
  static Expectation expected(int, int, std::uint32_t b) { return from_all(b); }
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool, int) {
    if (!in_place && in != out) return size_mismatch(name, in, out, "output == input");
    return {};
  }
};

}  // namespace cclx::coll
