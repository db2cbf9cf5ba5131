// StragglAR: allreduce with a persistent straggler. The other n-1 ranks reduce-scatter among
// themselves while the straggler is late (its prologue steps are empty, so it simply joins when it
// calls), then n + log2 n - 2 matching rounds (powers of two) finish the allreduce. See
// docs/algorithms/stragglar.md.
#pragma once

#include <limits>

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
// StragglAR allreduce with rank `straggler` arriving late: the others reduce-scatter among
// themselves (prologue_steps, empty on the straggler), then pairwise rounds complete the chunks
// (n-1 blocks). Round plan and counts: schedule/stragglar.hpp.
Schedule stragglar(const ScheduleRequest& req, int straggler);
}  // namespace cclx::sched

namespace cclx::algo {

struct StragglAR {
  static constexpr std::string_view name = "stragglar";
  // What it serves, and where it keeps rank order (non-commutative ops): the one declaration,
  // read by the registry (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::allreduce};
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  int straggler = -1;  // the late rank; -1: the last rank

  [[nodiscard]] int straggler_for(int nranks) const {
    return straggler < 0 ? nranks - 1 : straggler;
  }
  // Concurrent parts of the data (schedule/channels.hpp); 1: no split. int like straggler, so
  // the policy has no padding and the plan cache keys it by its bytes.
  int channels = 1;

  // Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(StragglAR, straggler, -1, std::numeric_limits<int>::max(),
                          "the rank that arrives late (-1: the last rank)"),
        CCLX_POLICY_PARAM(
            StragglAR, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::stragglar(r, straggler_for(r.nranks));
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest& r) const {
    return "straggler=" + std::to_string(straggler_for(r.nranks));
  }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
