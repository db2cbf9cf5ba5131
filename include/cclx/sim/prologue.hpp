// Schedules with a prologue (Schedule::prologue_steps, e.g. StragglAR's reduce-scatter among the
// non-stragglers): simulate the case where the late ranks arrive exactly when the prologue ends, so
// the delay hides the prologue, and report the time from that moment.
#pragma once

#include <vector>

#include "cclx/sim/simulator.hpp"

namespace cclx::sim {

/// Ranks with no op in the prologue steps: the ones the prologue waits for (StragglAR's straggler).
[[nodiscard]] std::vector<int> prologue_idle_ranks(const sched::Schedule& s);

/// The part of a schedule's prologue that a straggler's lateness hides.
struct HiddenPrologue {
  SimResult result;             ///< the run with the idle ranks starting at the prologue's end
  double prologue_end = 0;      ///< when the busy ranks finish the prologue
  double after_prologue = 0;    ///< result.time - prologue_end: the algorithm's own rounds
  std::vector<int> late_ranks;  ///< prologue_idle_ranks()
};

/// Without a prologue (or without idle ranks) this is one plain run with after_prologue = time.
/// Otherwise: one run to find the prologue's end, then one with the idle ranks starting at
/// max(their start time, prologue end).
[[nodiscard]] HiddenPrologue simulate_hidden_prologue(const Simulator& sim,
                                                      const sched::Schedule& s, SimOptions o);

}  // namespace cclx::sim
