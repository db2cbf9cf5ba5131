#include "cclx/sim/prologue.hpp"

#include <algorithm>

namespace cclx::sim {

std::vector<int> prologue_idle_ranks(const sched::Schedule& s) {
  std::vector<int> idle;
  if (s.prologue_steps == 0) return idle;
  for (std::size_t r = 0; r < s.programs.size(); ++r) {
    const auto& p = s.programs[r];
    const auto pro = std::min<std::size_t>(s.prologue_steps, p.num_steps());
    if (p.step_begin[pro] == p.step_begin[0]) idle.push_back(static_cast<int>(r));
  }
  return idle;
}

HiddenPrologue simulate_hidden_prologue(const Simulator& sim, const sched::Schedule& s,
                                        SimOptions o) {
  HiddenPrologue h;
  h.late_ranks = prologue_idle_ranks(s);
  if (h.late_ranks.empty() || h.late_ranks.size() == s.programs.size()) {
    h.result = sim.run(s, o);
    h.prologue_end = h.result.prologue_end;
    h.after_prologue = h.result.time - h.prologue_end;
    return h;
  }
  const bool keep_path = o.critical_path;
  o.critical_path = false;
  const SimResult first = sim.run(s, o);
  if (o.start_time.empty()) o.start_time.assign(static_cast<std::size_t>(s.nranks), 0.0);
  for (const int r : h.late_ranks) {
    auto& t = o.start_time[static_cast<std::size_t>(r)];
    t = std::max(t, first.prologue_end);
  }
  o.critical_path = keep_path;
  h.result = sim.run(s, o);
  h.prologue_end = h.result.prologue_end;
  h.after_prologue = h.result.time - h.prologue_end;
  return h;
}

}  // namespace cclx::sim
