// Dissemination barrier (Hensgen, Finkel, Manber 1988): in round k rank r sends to
// (r + 2^k) mod n and receives from (r - 2^k) mod n; after ceil(log2 n) rounds every rank has
// heard, directly or through others, from every rank. Any n (no power of two needed), ceil(log2 n)
// rounds of one empty message per rank: the fewest rounds any barrier can take, since what a rank
// has heard from at most doubles per round. The data generators cannot serve barrier usefully:
// the binomial tree's reduce + bcast would take 2 ceil(log2 n) rounds, the ring 2(n - 1).
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
Schedule dissemination(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

struct Dissemination {
  static constexpr std::string_view name = "dissemination";
  // What it serves, and where it keeps rank order (non-commutative ops): the one declaration,
  // read by the registry (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::barrier};
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};

  // It takes no run-time parameters.
  static constexpr auto params() { return std::array<Param<Dissemination>, 0>{}; }

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::dissemination(r);
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
