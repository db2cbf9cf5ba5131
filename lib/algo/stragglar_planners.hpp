// StragglAR's round planners (internal). Both use the labels of cclx/schedule/stragglar.hpp.
#pragma once

#include "cclx/schedule/stragglar.hpp"

namespace cclx::sched::stragglar_rounds::detail {

// n a power of two (n >= 2): the paper's Algorithm 1 structure, exactly n + log2 n - 2 rounds.
Plan plan_pow2(int n);

// Any n >= 2: per-round greedy matchings driven by deadlines against the lower bound; tries a few
// tie-breaking variants and keeps the plan with the fewest rounds.
Plan plan_greedy(int n);

// ceil(log2 n) for n >= 1.
int ceil_log2(int n);

}  // namespace cclx::sched::stragglar_rounds::detail
