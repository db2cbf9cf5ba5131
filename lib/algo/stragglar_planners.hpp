// StragglAR's round planners (internal). All use the labels of cclx/schedule/stragglar.hpp.
#pragma once

#include <optional>

#include "cclx/schedule/stragglar.hpp"

namespace cclx::sched::stragglar_rounds::detail {

// n a power of two (n >= 2): the paper's Algorithm 1 structure, exactly n + log2 n - 2 rounds.
Plan plan_pow2(int n);

// Any n >= 2: per-round greedy matchings driven by deadlines against the lower bound; tries two
// fixed tie-breaking variants and then `seeds` seeded pseudo-random ones, keeping the plan with
// the fewest rounds (stops early at round_lower_bound_slots).
Plan plan_greedy(int n, int seeds);

// The plan found offline by SAT (tools/stragglar_sat.py) for the n where plan_greedy misses
// round_lower_bound_slots(n); nullopt for every other n.
std::optional<Plan> plan_from_table(int n);

// Any n >= 2: the paper's per-round maximum-weight matching (Boost.Graph), for comparison.
Plan plan_mwm(int n);

// ceil(log2 n) for n >= 1.
int ceil_log2(int n);

}  // namespace cclx::sched::stragglar_rounds::detail
