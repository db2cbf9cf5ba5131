// Canonical halving: a reduce-scatter by recursive halving along the canonical tree
// (schedule/canonical_order.hpp), so that every element is combined in the canonical order, at
// recursive halving-doubling's bandwidth. Allreduce adds the allgather along the same tree run
// backwards; reduce gathers the blocks onto the root. The algorithm of reproducible reductions
// (docs/reproducibility.md) for messages too large for a binomial tree.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Recursive halving along the canonical tree: allreduce, reduce (any root), reduce_scatter and
/// reduce_scatterv, each combining every element in the canonical order and in rank order.
Schedule canonical_halving(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: reduce-scatter by recursive halving along the canonical tree (pairs of neighbouring
/// ranks first), then allgather back along it (allreduce) or a gather onto the root (reduce).
struct CanonicalHalving {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "canonical_halving";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::reduce_scatter,
      sched::Collective::reduce_scatterv};
  /// All of them: every combination joins two neighbouring rank intervals, the lower one left.
  static constexpr std::array keeps_rank_order = collectives;
  /// All of them: the tree it halves along is the canonical one.
  static constexpr std::array canonical_order = collectives;
  /// Each message is sent in segments of this size, so that reducing one segment overlaps
  /// receiving the next (0: one message per block range).
  std::size_t segment_bytes = 0;

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// field, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(CanonicalHalving, segment_bytes, 0, kUnbounded, "as in ring"),
        CCLX_POLICY_PARAM(
            CanonicalHalving, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::canonical_halving(r);
  }
};

}  // namespace cclx::algo
