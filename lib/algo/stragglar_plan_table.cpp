// StragglAR plans found offline by SAT (tools/stragglar_sat.py) for the n where the greedy
// planner misses the receive-slot bound; they reach it. Data, decoded on demand; shared_plan()
// runs check_plan on them like on any other plan.
#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "cclx/error.hpp"
#include "stragglar_planners.hpp"

namespace cclx::sched::stragglar_rounds::detail {

namespace {

// Per plan: n, rounds, then per round the number of exchanges and a, b, chunk_ab, chunk_ba each.
#define CCLX_STRAGGLAR_PLAN(N, ...) constexpr std::int16_t kPlan##N[] = {__VA_ARGS__};
#include "stragglar_plan_table.inc"
#undef CCLX_STRAGGLAR_PLAN

struct Entry {
  int n;
  std::span<const std::int16_t> data;
};

#define CCLX_STRAGGLAR_PLAN(N, ...) Entry{N, kPlan##N},
constexpr Entry kPlans[] = {
#include "stragglar_plan_table.inc"
};
#undef CCLX_STRAGGLAR_PLAN

Plan decode(const Entry& e) {
  std::size_t pos = 0;
  auto next = [&]() -> int {
    if (pos >= e.data.size())
      throw Error("stragglar: SAT plan table entry for n=" + std::to_string(e.n) + " is truncated");
    return e.data[pos++];
  };
  Plan p;
  p.n = next();
  p.method = "sat";
  if (p.n != e.n)
    throw Error("stragglar: SAT plan table entry for n=" + std::to_string(e.n) +
                " says n=" + std::to_string(p.n));
  p.rounds.resize(static_cast<std::size_t>(next()));
  for (auto& round : p.rounds) {
    round.resize(static_cast<std::size_t>(next()));
    for (auto& x : round) x = Exchange{next(), next(), next(), next()};
  }
  if (pos != e.data.size())
    throw Error("stragglar: SAT plan table entry for n=" + std::to_string(e.n) +
                " has trailing data");
  return p;
}

}  // namespace

std::optional<Plan> plan_from_table(int n) {
  for (const auto& e : kPlans)
    if (e.n == n) return decode(e);
  return std::nullopt;
}

}  // namespace cclx::sched::stragglar_rounds::detail
