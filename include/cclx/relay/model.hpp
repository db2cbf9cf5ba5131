// What the relay runtime (lib/relay/runtime.cpp) asks of one adaptive call shape: the
// schedules of both phases for an active set and the predicted cost of proceeding with it.
// algo::relay_model() (lib/relay/model.cpp) makes it from the synthesized trees.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::detail {
/// What the adaptive runtime asks of one call shape (lib/relay/model.cpp builds it).
class RelayModel {
 public:
  struct Phases {
    std::shared_ptr<const sched::Schedule> phase1, phase2;
  };
  /// A plan for proceeding now with an active set and its predicted seconds per phase.
  struct Choice {
    double phase1 = 0, phase2 = 0;
    int plan = 0;
    [[nodiscard]] double total() const { return phase1 + phase2; }
  };
  virtual ~RelayModel() = default;
  /// The two phases of plan `plan` for the active set (active[r]: rank r contributes in phase 1);
  /// only_rank >= 0 generates that rank's programs only, -1 every rank's. Every rank must run the
  /// same plan: rank 0 picks it (best_plan()) and sends its index with the active set. Plan 0
  /// exists for every set; an index the model does not have throws cclx::Error.
  [[nodiscard]] virtual Phases phases(const std::vector<bool>& active, int only_rank,
                                      int plan) const = 0;
  /// Every plan of the model for proceeding now with `active`, with its predicted seconds: phase 1,
  /// then phase 2 as if the late ranks' data were ready now (sim::simulate_relay). phase1: when
  /// the last rank finishes phase 1; phase2: the rest. Plans that cannot serve the set are left
  /// out; plan 0 is always there. All active: the all-active schedule alone (phase 2 0).
  [[nodiscard]] virtual std::vector<Choice> choices(const std::vector<bool>& active) const = 0;
  /// The cheapest plan to proceed with now (best_plan with the late ranks ready now): its total()
  /// is the buying cost of the ski-rental rule.
  [[nodiscard]] Choice choose(const std::vector<bool>& active) const {
    return best_plan(choices(active), 0);
  }
  [[nodiscard]] double cost(const std::vector<bool>& active) const {
    return choose(active).total();
  }
  /// The plan that finishes first when the late ranks' data is ready `late_in` seconds from now:
  /// the least max(phase1, late_in) + phase2 (late_in 0: the least total). A plan replaces an
  /// earlier one only when faster by more than kPlanTieTolerance: the α-β simulator does not
  /// resolve smaller differences. `c` must not be empty.
  static constexpr double kPlanTieTolerance = 0.03;
  [[nodiscard]] static const Choice& best_plan(const std::vector<Choice>& c, double late_in) {
    auto finish = [&](const Choice& x) { return std::max(x.phase1, late_in) + x.phase2; };
    const Choice* best = &c.front();
    for (const Choice& x : c)
      if (finish(x) < finish(*best) * (1 - kPlanTieTolerance)) best = &x;
    return *best;
  }
  /// A cheap floor of cost(active) (O(ranks)): while the waiting is below it, the rule cannot buy,
  /// so the runtime need not compute cost() (milliseconds of simulation per new set) yet.
  [[nodiscard]] virtual double cost_floor(const std::vector<bool>& /*active*/) const { return 0; }
};

/// This process's relay activity (tests and benchmarks read it): the calls that rank 0 decided to
/// run with some ranks inactive, and the phase-1 relays this rank ran (lib/relay/runtime.cpp).
struct RelayCounters {
  std::uint64_t partial_decisions = 0;
  std::uint64_t predicted_decisions = 0;  ///< of those, made at once on a prediction of late ranks
  std::uint64_t last_rank_decisions = 0;  ///< of those, made when only one rank was missing
                                          // by the last-rank rule (WaitRules)
  std::uint64_t relays = 0;
};
[[nodiscard]] RelayCounters relay_counters();
}  // namespace cclx::detail
