// StragglAR plan: picks the planner for n, and checks plans (matching, holdings, completeness).
#include <algorithm>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/schedule/stragglar.hpp"
#include "stragglar_planners.hpp"

namespace cclx::sched::stragglar_rounds {

namespace {
// Seeded restarts of the greedy after its two fixed variants (see stragglar_plan_greedy.cpp).
// Seeded runs give 1-2 rounds on average over the two fixed variants alone (2..256: summed gap
// 347 -> 83 with one seed, 79 with 8, 78 with 16, sampled every 5th n).
constexpr int kGreedySeeds = 8;
// Planning a thousand ranks takes seconds (the greedy's restarts), and a process asks for one n
// again and again (every straggler, in-place form and rank view of a communicator's schedule): it
// keeps the plans of the last few n it planned.
constexpr std::size_t kKeptPlans = 8;
}  // namespace

namespace detail {
int ceil_log2(int n) {
  int l = 0;
  while ((1LL << l) < n) ++l;
  return l;
}
}  // namespace detail

int round_lower_bound(int n) {
  if (n < 1) throw Error("stragglar: n must be >= 1");
  return n == 1 ? 0 : n + detail::ceil_log2(n) - 2;
}

int round_lower_bound_slots(int n) {
  const int base = round_lower_bound(n);
  if (n <= 2) return base;
  // Receive slots: every non-straggler receives exactly one chunk in each of m rounds (its
  // straggler exchange included), so R rounds leave m * (R - m) rounds without a receive. Round
  // t < n-1 has at most 2^t receivers (fully reduced chunks only double), and for odd n at most
  // m - 1 (the n-2 non-stragglers besides rank t cannot all be paired).
  const long long m = n - 1;
  long long forced = 0;
  for (int t = 0; t <= n - 2; ++t) {
    long long cap = (n % 2 == 1) ? m - 1 : m;
    if (t < 62) cap = std::min(cap, 1LL << t);
    forced += m - cap;
  }
  int r = base;
  while (m * (r - m) < forced) ++r;
  return r;
}

Plan plan(int n) {
  if (n < 1) throw Error("stragglar: n must be >= 1");
  if (n == 1) return Plan{1, {}, "trivial"};
  if ((n & (n - 1)) == 0) return detail::plan_pow2(n);
  if (auto p = detail::plan_from_table(n)) return *std::move(p);
  return detail::plan_greedy(n, kGreedySeeds);
}

std::shared_ptr<const Plan> shared_plan(int n) {
  static std::mutex mu;
  static std::deque<std::shared_ptr<const Plan>> kept;  // the newest last
  const auto find = [&]() -> std::shared_ptr<const Plan> {
    for (const auto& p : kept)
      if (p->n == n) return p;
    return nullptr;
  };
  {
    const std::lock_guard lock(mu);
    if (auto p = find()) return p;
  }
  auto made = std::make_shared<const Plan>(plan(n));  // unlocked: other n plan meanwhile
  check_plan(*made);
  const std::lock_guard lock(mu);
  if (auto p = find()) return p;  // another thread planned n first: every caller gets one plan
  kept.push_back(made);
  if (kept.size() > kKeptPlans) kept.pop_front();
  return made;
}

Plan plan_with(int n, const std::string& planner) {
  if (planner == "auto") return plan(n);
  if (n < 1) throw Error("stragglar: n must be >= 1");
  if (planner != "pow2" && planner != "greedy" && planner != "mwm" && planner != "sat")
    throw Error("stragglar: unknown planner '" + planner + "' (auto, pow2, greedy, mwm, sat)");
  if (n == 1) return Plan{1, {}, "trivial"};
  if (planner == "pow2") return detail::plan_pow2(n);
  if (planner == "sat") {
    if (auto p = detail::plan_from_table(n)) return *std::move(p);
    throw Error("stragglar: no SAT-found plan for n=" + std::to_string(n) +
                " (the table holds the n where the greedy misses the receive-slot bound)");
  }
  if (planner == "greedy") return detail::plan_greedy(n, kGreedySeeds);
  return detail::plan_mwm(n);
}

void check_plan(const Plan& p) {
  const int n = p.n, S = n - 1, m = n - 1;
  auto fail = [&](std::size_t r, const std::string& what) {
    throw Error("stragglar plan for n=" + std::to_string(n) + ", round " + std::to_string(r) +
                ": " + what);
  };
  // have[x * m + k]: rank x holds chunk k fully reduced (the straggler: its own part only).
  std::vector<char> have(static_cast<std::size_t>(n) * static_cast<std::size_t>(m), 0);
  auto at = [&](int x, int k) -> char& {
    return have[static_cast<std::size_t>(x) * static_cast<std::size_t>(m) +
                static_cast<std::size_t>(k)];
  };
  std::vector<int> seen(static_cast<std::size_t>(n), -1);
  std::vector<std::pair<int, int>> gains;  // (rank, chunk), applied after the round
  for (std::size_t r = 0; r < p.rounds.size(); ++r) {
    const auto& round = p.rounds[r];
    gains.clear();
    const bool meets = static_cast<int>(r) < n - 1;
    if (meets) {
      const int g = static_cast<int>(r);
      if (round.empty() || round[0].a != g || round[0].b != S || round[0].chunk_ab != g ||
          round[0].chunk_ba != g)
        fail(r, "does not start with the straggler exchange of chunk " + std::to_string(g));
      gains.emplace_back(g, g);
      gains.emplace_back(S, g);
    }
    for (std::size_t i = 0; i < round.size(); ++i) {
      const auto& e = round[i];
      if (e.a < 0 || e.b >= n || e.a >= e.b) fail(r, "bad pair");
      for (int x : {e.a, e.b}) {
        if (seen[static_cast<std::size_t>(x)] == static_cast<int>(r))
          fail(r, "rank " + std::to_string(x) + " is in two exchanges (not a matching)");
        seen[static_cast<std::size_t>(x)] = static_cast<int>(r);
      }
      if (meets && i == 0) continue;
      for (auto [from, to, k] :
           {std::tuple{e.a, e.b, e.chunk_ab}, std::tuple{e.b, e.a, e.chunk_ba}}) {
        if (k < 0) continue;
        if (k >= m) fail(r, "bad chunk");
        if (!at(from, k))
          fail(r, "rank " + std::to_string(from) + " sends chunk " + std::to_string(k) +
                      " it does not hold");
        if (to == S || at(to, k))
          fail(r, "rank " + std::to_string(to) + " receives chunk " + std::to_string(k) + " again");
        gains.emplace_back(to, k);
      }
    }
    for (auto [x, k] : gains) at(x, k) = 1;
  }
  for (int x = 0; x < n; ++x)
    for (int k = 0; k < m; ++k)
      if (!at(x, k))
        throw Error("stragglar plan for n=" + std::to_string(n) + ": rank " + std::to_string(x) +
                    " never gets chunk " + std::to_string(k));
}

}  // namespace cclx::sched::stragglar_rounds
