// The adaptive runtime's prediction of persistently late ranks (detail/late_prediction.hpp): a
// rank is predicted late only after a full streak of late calls, by the least delay of the streak;
// one call on time ends the streak; and the wait-or-proceed comparison.
#include <doctest/doctest.h>

#include <vector>

#include "cclx/detail/late_prediction.hpp"
#include "cclx/error.hpp"

using cclx::detail::LatePredictor;
using cclx::detail::proceed_pays;

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
