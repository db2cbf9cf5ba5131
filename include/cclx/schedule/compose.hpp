// Composition of schedules: a schedule built from parts, each an existing generator's schedule for
// a subset of the ranks and a range of the blocks (a host's ranks, a lane's blocks), run phase
// after phase. What the hierarchical schedules (algo/hierarchical.hpp) are made of, so that the
// inter-host part is the flat generator itself, on the hosts' representatives.
//
// A part's rank i plays rank `ranks[i]` of the whole; its block b is a set of the whole's blocks
// (Embedding::blocks: a range of them, contiguous(), or a lane of an allgather, one block per host
// scattered over the whole's rank order; never part of a block); an op on blocks that are not
// adjacent in the whole
// becomes one op per run of adjacent blocks, the same on both ends of a transfer, since both name
// the same part blocks; an op on part blocks that cover none of the whole's disappears;
// its In and Out are the whole's buffers `in` and `out` (an allreduce's second phase works in place
// on Out: in = out = Buf::out; a reduce keeps a host's partial result in a Scratch copy of its
// own); its Scratch copy c is the whole's copy c, on the same blocks. Parts
// embedded in one phase run in the same steps: their programs are merged step by step, in the
// order of embedding, which every rank sees alike, so messages between one pair of ranks still
// match in order. A new phase starts after the longest program so far.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// A part's blocks in the whole: part block b is the whole's blocks [b] (any, in that order; none:
/// the part block is empty on the whole).
using BlockMap = std::vector<std::vector<std::uint32_t>>;

/// Where a part of a composed schedule runs: its ranks, its blocks and its buffers.
struct Embedding {
  std::vector<int> ranks;  ///< ranks[i]: the whole's rank playing the part's rank i
  BlockMap blocks;         ///< blocks[b]: the whole's blocks of part block b
  Buf in = Buf::in;        ///< the whole's buffer holding the part's In
  Buf out = Buf::out;      ///< the whole's buffer holding the part's Out
  /// When `in` is Buf::scratch: the copy of the whole's Scratch that holds the part's In, above
  /// every copy the parts use for their own Scratch (a partial result kept between phases on a
  /// rank without Out).
  std::uint32_t in_copy = 0;
  std::uint32_t out_copy = 0;  ///< the same for `out`
};

/// Block bounds for a part of `nblocks` blocks each covering `scale` blocks of the whole from
/// block `first` (for contiguous()).
[[nodiscard]] std::vector<std::uint32_t> block_bounds(std::uint32_t first, std::uint32_t nblocks,
                                                      std::uint32_t scale = 1);
/// The map of part blocks that are consecutive ranges of the whole: part block b is the whole's
/// [bounds[b], bounds[b + 1]).
[[nodiscard]] BlockMap contiguous(const std::vector<std::uint32_t>& bounds);

/// Builds a schedule of `nranks` ranks over `nblocks` blocks from embedded parts, phase by phase.
class ScheduleComposer {
 public:
  /// A composition for `nranks` ranks on a partition of `nblocks` blocks, every rank's program.
  ScheduleComposer(int nranks, std::uint32_t nblocks);
  /// A composition for `req`'s ranks on a partition of `nblocks` blocks, building the programs
  /// that `req` wants (ScheduleRequest::wants()).
  ScheduleComposer(const ScheduleRequest& req, std::uint32_t nblocks);
  /// Adds `part` to the current phase as `e` says; throws cclx::Error when `e` does not fit
  /// (rank or block counts differ from the part's, a block outside the whole, a copy or reduce
  /// whose operands split into different runs of the whole's blocks).
  void embed(const Schedule& part, const Embedding& e);
  /// Starts the next phase: parts embedded from now on begin after the longest part so far.
  void next_phase();
  /// Where each phase begins, and after them the end of the last: phase p is the steps
  /// [bounds[p], bounds[p + 1]) on every rank (for sched::pipeline(), schedule/channels.hpp).
  [[nodiscard]] std::vector<std::size_t> phase_bounds() const;
  /// The composed schedule: `header`'s fields (algorithm, collective, root, in_place, flags) with
  /// the programs, nranks, nblocks and the largest scratch_copies of the parts.
  [[nodiscard]] Schedule finish(Schedule header) const;

 private:
  int nranks_;
  std::uint32_t nblocks_;
  ScheduleRequest wanted_;  // whose programs to build (ScheduleRequest::wants())
  std::uint32_t scratch_copies_ = 1;
  std::size_t phase_start_ = 0, phase_end_ = 0;
  std::vector<std::size_t> phase_starts_{0};
  /// placed_[rank]: its ops with their steps, in the order embedded (finish() sorts them by step,
  /// keeping that order within a step); length_[rank]: its steps.
  std::vector<std::vector<std::pair<std::uint32_t, Op>>> placed_;
  std::vector<std::size_t> length_;
};

}  // namespace cclx::sched
