// A collective call with the element type erased: what crosses from the templated API edge into
// the compiled library (argument checks, validation, native MPI, the engine).
#pragma once

#include <cstddef>

#include "cclx/block_counts.hpp"
#include "cclx/ops.hpp"
#include "cclx/schedule/schedule.hpp"
#include "cclx/types.hpp"

namespace cclx {

/// A collective call with its element type erased: what crosses from the typed API into the
/// compiled library.
struct CollectiveCall {
  sched::Collective collective = sched::Collective::allreduce;  ///< the collective called
  const void* in = nullptr;  ///< out-of-place input; equals `out` for in-place calls
  void* out = nullptr;       ///< the output; also the input of an in-place call
  bool in_place = false;     ///< one buffer is both input and output (MPI_IN_PLACE)
  /// As MPI counts it: the descriptor's count() (`collectives/<name>.hpp`) from the buffer sizes;
  /// for a v-collective the total of the partition's blocks (Out's counts).
  std::size_t count = 0;
  std::size_t out_size = 0;      ///< elements the user's output holds (for size checks)
  std::size_t in_size = 0;       ///< elements the user's input holds
  DataType type = DataType::u8;  ///< the element type
  ReduceKernel kernel{};         ///< also carries elem_size
  int root = 0;  ///< the root rank of a rooted collective (bcast, reduce, ...); 0 for the others
  bool has_op = false;  ///< reductions only
  /// The communicator is in reproducible mode (Communicator::set_reproducible, CCLX_REPRODUCIBLE):
  /// an order-sensitive reduction must combine in the canonical order (needs_canonical_order()).
  bool reproducible = false;
  /// v-collectives only (null otherwise): the caller's counts and displacements, valid during the
  /// call (whatever must outlive it copies them).
  const detail::BlockCounts* blocks = nullptr;
};

/// Whether `c` must combine every element in the canonical order (schedule/canonical_order.hpp):
/// a reduction in reproducible mode whose op gives other bits in another order, on more than two
/// ranks (one or two contributions combine the same way in every algorithm).
[[nodiscard]] inline bool needs_canonical_order(const CollectiveCall& c, int nranks) {
  return nranks > 2 && c.reproducible && c.has_op && order_sensitive(c.kernel);
}

}  // namespace cclx
