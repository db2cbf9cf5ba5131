// A collective call with the element type erased: what crosses from the templated API edge into
// the compiled library (argument checks, validation, native MPI, the engine).
#pragma once

#include <cstddef>

#include "cclx/ops.hpp"
#include "cclx/schedule/schedule.hpp"
#include "cclx/types.hpp"

namespace cclx {

struct CollectiveCall {
  sched::Collective collective = sched::Collective::allreduce;
  const void* in = nullptr;  // out-of-place input; equals `out` for in-place calls
  void* out = nullptr;
  bool in_place = false;
  // Elements per block as the user sees it: the whole vector for allreduce/reduce/bcast; one
  // rank's block for reduce_scatter/allgather/alltoall.
  std::size_t count = 0;
  std::size_t out_size = 0;  // elements the user's output holds (for size checks)
  std::size_t in_size = 0;   // elements the user's input holds
  DataType type = DataType::u8;
  ReduceKernel kernel{};  // also carries elem_size
  int root = 0;
  bool has_op = false;  // reductions only
};

// Elements in the schedule's partition (all blocks) for a communicator of `nranks`.
[[nodiscard]] inline std::size_t partition_count(const CollectiveCall& c, int nranks) {
  switch (c.collective) {
    case sched::Collective::reduce_scatter:
    case sched::Collective::allgather:
    case sched::Collective::alltoall:
      return c.count * static_cast<std::size_t>(nranks);
    default:
      return c.count;
  }
}

}  // namespace cclx
