// StragglAR for n = 2^L ranks: the structure of the paper's Algorithm 1.
//
// Every non-straggler holds at most one "active" chunk (fully reduced but not yet everywhere); the
// ranks sharing an active chunk form its group. Chunk k is completed in round k on one
// non-straggler (plus the straggler, busy until round n-2) and its group doubles every round:
//   rounds 0..L-1   every group member sends its chunk to a rank that holds nothing yet;
//   rounds L..n-2   the oldest group (2^(L-1) ranks, chunk t-L) sends its chunk to all other
//                   2^(L-1)-1 non-stragglers and receives their active chunks (so the other
//                   groups double and chunk t-L is complete); its remaining member is the one that
//                   exchanges with the straggler this round;
//   rounds n-1..    the same, but the leftover member of the oldest group gets the newest chunk
//                   from the straggler, which holds everything (its group grows by one extra rank
//                   per round and is complete after L-1 rounds).
// The rank that meets the straggler in round t must hold a chunk it has not yet exchanged with the
// straggler, so when the oldest group is dispersed, its members that have not met the straggler
// are placed first into groups that have none and will be oldest soonest. Ranks are numbered by
// the round in which they meet the straggler at the end.
#include <algorithm>
#include <vector>

#include "cclx/error.hpp"
#include "stragglar_planners.hpp"

namespace cclx::sched::stragglar_rounds::detail {

Plan plan_pow2(int n) {
  const int L = ceil_log2(n);
  if (n < 2 || (1 << L) != n) throw Error("stragglar: plan_pow2 needs a power of two >= 2");
  const int S = n - 1, rounds = n + L - 2;
  Plan p;
  p.n = n;
  p.method = "pow2";
  p.rounds.resize(static_cast<std::size_t>(rounds));

  // Nodes 0..n-2 are the non-stragglers before renumbering; chunk k is the one completed in
  // round k.
  std::vector<std::vector<int>> members(static_cast<std::size_t>(n - 1));
  std::vector<char> met(static_cast<std::size_t>(n - 1), 0);  // exchanged with the straggler
  std::vector<int> met_in_round(static_cast<std::size_t>(n - 1), -1);
  std::vector<int> spares;  // nodes holding no chunk (start-up only)
  for (int x = n - 2; x >= 0; --x) spares.push_back(x);
  std::vector<int> unmet_count(static_cast<std::size_t>(n - 1), 0);  // per group

  auto meet = [&](int t, int x) {
    met[static_cast<std::size_t>(x)] = 1;
    met_in_round[static_cast<std::size_t>(x)] = t;
    p.rounds[static_cast<std::size_t>(t)].push_back({x, S, t, t});
  };

  std::vector<std::vector<int>> joins(static_cast<std::size_t>(n - 1));
  for (int t = 0; t < rounds; ++t) {
    auto& ex = p.rounds[static_cast<std::size_t>(t)];
    for (auto& j : joins) j.clear();
    if (t < L) {
      // Start-up: the straggler's partner and every recruit come from the spares.
      const int pi = spares.back();
      spares.pop_back();
      meet(t, pi);
      for (int k = 0; k < t; ++k)
        for (int x : members[static_cast<std::size_t>(k)]) {
          const int y = spares.back();
          spares.pop_back();
          ex.push_back({x, y, k, -1});
          joins[static_cast<std::size_t>(k)].push_back(y);
        }
      members[static_cast<std::size_t>(t)] = {pi};
    } else {
      const int old = t - L;
      auto oldest = std::move(members[static_cast<std::size_t>(old)]);
      members[static_cast<std::size_t>(old)].clear();
      // Members that still have to meet the straggler first.
      std::stable_partition(oldest.begin(), oldest.end(),
                            [&](int x) { return !met[static_cast<std::size_t>(x)]; });
      std::size_t next = 0;  // next oldest-group member to hand out
      if (t <= n - 2) {
        if (oldest.empty() || met[static_cast<std::size_t>(oldest[0])])
          throw Error("stragglar: internal error in plan_pow2 (no rank left to meet)");
        meet(t, oldest[next++]);
      }
      const int newest = std::min(t - 1, n - 2);
      std::vector<std::size_t> taken(static_cast<std::size_t>(n - 1), 0);  // members paired
      auto pair_into = [&](int k) {
        const int o = oldest[next++];
        const auto ku = static_cast<std::size_t>(k);
        const int x = members[ku][taken[ku]++];
        ex.push_back({o, x, old, k});
        joins[ku].push_back(o);
      };
      // Groups without an unmet member that will need one (they are oldest by round n-2) get
      // one first, soonest first.
      for (int k = old + 1; k <= newest; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        if (k + L > n - 2 || unmet_count[ku] > 0) continue;
        if (next < oldest.size() && !met[static_cast<std::size_t>(oldest[next])]) pair_into(k);
      }
      for (int k = old + 1; k <= newest; ++k) {
        const auto ku = static_cast<std::size_t>(k);
        while (taken[ku] < members[ku].size()) {
          if (next >= oldest.size()) throw Error("stragglar: internal error in plan_pow2");
          pair_into(k);
        }
      }
      if (t > n - 2) {
        // The straggler gives the newest chunk to the one member left over.
        if (next + 1 != oldest.size()) throw Error("stragglar: internal error in plan_pow2");
        const int o = oldest[next++];
        ex.push_back({o, S, -1, n - 2});
        joins[static_cast<std::size_t>(n - 2)].push_back(o);
      } else if (next != oldest.size()) {
        throw Error("stragglar: internal error in plan_pow2 (oldest group not used up)");
      }
      if (t <= n - 2) members[static_cast<std::size_t>(t)] = {ex.front().a};
    }
    for (int k = 0; k < n - 1; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      for (int y : joins[ku]) members[ku].push_back(y);
    }
    for (int k = 0; k < n - 1; ++k) {
      const auto ku = static_cast<std::size_t>(k);
      int c = 0;
      for (int x : members[ku]) c += met[static_cast<std::size_t>(x)] ? 0 : 1;
      unmet_count[ku] = c;
    }
  }

  // Renumber: the node that met the straggler in round t becomes rank t (chunk t is its chunk).
  for (auto& round : p.rounds)
    for (auto& e : round) {
      if (e.a != S) e.a = met_in_round[static_cast<std::size_t>(e.a)];
      if (e.b != S) e.b = met_in_round[static_cast<std::size_t>(e.b)];
      if (e.a > e.b) {
        std::swap(e.a, e.b);
        std::swap(e.chunk_ab, e.chunk_ba);
      }
    }
  return p;
}

}  // namespace cclx::sched::stragglar_rounds::detail
