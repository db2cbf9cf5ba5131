// The list of relay plans for a partial active set (relay/schedules.hpp, partial_relay_plan).
#include <string>

#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"

namespace cclx::sched {

namespace {
constexpr auto kSubsets = static_cast<int>(std::size(kSubsetAlgorithms));
}  // namespace

int partial_relay_plans(Collective c) {
  return c == Collective::allreduce ? 1 + kSubsets + 1 : 1;
}

std::string partial_relay_plan_name(Collective c, int index) {
  if (index < 0 || index >= partial_relay_plans(c))
    throw Error("no relay plan " + std::to_string(index) + " for " + std::string(to_string(c)) +
                " (" + std::to_string(partial_relay_plans(c)) + " plans)");
  if (index == 0) return "trees";
  if (index <= kSubsets) return "subset-" + std::string(kSubsetAlgorithms[index - 1]);
  return "owners";
}

int partial_relay_plan_index(Collective c, std::string_view name) {
  std::string known;
  for (int i = 0; i < partial_relay_plans(c); ++i) {
    const std::string s = partial_relay_plan_name(c, i);
    if (s == name) return i;
    known += (i ? ", " : "") + s;
  }
  throw Error("no relay plan '" + std::string(name) + "' for " + std::string(to_string(c)) +
              " (known: " + known + ")");
}

RelayPlan partial_relay_plan(int index, const TreeSet& trees, const ScheduleRequest& req,
                             const std::vector<bool>& active) {
  (void)partial_relay_plan_name(req.collective, index);  // range check
  if (index == 0) return relay_schedules(trees, req, active);
  if (index <= kSubsets) return subset_relay_schedules(kSubsetAlgorithms[index - 1], req, active);
  return owner_relay_schedules(req, active);
}

}  // namespace cclx::sched
