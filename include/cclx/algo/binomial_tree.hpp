// Binomial tree: reduce and bcast in ceil(log2 n) steps of the whole message; allreduce = reduce to
// rank 0 + bcast; gather and scatter (any root) along the same tree, and gatherv and scatterv with
// the same schedules. Combines in rank order. Best for small messages.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
Schedule binomial_tree(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

struct BinomialTree {
  static constexpr std::string_view name = "binomial_tree";
  // What it serves, and where it keeps rank order (non-commutative ops): the one declaration,
  // read by the registry (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {
      sched::Collective::allreduce, sched::Collective::reduce,  sched::Collective::bcast,
      sched::Collective::gather,    sched::Collective::scatter, sched::Collective::gatherv,
      sched::Collective::scatterv};
  static constexpr std::array<sched::Collective, 3> keeps_rank_order = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::bcast};

  // Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  // policies' (the plan cache keys a policy without padding by its bytes).
  std::size_t channels = 1;

  // Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(
            BinomialTree, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::binomial_tree(r);
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
