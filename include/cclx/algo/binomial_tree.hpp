// Binomial tree: reduce and bcast in ceil(log2 n) steps of the whole message; allreduce = reduce to
// rank 0 + bcast; gather and scatter (any root) along the same tree, and gatherv and scatterv with
// the same schedules. Combines in rank order. Best for small messages.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Binomial-tree reduce, bcast, gather and scatter (any root), allreduce as reduce to rank 0 +
/// bcast, and gatherv and scatterv with the gather and scatter schedules.
Schedule binomial_tree(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: binomial trees (bcast, reduce, gather, scatter; allreduce as reduce + bcast),
/// latency-optimal for small messages.
struct BinomialTree {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "binomial_tree";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {
      sched::Collective::allreduce, sched::Collective::reduce,  sched::Collective::bcast,
      sched::Collective::gather,    sched::Collective::scatter, sched::Collective::gatherv,
      sched::Collective::scatterv};
  /// Those of them on which it keeps rank order, so that non-commutative ops are honored.
  static constexpr std::array<sched::Collective, 3> keeps_rank_order = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::bcast};
  /// Those it combines in the canonical order (schedule/canonical_order.hpp): its reduce tree
  /// splits every rank interval where the canonical tree does, whatever the root.
  static constexpr std::array<sched::Collective, 2> canonical_order = {sched::Collective::allreduce,
                                                                       sched::Collective::reduce};

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// policies' (the plan cache keys a policy without padding by its bytes).
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(
            BinomialTree, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::binomial_tree(r);
  }
};

}  // namespace cclx::algo
