// The adaptive runtime's prediction of persistently late ranks (relay/late_prediction.hpp): a
// rank is predicted late only after a full streak of late calls, by the least delay of the streak;
// one call on time ends the streak; the wait-or-proceed comparison; ski rental and the last-rank
// rule replayed in hindsight, and the choice between them.
#include <doctest/doctest.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/relay/late_prediction.hpp"

using cclx::detail::ArrivalStep;
using cclx::detail::kReplayMargin;
using cclx::detail::last_rank_gain;
using cclx::detail::LatePredictor;
using cclx::detail::proceed_pays;
using cclx::detail::ski_gain;
using cclx::detail::SkiGuard;
using cclx::detail::WaitRules;

TEST_CASE("late prediction: a streak of late calls predicts the least delay of the streak") {
  LatePredictor p(4, 2, 0.05);
  CHECK_FALSE(p.any());
  p.record({0, 0.01, 0.30, 0});  // rank 2 late once: not yet a prediction
  CHECK_FALSE(p.any());
  CHECK(p.delay(2) == 0);
  p.record({0.02, 0, 0.28, 0.001});  // twice in a row
  CHECK(p.any());
  CHECK(p.late() == std::vector<bool>{false, false, true, false});
  CHECK(p.delay(2) == doctest::Approx(0.28));
  CHECK(p.delay(1) == 0);
  p.record({0, 0, 0.35, 0});  // the window keeps the last 2 calls: min(0.28, 0.35)
  CHECK(p.delay(2) == doctest::Approx(0.28));
  p.record({0, 0, 0.40, 0});  // 0.28 left the window: min(0.35, 0.40)
  CHECK(p.delay(2) == doctest::Approx(0.35));
  p.record({0, 0, 0.04, 0});  // on time (below the threshold) once: the prediction ends
  CHECK_FALSE(p.any());
  CHECK(p.delay(2) == 0);
  p.record({0, 0, 0.3, 0});
  CHECK_FALSE(p.any());  // a new streak starts from one
}

TEST_CASE("late prediction: several late ranks, calls = 1 and calls = 0") {
  LatePredictor one(3, 1, 0.1);
  one.record({0, 0.2, 0.5});
  CHECK(one.late() == std::vector<bool>{false, true, true});
  CHECK(one.delay(1) == doctest::Approx(0.2));
  CHECK(one.delay(2) == doctest::Approx(0.5));
  LatePredictor never(3, 0, 0.1);
  for (int i = 0; i < 5; ++i) never.record({0, 1, 1});
  CHECK_FALSE(never.any());
  CHECK_THROWS_AS(LatePredictor(0, 2, 0.1), cclx::Error);
  CHECK_THROWS_AS(LatePredictor(2, -1, 0.1), cclx::Error);
  CHECK_THROWS_AS(one.record({0, 1}), cclx::Error);  // one delay per rank
}

TEST_CASE("late prediction: proceed only when it finishes sooner by the margin") {
  // The testbed's shape (4 MiB, 8 hosts): the all-active schedule 0.31 s; proceeding with a ring
  // over the ready ranks 0.29 s, then the late data's broadcast 0.2 s.
  const double full = 0.31, p1 = 0.29, p2 = 0.2, margin = 0.1;
  CHECK(proceed_pays(0.30, p1, p2, full, margin));          // 0.50 against 0.61
  CHECK(proceed_pays(1.00, p1, p2, full, margin));          // 1.20 against 1.31
  CHECK_FALSE(proceed_pays(0.10, p1, p2, full, margin));    // 0.49 against 0.41
  CHECK_FALSE(proceed_pays(0.0, p1, p2, full, margin));     // arrival now: run the full schedule
  CHECK_FALSE(proceed_pays(-0.5, p1, p2, full, margin));    // overdue counts as now
  CHECK_FALSE(proceed_pays(0.30, 0.40, p2, full, margin));  // a slow phase 1: 0.60 against 0.61
  CHECK(proceed_pays(0.30, 0.40, p2, full, 0.0));           // without the margin it would
  // The margin is 10% of the modelled 0.49 s: a gain of 0.049 s or less does not count.
  CHECK_FALSE(proceed_pays(0.30, p1, 0.27, full, margin));  // 0.57 + 0.056 against 0.61
  CHECK(proceed_pays(0.30, p1, 0.25, full, margin));        // 0.55 + 0.054 against 0.61
}

TEST_CASE("ski rental in hindsight: the replayed gain against waiting") {
  // Two ranks ready at 0, the third at `last`; proceeding with the two costs 0.29 + 0.2 s, the
  // all-active schedule 0.31 s (the testbed's shape).
  const double inf = std::numeric_limits<double>::infinity();
  const double full = 0.31;
  const std::vector<ArrivalStep> steps{{0, inf, 0}, {0, 0.29, 0.2}};
  // The last rank at 0.3 s: the rule waits (0.49 s not reached): no proceed to judge.
  CHECK_FALSE(ski_gain(steps, 0.3, full).has_value());
  // Every replayed proceed is charged the model's resolution, kReplayMargin of its cost.
  const double charge = kReplayMargin * (0.29 + 0.2);
  // At 0.6 s: proceeds at 0.49, finishes at max(0.78, 0.6) + 0.2 = 0.98, waiting 0.91: lost 0.07.
  REQUIRE(ski_gain(steps, 0.6, full).has_value());
  CHECK(*ski_gain(steps, 0.6, full) == doctest::Approx(-0.07 - charge));
  // At 2 s: finishes at 2.2 against 2.31: gained T(all) - P2 = 0.11.
  CHECK(*ski_gain(steps, 2.0, full) == doctest::Approx(0.11 - charge));
  // A set that cannot proceed (infinite cost) is skipped; a later one decides.
  const std::vector<ArrivalStep> later{{0, inf, 0}, {0.5, 0.1, 0.1}};
  CHECK(*ski_gain(later, 1.0, full) ==
        doctest::Approx((1.0 + full) - (std::max(0.6, 1.0) + 0.1) - kReplayMargin * 0.2));
  CHECK_FALSE(ski_gain({}, 0.0, full).has_value());
}

TEST_CASE("ski rental in hindsight: the guard follows the sum of the last replays") {
  SkiGuard g;
  CHECK(g.enabled());  // no evidence yet: AdapCC's rule
  g.record(-0.07);
  CHECK_FALSE(g.enabled());
  g.record(0.11);
  CHECK(g.enabled());  // 0.04 in sum
  g.record(-0.07);
  g.record(-0.07);
  CHECK_FALSE(g.enabled());  // -0.10
  for (int i = 0; i < cclx::detail::kSkiWindow; ++i) g.record(0.01);
  CHECK(g.enabled());  // the losses left the window
}

TEST_CASE("last-rank rule in hindsight: the replayed gain against waiting") {
  // Seven ranks ready by 0.02 s, the last at `last`; proceeding with the seven costs 0.151 +
  // 0.195 s (the owner plan on the testbed's shape), the all-active schedule 0.30 s.
  const double inf = std::numeric_limits<double>::infinity();
  const double full = 0.30;
  const std::vector<ArrivalStep> steps{{0, inf, 0}, {0.01, inf, 0}, {0.02, 0.151, 0.195}};
  const double charge = kReplayMargin * (0.151 + 0.195);  // the model's resolution
  // The last rank 0.3 s later: finishes at max(0.171, 0.32) + 0.195 against 0.62: gained 0.105.
  REQUIRE(last_rank_gain(steps, 0.32, full).has_value());
  CHECK(*last_rank_gain(steps, 0.32, full) == doctest::Approx(0.105 - charge));
  // Right after the seventh: max(0.171, 0.03) + 0.195 = 0.366 against 0.33: lost 0.036.
  CHECK(*last_rank_gain(steps, 0.03, full) == doctest::Approx(-0.036 - charge));
  // 0.05 s after the seventh: max(0.171, 0.07) + 0.195 = 0.366 against 0.37: a gain of 0.004 s,
  // less than the model resolves, so it counts as a loss.
  CHECK(*last_rank_gain(steps, 0.07, full) == doctest::Approx(0.004 - charge));
  CHECK(*last_rank_gain(steps, 0.07, full) < 0);
  // With the seventh, or a set that cannot proceed: nothing to judge.
  CHECK_FALSE(last_rank_gain(steps, 0.02, full).has_value());
  const std::vector<ArrivalStep> cannot{{0, 0.1, 0.1}, {0.01, inf, 0}};
  CHECK_FALSE(last_rank_gain(cannot, 0.5, full).has_value());
  CHECK_FALSE(last_rank_gain({}, 0.5, full).has_value());
  // Ski rental on the same call waits 0.346 s: the last rank came first, nothing to judge.
  CHECK_FALSE(ski_gain(steps, 0.32, full).has_value());
}

TEST_CASE("last-rank rule in hindsight: on while it gained more than ski rental") {
  WaitRules w;
  CHECK(w.ski());  // no evidence yet: AdapCC's rule
  CHECK_FALSE(w.last_rank());
  // Half a window of calls where only the last-rank rule would have proceeded, and gained.
  for (int i = 0; i < cclx::detail::kRuleWindow / 2 - 1; ++i) w.record(std::nullopt, 0.1);
  CHECK_FALSE(w.last_rank());  // not enough calls yet
  w.record(std::nullopt, 0.1);
  CHECK(w.last_rank());
  CHECK_FALSE(w.ski());  // one rule at a time
  // Ski rental gaining more (long delays, both proceed) takes over again.
  for (int i = 0; i < cclx::detail::kRuleWindow; ++i) w.record(0.3, 0.2);
  CHECK_FALSE(w.last_rank());
  CHECK(w.ski());
  // Both losing: neither proceeds (the guard's sum of ski's last replays is negative).
  for (int i = 0; i < cclx::detail::kRuleWindow; ++i) w.record(-0.05, -0.04);
  CHECK_FALSE(w.last_rank());
  CHECK_FALSE(w.ski());
  // Mixed calls: the last-rank rule on while its sum is positive and above ski's.
  for (int i = 0; i < cclx::detail::kRuleWindow; ++i)
    w.record(i % 2 ? std::optional<double>{} : -0.02, i % 2 ? 0.05 : -0.03);
  CHECK(w.last_rank());  // 4 · 0.05 − 4 · 0.03 > 0 > 4 · −0.02
}
