// Predicted time of a relay collective (relay/schedules.hpp): phase 1 among the active ranks while
// the late ones relay, then phase 2 once the late ranks' data is ready. What the runtime's
// wait-or-proceed rule compares against waiting for everyone.
#pragma once

#include <vector>

#include "cclx/relay/schedules.hpp"
#include "cclx/sim/simulator.hpp"

namespace cclx::sim {

/// Predicted times of a relay collective.
struct RelayTimes {
  /// The simulation of phase 1, every rank starting at time 0.
  SimResult phase1, phase2;  ///< that of phase 2, each rank starting as simulate_relay() says
  double phase1_end = 0;     ///< when the last rank finished phase 1
  double time = 0;           ///< when the last rank finished phase 2 (the whole collective)
};

/// Time 0 is the moment the ranks proceed. Every rank runs its phase-1 program from 0 (a late
/// rank on its progress thread); o.start_time[r] is when rank r's data is ready (empty: all at 0;
/// only the inactive ranks' entries matter). Rank r starts phase 2 at max(its phase-1 end, its
/// ready time when inactive): the two phases are two executions on each rank, as in the engine.
[[nodiscard]] RelayTimes simulate_relay(const Simulator& sim, const sched::RelayPlan& plan,
                                        const std::vector<bool>& active, SimOptions o);

}  // namespace cclx::sim
