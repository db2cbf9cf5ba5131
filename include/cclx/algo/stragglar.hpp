// StragglAR: allreduce with a persistent straggler. The other n-1 ranks reduce-scatter among
// themselves while the straggler is late (its prologue steps are empty, so it simply joins when it
// calls), then n + log2 n - 2 matching rounds (powers of two) finish the allreduce. See
// docs/algorithms/stragglar.md.
#pragma once

#include <limits>

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// StragglAR allreduce with rank `straggler` arriving late: the others reduce-scatter among
/// themselves (prologue_steps, empty on the straggler), then pairwise rounds complete the chunks
/// (n-1 blocks). Round plan and counts: schedule/stragglar.hpp.
Schedule stragglar(const ScheduleRequest& req, int straggler);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: StragglAR allreduce, which overlaps the work of the others with one known late rank.
struct StragglAR {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "stragglar";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::allreduce};
  /// None: it does not keep rank order, so non-commutative ops need another policy.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  int straggler = -1;  ///< the late rank; -1: the last rank

  /// The late rank on a communicator of `nranks` ranks: `straggler`, or nranks - 1 when it is
  /// negative.
  [[nodiscard]] int straggler_for(int nranks) const {
    return straggler < 0 ? nranks - 1 : straggler;
  }
  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. int like straggler, so
  /// the policy has no padding and the plan cache keys it by its bytes.
  int channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(StragglAR, straggler, -1, std::numeric_limits<int>::max(),
                          "the rank that arrives late (-1: the last rank)"),
        CCLX_POLICY_PARAM(
            StragglAR, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r` (e.g. a straggler outside [0, r.nranks)).
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::stragglar(r, straggler_for(r.nranks));
  }
  /// `straggler=<rank>` with the rank straggler_for() resolves: the schedule depends on it.
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest& r) const {
    return "straggler=" + std::to_string(straggler_for(r.nranks));
  }
};

}  // namespace cclx::algo
