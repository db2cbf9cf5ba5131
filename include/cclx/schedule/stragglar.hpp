// StragglAR's abstract round plan ("Accelerating AllReduce with a Persistent Straggler"), separate
// from its translation into a Schedule (generate.hpp: stragglar()), so that tools, tests and the
// runtime policy can inspect round counts without building programs.
//
// Labels: the straggler is rank n-1 and the non-stragglers are 0..n-2 (generators relabel). After
// a reduce-scatter among the non-stragglers, rank g holds chunk g partially reduced. In round
// r < n-1 rank r and the straggler exchange chunk r (both end with it fully reduced); every other
// transfer moves a fully reduced chunk. Each round is a matching: a rank is in at most one
// exchange, which carries at most one chunk in each direction.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace cclx::sched::stragglar_rounds {

/// One pairwise exchange of a StragglAR round.
struct Exchange {
  /// The lower rank of the pair.
  int a = 0, b = 0;   ///< the higher rank (a < b); n-1 when the pair is the straggler's
  int chunk_ab = -1;  ///< chunk a sends to b (-1: none)
  int chunk_ba = -1;  ///< chunk b sends to a (-1: none)
};

/// StragglAR's abstract round plan, before its translation into a Schedule.
struct Plan {
  int n = 1;  ///< ranks, the straggler (rank n-1) included
  /// rounds[r]: the exchanges of round r. For r < n-1 it starts with the straggler exchange
  /// {r, n-1, r, r}: rank r sends its partial chunk r, the straggler its own contribution to it.
  std::vector<std::vector<Exchange>> rounds;
  std::string method;  ///< "trivial", "pow2", "greedy" or "mwm" (which planner produced it)
};

/// Lower bound on the rounds for n ranks: the last chunk is fully reduced in round n-2 on two
/// ranks and needs ceil(log2 n) - 1 more doubling rounds: n + ceil(log2 n) - 2 (0 for n = 1).
int round_lower_bound(int n);

/// A tighter necessary bound from counting receive slots (>= round_lower_bound, larger by one for
/// odd n with 2n > 2^ceil(log2 n) + ceil(log2 n) + 1): each non-straggler receives one chunk per
/// round for n-1 rounds; round t < n-1 has at most 2^t receivers, and for odd n one of the n-2
/// ranks besides rank t and the straggler has no partner.
int round_lower_bound_slots(int n);

/// The plan for n ranks (n >= 1). Deterministic. Powers of two use the paper's structure and take
/// exactly n + log2 n - 2 rounds; other n a plan found offline by SAT where the table has one (it
/// reaches round_lower_bound_slots), else a deadline-driven greedy matching (see
/// docs/algorithms/stragglar.md for the rounds each reaches).
Plan plan(int n);

/// plan(n), checked (check_plan) and shared: the process keeps the plans of the last few n it
/// planned (planning a thousand ranks takes seconds) and hands every caller the same one.
/// Thread-safe. The generator plans through it; plan(n) itself plans anew on every call.
std::shared_ptr<const Plan> shared_plan(int n);

/// A named planner, for comparisons (tools, tests): "auto" (= plan(n)), "pow2" (powers of two
/// only), "greedy" (the deadline-driven greedy, also for powers of two), "mwm" (the paper's
/// per-round maximum-weight matching, Boost.Graph; slow: O(n^3) or worse per round) or "sat" (the
/// SAT-found table; throws for an n it lacks). Throws cclx::Error for an unknown name.
Plan plan_with(int n, const std::string& planner);

/// Throws cclx::Error naming the first violation: a round that is not a matching, a chunk sent by a
/// rank that does not hold it fully reduced, a chunk received twice, or a rank left incomplete.
/// Cheap (O(rounds * n)); shared_plan runs it on every plan it makes.
void check_plan(const Plan& p);

}  // namespace cclx::sched::stragglar_rounds
