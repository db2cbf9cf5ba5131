#include "cclx/detail/call_support.hpp"

#include <cstdint>

#include "cclx/error.hpp"
#include "cclx/schedule/partition.hpp"

namespace cclx::detail {

using sched::Collective;

std::string check_call(const CollectiveCall& c, int rank, int n) {
  // Strings are built only on failure: this runs on every call, including 8-byte native ones.
  const auto what = [&] { return std::string(sched::to_string(c.collective)); };
  const auto un = static_cast<std::size_t>(n);
  const bool rooted = c.collective == Collective::reduce || c.collective == Collective::bcast;
  if (rooted && (c.root < 0 || c.root >= n))
    return what() + ": invalid root " + std::to_string(c.root) + " (communicator has " +
           std::to_string(n) + " ranks)";
  const bool is_root = rank == c.root;
  // Out of reduce matters on the root only.
  const bool uses_out = c.collective != Collective::reduce || is_root;
  if (c.in_size && !c.in)
    return what() + ": input is null but has " + std::to_string(c.in_size) + " elements";
  if (uses_out && c.out_size && !c.out)
    return what() + ": output is null but has " + std::to_string(c.out_size) + " elements";

  if (c.in_place) {
    const bool blocked = c.collective == Collective::reduce_scatter ||
                         c.collective == Collective::allgather ||
                         c.collective == Collective::alltoall;
    if (blocked && c.out_size % un)
      return what() + ": in-place buffer of " + std::to_string(c.out_size) +
             " elements is not divisible into " + std::to_string(n) + " equal blocks";
    return {};
  }
  auto mismatch = [&](const char* rule) {
    return what() + ": buffer sizes do not match (input " + std::to_string(c.in_size) +
           ", output " + std::to_string(c.out_size) + " elements; expected " + rule + ")";
  };
  switch (c.collective) {
    case Collective::allreduce:
      if (c.in_size != c.out_size) return mismatch("output == input");
      break;
    case Collective::reduce:
      if (is_root && c.in_size != c.out_size) return mismatch("output == input on the root");
      break;
    case Collective::reduce_scatter:
      if (c.in_size != c.out_size * un) return mismatch("input == n * output");
      break;
    case Collective::allgather:
      if (c.out_size != c.in_size * un) return mismatch("output == n * input");
      break;
    case Collective::alltoall:
      if (c.in_size != c.out_size) return mismatch("output == input");
      if (c.in_size % un)
        return what() + ": " + std::to_string(c.in_size) + " elements are not divisible into " +
               std::to_string(n) + " equal blocks";
      break;
    case Collective::bcast:
      break;
  }
  if (uses_out && c.in && c.out) {
    const auto* a = static_cast<const std::byte*>(c.in);
    const auto* b = static_cast<const std::byte*>(c.out);
    const std::size_t es = c.kernel.elem_size;
    if (a < b + c.out_size * es && b < a + c.in_size * es)
      return what() +
             ": input and output buffers overlap (use the one-buffer overload for an "
             "in-place call)";
  }
  return {};
}

sched::ScheduleRequest schedule_request(const CollectiveCall& c, int rank, int n) {
  sched::ScheduleRequest r;
  r.collective = c.collective;
  r.nranks = n;
  r.root = c.root;
  r.in_place = c.in_place;
  r.bytes = partition_count(c, n) * c.kernel.elem_size;
  r.only_rank = rank;
  return r;
}

void check_schedule(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  if (c.has_op && !c.kernel.commutative && !s.preserves_order)
    throw Error(rank, "algorithm '" + s.algorithm +
                          "' reorders contributions and cannot honor "
                          "a non-commutative op; use an order-preserving algorithm (binomial_tree, "
                          "native)");
  if (static_cast<int>(s.programs.size()) <= rank)
    throw Error(rank, "algorithm '" + s.algorithm + "' produced no program for this rank");
}

engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  engine::Buffers b;
  b.count = partition_count(c, s.nranks);
  b.in = c.in;
  b.out = c.out;
  switch (c.collective) {
    case Collective::bcast:
      b.in = nullptr;
      break;
    case Collective::reduce:
      if (rank != c.root) b.out = nullptr;
      break;
    case Collective::allgather:
      if (c.in_place) {
        const sched::Partition p{b.count, s.nblocks};
        b.in = static_cast<const std::byte*>(c.out) +
               p.block_offset(static_cast<std::uint32_t>(rank)) * c.kernel.elem_size;
      }
      break;
    default:
      break;  // in place: in == out; reduce_scatter's Out window maps to the buffer's start
  }
  return b;
}

}  // namespace cclx::detail
