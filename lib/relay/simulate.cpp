#include "cclx/relay/simulate.hpp"

#include <algorithm>

#include "cclx/error.hpp"

namespace cclx::sim {

RelayTimes simulate_relay(const Simulator& sim, const sched::RelayPlan& plan,
                          const std::vector<bool>& active, SimOptions o) {
  const auto n = static_cast<std::size_t>(plan.phase1.nranks);
  if (active.size() != n)
    throw Error("simulate_relay: active set has " + std::to_string(active.size()) +
                " entries for " + std::to_string(n) + " ranks");
  if (!o.start_time.empty() && o.start_time.size() != n)
    throw Error("simulate_relay: start_time needs one entry per rank");
  const std::vector<double> ready =
      o.start_time.empty() ? std::vector<double>(n, 0.0) : o.start_time;
  RelayTimes t;
  o.start_time.assign(n, 0.0);
  t.phase1 = sim.run(plan.phase1, o);
  t.phase1_end = t.phase1.time;
  for (std::size_t r = 0; r < n; ++r)
    o.start_time[r] = std::max(t.phase1.rank_end[r], active[r] ? 0.0 : ready[r]);
  t.phase2 = sim.run(plan.phase2, o);
  t.time = std::max(t.phase2.time, t.phase1_end);
  return t;
}

}  // namespace cclx::sim
