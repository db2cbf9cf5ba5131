#include <doctest/doctest.h>

#include <random>
#include <vector>

#include "cclx/algo/straggler_detector.hpp"

using cclx::algo::StragglerDetector;

namespace {
// Arrival times with jitter below `jitter_s` and rank `late` delayed by `delay_s` (-1: none).
std::vector<double> arrivals(int n, int late, double delay_s, double jitter_s, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.0, jitter_s);
  std::vector<double> a(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r)
    a[static_cast<std::size_t>(r)] = 100.0 + u(rng) + (r == late ? delay_s : 0.0);
  return a;
}
}  // namespace

TEST_CASE("detector: persistent straggler is picked within on_score calls and released after") {
  std::mt19937 rng(1);
  StragglerDetector d(StragglerDetector::Config{.min_skew_s = 1e-3});
  for (int call = 0; call < 20; ++call) {
    d.observe(arrivals(8, -1, 0, 1e-4, rng), 1e-3, true);
    CHECK(d.decision() == -1);
  }
  int switched_at = -1;
  for (int call = 0; call < 10; ++call) {
    d.observe(arrivals(8, 5, 5e-3, 1e-4, rng), 1e-3, d.decision() < 0);
    if (d.decision() == 5 && switched_at < 0) switched_at = call;
  }
  CHECK(switched_at == 2);  // third late call: on_score = 3
  // A single punctual call keeps the choice (hysteresis)...
  d.observe(arrivals(8, -1, 0, 1e-4, rng), 1e-3, false);
  CHECK(d.decision() == 5);
  // ...a run of punctual calls releases it.
  for (int call = 0; call < 6; ++call) d.observe(arrivals(8, -1, 0, 1e-4, rng), 1e-3, false);
  CHECK(d.decision() == -1);
}

TEST_CASE("detector: a shifting straggler is followed, random lateness is not") {
  std::mt19937 rng(2);
  StragglerDetector d(StragglerDetector::Config{.min_skew_s = 1e-3});
  for (int call = 0; call < 10; ++call) d.observe(arrivals(6, 1, 4e-3, 1e-4, rng), 1e-3, false);
  CHECK(d.decision() == 1);
  int calls_to_follow = -1;
  for (int call = 0; call < 10; ++call) {
    d.observe(arrivals(6, 4, 4e-3, 1e-4, rng), 1e-3, false);
    if (d.decision() == 4 && calls_to_follow < 0) calls_to_follow = call + 1;
  }
  CHECK(calls_to_follow > 0);
  CHECK(calls_to_follow <= 10);
  // A different rank late on every call never builds a score.
  StragglerDetector e(StragglerDetector::Config{.min_skew_s = 1e-3});
  for (int call = 0; call < 60; ++call) {
    e.observe(arrivals(6, call % 6, 4e-3, 1e-4, rng), 1e-3, true);
    CHECK(e.decision() == -1);
  }
}

TEST_CASE("detector: automatic threshold follows the fallback's duration") {
  std::mt19937 rng(3);
  StragglerDetector d;
  d.observe(arrivals(4, -1, 0, 1e-5, rng), 10e-3, true);
  CHECK(d.threshold_s() == doctest::Approx(5e-3));
  // A 2 ms delay is below half of a 10 ms allreduce: StragglAR would not pay off.
  for (int call = 0; call < 10; ++call) d.observe(arrivals(4, 2, 2e-3, 1e-5, rng), 10e-3, true);
  CHECK(d.decision() == -1);
  for (int call = 0; call < 10; ++call) d.observe(arrivals(4, 2, 8e-3, 1e-5, rng), 10e-3, true);
  CHECK(d.decision() == 2);
}

TEST_CASE("detector: identical inputs give identical decisions (every rank agrees)") {
  std::mt19937 rng(4);
  StragglerDetector a, b;
  for (int call = 0; call < 200; ++call) {
    std::uniform_int_distribution<int> who(-1, 4);
    const auto v = arrivals(5, who(rng), 3e-3 * (call % 3), 5e-4, rng);
    a.observe(v, 1e-3, a.decision() < 0);
    b.observe(v, 1e-3, b.decision() < 0);
    REQUIRE(a.decision() == b.decision());
  }
}
