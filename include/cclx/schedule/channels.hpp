// Channels: one collective split into k sub-collectives over contiguous parts of the data (NCCL's
// channels, AdapCC's parallel sub-collectives), as a transform of any generator's schedule.
//
// The call's partition of nb blocks (what the generator uses) becomes one of k * nb blocks, part j
// owning blocks [j * nb, (j + 1) * nb): with partition.hpp's even split these are k contiguous
// element ranges that differ by at most one block's rounding, and each part runs the algorithm's
// own schedule on its nb blocks. Step s of the split schedule holds step s of every part, part 0's
// ops first. Between a pair of ranks the engine matches a step's messages in posting order (op
// order), and every part's own schedule matches in order, so the concatenation matches part j's
// i-th message with part j's i-th message and never across parts: no extra tags are needed, and
// the verifier proves the split schedule like any other. The parts' transfers of a step are in
// flight together; the parts advance step by step together (not decoupled across steps).
//
// Only collectives whose partition is not one block per rank split this way (allreduce, reduce,
// bcast): with one block per rank (allgather, alltoall, ...) a part would be a strided slice of
// every rank's block, which the partition cannot express. Barrier moves no data.
//
// A pipeline splits the data the same way, but staggers the parts: a schedule made of phases (a
// hierarchical composition's intra-host, inter-host and intra-host phases) runs as a pipeline whose
// stages are the phases. Segment j's phase p starts once segment j's phase p - 1 and segment
// j - 1's phase p have ended, so while one segment crosses the hosts the next one reduces inside
// its host. The same ordering argument as for channels makes the messages match.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// The largest channel count accepted (a part per channel; more only adds messages).
inline constexpr long long max_channels = 64;

/// Whether `c` can be split into channels (see above).
[[nodiscard]] bool splits_into_channels(Collective c);

/// `k` as the number of parts of a split of `req`'s collective asked for by parameter `param`
/// (its parts called `parts` in messages): throws cclx::Error, naming `algorithm`, when k is
/// outside [1, max_channels], or above 1 for a collective that does not split.
[[nodiscard]] std::uint32_t split_count(std::string_view algorithm, std::string_view param,
                                        std::string_view parts, long long k, Collective c);

/// The request every part is generated from: `req` with bytes / channels (req for channels <= 1).
[[nodiscard]] inline ScheduleRequest channel_part_request(ScheduleRequest req, long long channels) {
  if (channels > 1) req.bytes /= static_cast<std::size_t>(channels);
  return req;
}

/// `generate(req)` split into `channels` parts as above; channels == 1 returns generate(req)
/// unchanged. Every part is generated from channel_part_request() (a generator that sizes its
/// blocks by req.bytes, the pipelined tree, sees bytes / channels), so they share one schedule
/// shape. Throws cclx::Error, naming `algorithm`, when channels is outside [1, max_channels] or
/// `req`'s collective does not split.
[[nodiscard]] Schedule split_channels(
    std::string_view algorithm, const ScheduleRequest& req, long long channels,
    const std::function<Schedule(const ScheduleRequest&)>& generate);

/// Where sched::pipeline() puts each copy of a segment's schedule: segment j's step s and its
/// regions in the pipelined schedule. What a consumer needs to price a pipeline from its segment
/// without building it (algo::Auto's model; ScheduleRequest::segment_only).
class PipelineLayout {
 public:
  /// The layout of `shape.segments` copies of a segment of `segment_nblocks` blocks whose phases
  /// are `shape.phase_bounds` (the last bound its round count on every rank).
  PipelineLayout(const PipelineShape& shape, std::uint32_t segment_nblocks);

  /// The copies of the segment (1: not pipelined).
  [[nodiscard]] std::uint32_t segments() const { return segments_; }
  /// Blocks of the pipelined schedule's partition: segments * the segment's.
  [[nodiscard]] std::uint32_t nblocks() const { return segments_ * segment_nblocks_; }
  /// The pipelined step of segment j's step s.
  [[nodiscard]] std::size_t step(std::uint32_t j, std::size_t s) const;
  /// Segment j's copy of region g of the segment.
  [[nodiscard]] Region region(Region g, std::uint32_t j) const;

 private:
  std::vector<std::size_t> bounds_;
  std::uint32_t segments_, segment_nblocks_;
  /// start_[j * phases + p]: the pipelined step where segment j's phase p begins.
  std::vector<std::size_t> start_;
};

/// `segment` (a schedule of nb blocks) on `segments` contiguous ranges of segments * nb blocks,
/// pipelined as above: phase p of `segment` is its steps [phase_bounds[p], phase_bounds[p + 1])
/// (the last bound its round count on every rank). Part j's ops in a step follow part j - 1's; the
/// params gain ",pipeline=<segments>". segments <= 1 returns `segment` unchanged.
[[nodiscard]] Schedule pipeline(Schedule segment, std::span<const std::size_t> phase_bounds,
                                std::uint32_t segments);

}  // namespace cclx::sched
