// Dissemination barrier (Hensgen, Finkel, Manber 1988): in round k rank r sends to
// (r + 2^k) mod n and receives from (r - 2^k) mod n; after ceil(log2 n) rounds every rank has
// heard, directly or through others, from every rank. Any n (no power of two needed), ceil(log2 n)
// rounds of one empty message per rank: the fewest rounds any barrier can take, since what a rank
// has heard from at most doubles per round. The data generators cannot serve barrier usefully:
// the binomial tree's reduce + bcast would take 2 ceil(log2 n) rounds, the ring 2(n - 1).
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// The dissemination barrier: ceil(log2 n) steps, each rank sending one empty message per step.
Schedule dissemination(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: the dissemination barrier, ceil(log2 n) rounds of empty messages.
struct Dissemination {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "dissemination";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::barrier};
  /// None: a barrier has no data and no op.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};

  /// It takes no run-time parameters.
  static constexpr auto params() { return std::array<Param<Dissemination>, 0>{}; }

  /// The schedule for `r`; throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::dissemination(r);
  }
};

}  // namespace cclx::algo
