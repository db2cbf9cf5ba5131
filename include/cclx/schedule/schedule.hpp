// Schedules are data: an algorithm produces one, backends (MPI engine, simulator, CUDA) execute it,
// the verifier proves it. Nothing here knows element types or transports.
//
// Model
// -----
// A collective works on a partition of the user's data into `nblocks` blocks (see partition.hpp).
// Each rank owns three logical buffers addressed in blocks of that partition:
//   In      the user's input   (read-only unless the call is in place)
//   Out     the user's output
//   Scratch library-owned temporary storage: `scratch_copies` copies of the partition's layout;
//           scratch block b + j * nblocks is block b's place in copy j (same size as block b)
// and the collective's buffer windows (windows.hpp) say which blocks In and Out cover on a rank.
//
// A rank's program is a sequence of steps (rounds). Step s of every rank runs "together": a send in
// step s matches, in order, the receive of the same peer pair in step s. Within one step
//   1. every Send reads the state from before the step,
//   2. every Recv lands its message in its region,
//   3. then the Copy/Reduce actions run in program order.
// Executors may start a Reduce/Copy as soon as the receive it consumes has landed (pipelining);
// the verifier rejects steps where that could change the result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace cclx::sched {

/// The collectives a schedule can perform (one descriptor each, collectives/collectives.hpp).
enum class Collective : std::uint8_t {
  allreduce,
  reduce,
  bcast,
  reduce_scatter,
  allgather,
  alltoall,
  gather,
  scatter,
  barrier,
  // Per-rank block sizes (include/cclx/collectives/<name>.hpp): schedules in blocks as their
  // equal-block counterparts, block b holding counts[b] elements.
  gatherv,
  scatterv,
  allgatherv,
  reduce_scatterv,
  alltoallv
};

/// The logical buffers of a rank: the user's In and Out, and library-owned Scratch.
enum class Buf : std::uint8_t { in, out, scratch };

/// A contiguous range of blocks [first, first + count) in one buffer.
struct Region {
  Buf buf = Buf::out;       ///< In, Out or Scratch
  std::uint32_t first = 0;  ///< first block; Scratch: b + j * nblocks is block b of copy j
  std::uint32_t count = 0;  ///< number of blocks; 0: the empty region (token())

  /// One past the last block: first + count.
  [[nodiscard]] std::uint32_t end() const { return first + count; }
  /// Same buffer, first block and count.
  friend bool operator==(const Region&, const Region&) = default;
};

/// What an Op does: a transfer between ranks (send, recv) or a local op (copy, reduce).
enum class OpKind : std::uint8_t {
  send,    ///< send `src` to `peer`
  recv,    ///< receive from `peer` into `dst`
  copy,    ///< dst <- src
  reduce,  ///< dst <- src (+) src2; `src` is the left operand (matters for non-commutative ops)
};

/// One operation of a schedule step: a send, receive, copy or reduction of block ranges.
struct Op {
  /// What the op does; it decides which of the fields below are used.
  OpKind kind = OpKind::copy;
  std::int32_t peer = -1;  ///< send/recv only
  Region dst{};            ///< recv, copy, reduce
  Region src{};            ///< send, copy, reduce
  Region src2{};           ///< reduce only

  /// Whether the op is a send or a recv, i.e. moves data between ranks.
  [[nodiscard]] bool is_transfer() const { return kind == OpKind::send || kind == OpKind::recv; }
  /// Same kind, peer and regions.
  friend bool operator==(const Op&, const Op&) = default;
};

/// One rank's program, stored flat: step s is ops[step_begin[s], step_begin[s + 1]).
struct Program {
  std::vector<Op> ops;  ///< every step's ops, step after step
  /// Index in `ops` of each step's first op, and ops.size() at the end (num_steps() + 1 entries).
  std::vector<std::uint32_t> step_begin{0};

  /// Steps in the program; an empty step is a round the rank idles.
  [[nodiscard]] std::size_t num_steps() const { return step_begin.size() - 1; }
  /// The ops of step s, step_size(s) of them in a row.
  [[nodiscard]] const Op* step_data(std::size_t s) const { return ops.data() + step_begin[s]; }
  /// The number of ops in step s.
  [[nodiscard]] std::size_t step_size(std::size_t s) const {
    return step_begin[s + 1] - step_begin[s];
  }
  /// Same ops in the same steps.
  friend bool operator==(const Program&, const Program&) = default;
};

/// A collective algorithm as data: per rank, steps of operations on block ranges.
struct Schedule {
  std::string algorithm;  ///< e.g. "ring"; with parameters in `params` for display / cache keys
  std::string params;     ///< human-readable parameter string, e.g. "segments=4"
  /// The collective it performs.
  Collective collective = Collective::allreduce;
  /// The number of ranks it is for.
  int nranks = 1;
  int root = 0;  ///< reduce / bcast only
  /// Whether it was made for an in-place call (layouts: `collectives/<name>.hpp`).
  bool in_place = false;
  /// Blocks in the partition of the data (partition.hpp).
  std::uint32_t nblocks = 1;
  /// Whether the schedule combines contributions in rank order (so non-commutative ops are
  /// honored).
  bool preserves_order = false;
  /// Set by a generator when every reduced element is combined in the canonical order
  /// (canonical_order.hpp): the builtin floating-point sum and product then give the same bits as
  /// any other schedule that claims it, whatever its algorithm. The verifier checks the claim.
  bool canonical_order = false;
  /// Leading steps that are a preparation phase rather than the algorithm's rounds, e.g.
  /// StragglAR's reduce-scatter among the non-stragglers while the straggler is late. Counted in
  /// num_rounds(); reported separately by tools and the simulator.
  std::uint32_t prologue_steps = 0;
  /// Set by a generator when every rank receives from at most one peer over the whole program (a
  /// ring): a step's data can then never meet another sender's data at the receiver, so the engine
  /// skips the receiver-ready handshake (engine::ExecOptions::handshake_bytes), which would only
  /// add latency. A property of the whole schedule, so every rank sees the same value even when it
  /// generated only its own program; the verifier checks the claim.
  bool one_sender_per_receiver = false;
  /// Copies of the partition that Scratch provides (a region stays inside one copy). Ranks that
  /// must hold a partial result and an arriving message at once without an Out buffer (a non-root
  /// rank of reduce) need two.
  std::uint32_t scratch_copies = 1;
  std::vector<Program> programs;  ///< one per rank; may hold only the ranks that were asked for

  /// Rounds = the number of steps of the longest program.
  [[nodiscard]] std::size_t num_rounds() const {
    std::size_t r = 0;
    for (const auto& p : programs) r = p.num_steps() > r ? p.num_steps() : r;
    return r;
  }
  /// The algorithm's own rounds (StragglAR: after the straggler joins); what tools report as the
  /// round count next to num_rounds().
  [[nodiscard]] std::size_t rounds_after_prologue() const {
    const auto r = num_rounds();
    return r > prologue_steps ? r - prologue_steps : 0;
  }
};

/// The collective's user-visible name ("allreduce", "reduce_scatterv", ...).
[[nodiscard]] std::string_view to_string(Collective c);
/// "in", "out" or "scratch".
[[nodiscard]] std::string_view to_string(Buf b);
/// "send", "recv", "copy" or "reduce".
[[nodiscard]] std::string_view to_string(OpKind k);
/// Throws cclx::Error for an unknown name.
[[nodiscard]] Collective collective_from_string(std::string_view name);

/// Appends steps and ops to a Program; algorithms use it so they never touch the flat layout.
class ProgramBuilder {
 public:
  /// Appends to `p` after the steps it has; `p` must outlive the builder.
  explicit ProgramBuilder(Program& p) : p_(&p) {}
  /// Ops added since the last end_step() form one step; an empty step is a round this rank idles.
  ProgramBuilder& end_step() {
    p_->step_begin.push_back(static_cast<std::uint32_t>(p_->ops.size()));
    return *this;
  }
  /// Adds a send of `src` to rank `peer` to the current step.
  ProgramBuilder& send(int peer, Region src) {
    p_->ops.push_back(Op{OpKind::send, peer, {}, src, {}});
    return *this;
  }
  /// Adds a receive from rank `peer` into `dst` to the current step.
  ProgramBuilder& recv(int peer, Region dst) {
    p_->ops.push_back(Op{OpKind::recv, peer, dst, {}, {}});
    return *this;
  }
  /// Adds a copy of `src` into `dst` to the current step.
  ProgramBuilder& copy(Region dst, Region src) {
    p_->ops.push_back(Op{OpKind::copy, -1, dst, src, {}});
    return *this;
  }
  /// Adds dst = left (+) right to the current step; the order matters for non-commutative ops.
  ProgramBuilder& reduce(Region dst, Region left, Region right) {
    p_->ops.push_back(Op{OpKind::reduce, -1, dst, left, right});
    return *this;
  }

 private:
  Program* p_;
};

/// Helpers for readable generators: `count` blocks of In from block `first`.
inline Region in(std::uint32_t first, std::uint32_t count = 1) {
  return {Buf::in, first, count};
}
/// `count` blocks of Out from block `first`.
inline Region out(std::uint32_t first, std::uint32_t count = 1) {
  return {Buf::out, first, count};
}
/// `count` blocks of Scratch from block `first` (b + j * nblocks: block b of copy j).
inline Region scratch(std::uint32_t first, std::uint32_t count = 1) {
  return {Buf::scratch, first, count};
}
/// The empty region: a transfer of it is a message without data. Only synchronizing collectives
/// (barrier) have the engine post such a message; for the others an empty transfer is skipped
/// (collectives/barrier.hpp).
inline Region token() {
  return {Buf::scratch, 0, 0};
}

}  // namespace cclx::sched
