// A plan: one rank's program of a schedule resolved for one buffer shape, i.e. everything the
// engine can work out before any byte moves. Made once and shared: a persistent request makes its
// plan at init, one-shot calls find theirs in the Communicator's plan cache (plan_cache.hpp), so
// that starting an execution costs only the transfers and the local reductions.
//
// What it holds, per op: each region as a byte range of its buffer (In, Out, Scratch) relative to
// the buffer's base; per step: which local op runs segment by segment as a receive lands
// (pipelining), and the peers of the receiver-ready handshake; overall: the scratch size and the
// segment size in whole elements. The pipelining decision depends on which regions overlap, so a
// plan is made for one aliasing of In and Out: disjoint (out of place), or, in place, In at a
// fixed byte distance from Out (the same for every call of the same shape, partition.hpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "cclx/block_counts.hpp"
#include "cclx/engine/execution_options.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::engine {

// Where a rank's buffers are. For in-place calls `in` points into the user's buffer as described
// in partition.hpp; the Communicator computes that.
struct Buffers {
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t count = 0;  // elements in the partition (all blocks)
  // v-collectives: the element counts of Out's blocks, which Scratch follows, and of In's where
  // they differ (alltoallv's sendcounts; null: as Out's), read by make_plan only (the plan keeps
  // the byte ranges they give). Null: the even split of `count` (sched::Partition).
  const detail::IntArray* out_counts = nullptr;
  const detail::IntArray* in_counts = nullptr;
  // Non-null: Scratch is this memory (at least the plan's scratch_bytes, 64-byte aligned), e.g.
  // one that the two phases of a relay collective share; null: the execution's own, from the pool.
  void* scratch = nullptr;
};

struct Plan {
  // A region as bytes of one buffer: [offset, offset + bytes) from the buffer's base.
  struct Range {
    sched::Buf buf = sched::Buf::out;
    std::size_t offset = 0, bytes = 0;
  };
  struct Op {
    sched::OpKind kind = sched::OpKind::copy;
    bool held = false;           // a send that waits for its receiver's ready token this step
    std::int32_t peer = -1;      // send / recv
    std::int32_t attached = -1;  // recv: the local op (index in its step) that runs as it lands
    Range dst, src, src2;
  };

  std::shared_ptr<const sched::Schedule> schedule;  // names for messages; keeps it alive
  int rank = 0;
  std::size_t count = 0, elem_size = 1;
  // In place with both buffers present: In lies `alias` bytes after Out (may be negative).
  // coll::synchronizes (barrier): empty transfers are posted as empty messages.
  bool synchronizes = false;
  bool aliased = false;
  std::ptrdiff_t alias = 0;
  std::size_t scratch_bytes = 0;
  std::size_t segment_bytes = 0;  // whole elements; 0: one message per transfer
  std::size_t handshake_bytes = 0;

  std::vector<Op> ops;  // flat, as in sched::Program: step s is ops[step_begin[s], step_begin[s+1])
  std::vector<std::uint32_t> step_begin{0};
  // Per step s: the peers whose ready token we wait for before sending (held[held_begin[s] ..
  // held_begin[s+1])), and the peers we tell that our receives are posted (ready[...]).
  std::vector<int> held, ready;
  std::vector<std::uint32_t> held_begin{0}, ready_begin{0};
  std::size_t max_step_ops = 0;  // the most ops of any step
  std::size_t max_posted = 0;    // the most transfers (segments and tokens) posted in any step

  [[nodiscard]] std::size_t num_steps() const { return step_begin.size() - 1; }
  [[nodiscard]] const Op* step_ops(std::size_t s) const { return ops.data() + step_begin[s]; }
  [[nodiscard]] std::size_t step_size(std::size_t s) const {
    return step_begin[s + 1] - step_begin[s];
  }
  // Whether buffers of a call may use this plan: same aliasing of In and Out.
  [[nodiscard]] bool fits(const Buffers& b) const;
};

// The plan of `rank`'s program of `schedule` for buffers shaped like `buffers` (only their
// aliasing and a v-collective's counts matter, not where they are) and elements of `elem_size`
// bytes; reads options.segment_bytes and options.handshake_bytes. Throws cclx::Error if the
// schedule is not for transport_size ranks.
std::shared_ptr<const Plan> make_plan(std::shared_ptr<const sched::Schedule> schedule, int rank,
                                      int transport_size, const Buffers& buffers,
                                      std::size_t elem_size, const ExecOptions& options);

}  // namespace cclx::engine
