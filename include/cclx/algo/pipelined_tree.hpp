// Pipelined (segmented) tree for large bcast/reduce (and allreduce = reduce + bcast): the message
// is cut into segments that stream down or up a tree of `fanout` children per node (1 = chain),
// so every link is busy at once instead of one tree level at a time.
#pragma once

#include <algorithm>

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Segmented tree with `fanout` children per node (1 = chain); the message is cut into segments of
/// at most `segment_bytes` (but never more than 1024 segments) that flow down (bcast) or up
/// (reduce) the tree in a pipeline.
Schedule pipelined_tree(const ScheduleRequest& req, std::size_t segment_bytes, int fanout);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: a segmented (pipelined) tree for large bcast and reduce, and allreduce as reduce +
/// bcast.
struct PipelinedTree {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "pipelined_tree";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::allreduce,
                                             sched::Collective::reduce, sched::Collective::bcast};
  /// Those of them on which it keeps rank order, so that non-commutative ops are honored.
  static constexpr std::array<sched::Collective, 3> keeps_rank_order = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::bcast};
  /// Bytes per pipeline segment (at least 1; default 1 MiB): each tree edge forwards the data in
  /// ceil(bytes / segment_bytes) segments, clamped to [1, 1024].
  std::size_t segment_bytes = 1 << 20;
  int fanout = 2;  ///< children per tree node, 1 to 1048576 (1: a chain)

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. int like fanout, so the
  /// policy has no padding and the plan cache keys it by its bytes.
  int channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(
            PipelinedTree, segment_bytes, 1, kUnbounded,
            "the pipeline's segment: each tree edge forwards the data in segments of this size"),
        CCLX_POLICY_PARAM(PipelinedTree, fanout, 1, 1 << 20, "children per tree node (1: a chain)"),
        CCLX_POLICY_PARAM(
            PipelinedTree, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::pipelined_tree(r, segment_bytes, fanout);
  }
  /// The schedule depends on the number of segments, hence on the message size.
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest& r) const {
    const std::size_t segs = segment_bytes ? (r.bytes + segment_bytes - 1) / segment_bytes : 0;
    return "segment_bytes=" + std::to_string(segment_bytes) + ",fanout=" + std::to_string(fanout) +
           ",segments=" + std::to_string(std::clamp<std::size_t>(segs, 1, 1024));
  }
  /// Default engine settings: the schedule already cuts the message into segments.
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
