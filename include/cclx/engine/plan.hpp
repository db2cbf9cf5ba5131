// A plan: one rank's program of a schedule resolved for one buffer shape, i.e. everything the
// engine can work out before any byte moves. Made once and shared: a persistent request makes its
// plan at init, one-shot calls find theirs in the Communicator's plan cache (call/plan.hpp), so
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

/// Where a rank's buffers are. For in-place calls `in` points into the user's buffer as the
/// collective's in-place layout says (`collectives/<name>.hpp`); the Communicator computes that.
struct Buffers {
  /// The rank's In at its window's first block (partition.hpp); null where the rank has no In.
  const void* in = nullptr;
  /// The rank's Out at its window's first block; null where the rank has no Out.
  void* out = nullptr;
  std::size_t count = 0;  ///< elements in the partition (all blocks)
  /// v-collectives: the element counts of Out's blocks, which Scratch follows, read by make_plan
  /// only (the plan keeps the byte ranges they give). Null: the even split of `count`
  /// (sched::Partition).
  const detail::IntArray* out_counts = nullptr;
  /// v-collectives: the element counts of In's blocks where they differ from Out's (alltoallv's
  /// sendcounts), read by make_plan only. Null: In's blocks are sized as Out's.
  const detail::IntArray* in_counts = nullptr;
  /// Non-null: Scratch is this memory (at least the plan's scratch_bytes, 64-byte aligned), e.g.
  /// one that the two phases of a relay collective share; null: the execution's own, from the pool.
  void* scratch = nullptr;
};

/// A schedule resolved for one rank and one buffer shape: byte ranges, handshakes, scratch size.
struct Plan {
  /// A region as bytes of one buffer: [offset, offset + bytes) from the buffer's base.
  struct Range {
    sched::Buf buf = sched::Buf::out;  ///< the buffer: In, Out or Scratch
    /// Where the range starts, in bytes from the buffer's base.
    std::size_t offset = 0, bytes = 0;  ///< length of the range in bytes
  };
  /// One operation of a plan step, its regions as byte ranges.
  struct Op {
    sched::OpKind kind = sched::OpKind::copy;  ///< send, recv, copy or reduce
    bool held = false;           ///< a send that waits for its receiver's ready token this step
    std::int32_t peer = -1;      ///< send / recv
    std::int32_t attached = -1;  ///< recv: the local op (index in its step) that runs as it lands
    /// \var dst
    /// Where a recv lands and a copy or reduce writes.
    /// \var src
    /// What a send sends and a copy copies; a reduce's left operand.
    /// \var src2
    /// A reduce's right operand.
    Range dst, src, src2;
  };

  std::shared_ptr<const sched::Schedule> schedule;  ///< names for messages; keeps it alive
  /// The rank whose program this is.
  int rank = 0;
  /// Elements in the partition (all blocks), as Buffers::count.
  std::size_t count = 0, elem_size = 1;  ///< bytes per element
  /// coll::synchronizes (barrier): empty transfers are posted as empty messages.
  bool synchronizes = false;
  /// In place with both buffers present: In lies `alias` bytes after Out (may be negative).
  bool aliased = false;
  std::ptrdiff_t alias = 0;  ///< In's address minus Out's, in bytes, when aliased; else 0
  /// The Scratch the plan needs, in bytes: the end of its highest Scratch range; 0: none.
  std::size_t scratch_bytes = 0;
  std::size_t segment_bytes = 0;  ///< whole elements; 0: one message per transfer
  /// The receiver-ready threshold in bytes (ExecOptions::handshake_bytes); 0: no handshake, as
  /// always for a schedule where every rank receives from one peer only.
  std::size_t handshake_bytes = 0;

  std::vector<Op> ops;  ///< flat (sched::Program): step s is ops[step_begin[s], step_begin[s+1])
  /// Index in `ops` of each step's first op, and ops.size() at the end (num_steps() + 1 entries).
  std::vector<std::uint32_t> step_begin{0};
  /// \var held
  /// Per step s, in [held_begin[s], held_begin[s+1]): the peers whose ready token we wait for
  /// before sending to them.
  /// \var ready
  /// Per step s, in [ready_begin[s], ready_begin[s+1]): the peers we tell that our receives are
  /// posted.
  std::vector<int> held, ready;
  /// \var held_begin
  /// Index in `held` of each step's first entry, and held.size() at the end.
  /// \var ready_begin
  /// Index in `ready` of each step's first entry, and ready.size() at the end.
  std::vector<std::uint32_t> held_begin{0}, ready_begin{0};
  std::size_t max_step_ops = 0;  ///< the most ops of any step
  std::size_t max_posted = 0;    ///< the most transfers (segments and tokens) posted in any step

  /// Steps in the rank's program.
  [[nodiscard]] std::size_t num_steps() const { return step_begin.size() - 1; }
  /// The ops of step s, step_size(s) of them in a row.
  [[nodiscard]] const Op* step_ops(std::size_t s) const { return ops.data() + step_begin[s]; }
  /// The number of ops in step s.
  [[nodiscard]] std::size_t step_size(std::size_t s) const {
    return step_begin[s + 1] - step_begin[s];
  }
  /// Whether buffers of a call may use this plan: same aliasing of In and Out.
  [[nodiscard]] bool fits(const Buffers& b) const;
};

/// The plan of `rank`'s program of `schedule` for buffers shaped like `buffers` (only their
/// aliasing and a v-collective's counts matter, not where they are) and elements of `elem_size`
/// bytes; reads options.segment_bytes and options.handshake_bytes. Throws cclx::Error if the
/// schedule is not for transport_size ranks.
std::shared_ptr<const Plan> make_plan(std::shared_ptr<const sched::Schedule> schedule, int rank,
                                      int transport_size, const Buffers& buffers,
                                      std::size_t elem_size, const ExecOptions& options);

}  // namespace cclx::engine
