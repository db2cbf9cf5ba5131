// Ring: reduce-scatter + allgather around the ring (bandwidth-optimal, 2(n-1) steps), also
// reduce_scatter, allgather and a pairwise-shift alltoall. Reorders contributions, so it refuses
// non-commutative ops.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::algo {

struct Ring {
  static constexpr std::string_view name = "ring";
  // Each step's block is sent in segments of this size so that reducing one segment overlaps
  // receiving the next (0: one message per block).
  std::size_t segment_bytes = 0;

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::ring(r);
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {segment_bytes, {}}; }
};

}  // namespace cclx::algo
