// bcast: every rank ends with the root's vector.
//   count      elements of the vector; one buffer on every rank (always "in place")
//   blocks     no In; Out = [0, nblocks), which holds the data on the root initially
//   MPI        MPI_Bcast
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

struct Bcast {
  static constexpr Collective id = Collective::bcast;
  static constexpr std::string_view name = "bcast";
  static constexpr bool reduces = false, rooted = true, blocks_are_ranks = false,
                        equal_blocks = false, root_out_is_input = true;

  static std::size_t count(std::size_t, std::size_t out_size, bool, int, bool) { return out_size; }
  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int, int, int, std::uint32_t nb) { return {{false, 0, 0}, {true, 0, nb}}; }
  static InPlaceLayout in_place(int, int) { return {false, 0}; }
  static Expectation expected(int, int root, std::uint32_t b) { return from_rank(b, root); }
  static std::string check_sizes(std::size_t, std::size_t, bool, bool, int) { return {}; }
};

}  // namespace cclx::coll
