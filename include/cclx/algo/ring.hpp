// Ring: reduce-scatter + allgather around the ring (bandwidth-optimal, 2(n-1) steps); the
// reduce_scatter and allgather halves on their own; alltoall as a pairwise shift; the same
// schedules serve reduce_scatterv, allgatherv and alltoallv (per-rank block sizes). It adds
// contributions in rotated order.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Ring allreduce (reduce-scatter + allgather), reduce_scatter, allgather, pairwise-shift alltoall,
/// and their v-collectives.
Schedule ring(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: ring reduce-scatter + allgather (bandwidth-optimal), their halves, and alltoall as a
/// pairwise shift.
struct Ring {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "ring";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {
      sched::Collective::allreduce,       sched::Collective::reduce_scatter,
      sched::Collective::allgather,       sched::Collective::alltoall,
      sched::Collective::reduce_scatterv, sched::Collective::allgatherv,
      sched::Collective::alltoallv};
  /// None: it adds contributions in rotated order, so non-commutative ops need another policy.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  /// Each step's block is sent in segments of this size so that reducing one segment overlaps
  /// receiving the next (0: one message per block).
  std::size_t segment_bytes = 0;

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// field, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(Ring, segment_bytes, 0, kUnbounded,
                          "each step's block is sent in segments of this size, so that reducing "
                          "one overlaps receiving the next (0: one message per block)"),
        CCLX_POLICY_PARAM(
            Ring, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::ring(r);
  }
};

}  // namespace cclx::algo
