// Pipelined (segmented) tree for large bcast/reduce (and allreduce = reduce + bcast): the message
// is cut into segments that stream down or up a tree of `fanout` children per node (1 = chain),
// so every link is busy at once instead of one tree level at a time.
#pragma once

#include <algorithm>

#include "cclx/algo/algorithm.hpp"

namespace cclx::algo {

struct PipelinedTree {
  static constexpr std::string_view name = "pipelined_tree";
  std::size_t segment_bytes = 1 << 20;
  int fanout = 2;

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::pipelined_tree(r, segment_bytes, fanout);
  }
  // The schedule depends on the number of segments, hence on the message size.
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest& r) const {
    const std::size_t segs = segment_bytes ? (r.bytes + segment_bytes - 1) / segment_bytes : 0;
    return "segment_bytes=" + std::to_string(segment_bytes) + ",fanout=" + std::to_string(fanout) +
           ",segments=" + std::to_string(std::clamp<std::size_t>(segs, 1, 1024));
  }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
