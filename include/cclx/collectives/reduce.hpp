// reduce: the root ends with the reduction of all ranks' vectors; other ranks' buffers are only
// read (in place or not, MPI leaves a non-root's send buffer alone).
//   count      elements of the whole vector; the output matters on the root only (it may be empty
//              elsewhere)
//   in place   one buffer: on the root, input then result (MPI_IN_PLACE); elsewhere the input
//   blocks     In = [0, nblocks); Out = [0, nblocks) on the root only
//   MPI        MPI_Reduce
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

struct Reduce {
  static constexpr Collective id = Collective::reduce;
  static constexpr std::string_view name = "reduce";
  static constexpr bool reduces = true, rooted = true, blocks_are_ranks = false,
                        equal_blocks = false, root_out_is_input = false;

  static std::size_t count(std::size_t in_size, std::size_t, bool, int, bool) { return in_size; }
  static std::size_t partition_count(std::size_t count, int) { return count; }
  static Windows windows(int, int rank, int root, std::uint32_t nb) {
    return {{true, 0, nb}, {rank == root, 0, nb}};
  }
  static InPlaceLayout in_place(int rank, int root) { return {rank == root, 0}; }
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return rank == root ? from_all(b) : Expectation{};
  }
  static std::string check_sizes(std::size_t in, std::size_t out, bool in_place, bool is_root,
                                 int) {
    if (!in_place && is_root && in != out)
      return size_mismatch(name, in, out, "output == input on the root");
    return {};
  }
};

}  // namespace cclx::coll
