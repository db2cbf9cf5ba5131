// The online tuner on synthetic workloads: it converges within its budget to a candidate within
// 3% of the best, never tries what the model rules out, prunes, is deterministic, and re-tunes on
// drift.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cclx/tune/auto_state.hpp"
#include "cclx/tune/online.hpp"

using namespace cclx::tune;
using cclx::sched::Collective;

namespace {
Workload big_allreduce() {
  Workload w;
  w.collective = Collective::allreduce;
  w.nranks = 4;
  w.bytes = 16u << 20;
  w.elem_size = 4;
  return w;
}

// True cost: ring is best with 256K segments (unimodal in the segment size), rhd close behind,
// trees and native far behind. Noise: +-2% uniform, plus a rare 3x outlier.
double true_cost(const Candidate& c) {
  const auto seg = c.params.count("segment_bytes") ? c.params.at("segment_bytes") : 0;
  const double seg_penalty = seg == 0 ? 1.3 : 1.0 + 0.08 * std::abs(std::log2(seg / 262144.0));
  if (c.algorithm == "ring") return 1e-3 * seg_penalty;
  if (c.algorithm == "rhd") return 1.1e-3 * seg_penalty;
  if (c.algorithm == "native") return 2e-3;
  return 4e-3;
}

struct Run {
  int calls = 0;
  std::vector<std::string> tried;
  Candidate best;
};

Run run_tuner(const OnlineOptions& o, unsigned seed, const Predictor& model) {
  const Workload w = big_allreduce();
  OnlineTuner t(w, subspaces_for(w), model, o);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> noise(0.98, 1.02);
  Run r;
  while (!t.converged() && r.calls < 200) {
    const Candidate c = t.next();
    r.tried.push_back(to_string(c));
    const double outlier = (rng() % 37 == 0) ? 3.0 : 1.0;
    t.observe(true_cost(c) * noise(rng) * outlier);
    ++r.calls;
  }
  r.best = t.best();
  return r;
}
}  // namespace

TEST_CASE("tune online: converges within 40 calls to within 3% of the best candidate") {
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const Run r = run_tuner({}, seed, alpha_beta_model());
    CAPTURE(seed);
    CHECK(r.calls <= 40);
    CHECK(true_cost(r.best) <= 1.03 * 1e-3);
  }
}

TEST_CASE("tune online: every algorithm's default is measured before any descent") {
  // Measured on 2 ranks (docs/tuning-results.md, "Online tuning: calls to convergence"): at
  // 512 KiB the model ranks ring, RHD and RHD with elimination (one schedule at n = 2) first, while
  // recursive doubling unsegmented is 2.5x faster. Descending the model's favourite first spent the
  // budget there; measuring every subspace's start first finds recursive doubling within 40 calls.
  Workload w;
  w.collective = Collective::allreduce;
  w.nranks = 2;
  w.bytes = 512u << 10;
  w.elem_size = 4;
  const auto cost = [](const Candidate& c) {
    const auto seg = c.params.count("segment_bytes") ? c.params.at("segment_bytes") : 0;
    if (c.algorithm == "recursive_doubling") return seg == 0 ? 30e-6 : 60e-6;
    if (c.native()) return 90e-6;
    if (c.algorithm == "ring" || c.algorithm.rfind("rhd", 0) == 0) return seg ? 75e-6 : 80e-6;
    return 120e-6;
  };
  const Predictor model = alpha_beta_model();
  REQUIRE(model(Candidate{"recursive_doubling", {}}, w) > model(Candidate{"ring", {}}, w));
  OnlineTuner t(w, subspaces_for(w), model);
  int calls = 0;
  std::set<std::string> starts;
  while (!t.converged()) {
    const Candidate c = t.next();
    if (c.params.empty()) starts.insert(to_string(c));
    t.observe(cost(c));
    ++calls;
  }
  CHECK(calls <= 40);
  CHECK(t.best() == Candidate{"recursive_doubling", {}});
  CHECK(starts.count("recursive_doubling"));
  CHECK(starts.count("native"));
}

TEST_CASE("tune online: never tries a candidate the model predicts 3x slower than the best") {
  const Workload w = big_allreduce();
  const Predictor model = alpha_beta_model();
  const Run r = run_tuner({}, 7, model);
  // The best known when each candidate was proposed is at least as good as the final best's
  // prediction; every tried candidate must be within 3x of the best prediction among those tried
  // before it.
  double best_pred = INFINITY;
  std::map<std::string, int> first_seen;
  for (const auto& name : r.tried) {
    const double p = model(parse_candidate(name), w);
    if (std::isfinite(best_pred)) CHECK(p <= 3.0 * best_pred * 1.0001);
    if (!first_seen.count(name)) first_seen[name] = 1;
    best_pred = std::min(best_pred, p);
  }
  // A model that rules out everything but native and ring: nothing else is ever tried.
  const Predictor strict = [&](const Candidate& c, const Workload& wl) {
    return c.native() || c.algorithm == "ring" ? model(c, wl) : 1e9;
  };
  for (const auto& name : run_tuner({}, 7, strict).tried)
    CHECK((name == "native" || name.rfind("ring", 0) == 0));
}

TEST_CASE("tune online: identical observations give identical decisions (every rank agrees)") {
  const Run a = run_tuner({}, 3, alpha_beta_model());
  const Run b = run_tuner({}, 3, alpha_beta_model());
  CHECK(a.tried == b.tried);
  CHECK(a.best == b.best);
}

TEST_CASE("tune online: a small message has no segment axis; slow subspaces are pruned") {
  Workload w = big_allreduce();
  w.bytes = 64;
  const auto spaces = subspaces_for(w);
  for (const auto& s : spaces)  // only the tree's fanout remains to tune
    CHECK(s.axes.size() == (s.start.algorithm == "pipelined_tree" ? 1u : 0u));
  OnlineTuner t(w, spaces, alpha_beta_model());
  int calls = 0;
  while (!t.converged()) {
    t.observe(t.next().native() ? 1e-6 : 2e-6);
    ++calls;
  }
  CHECK(t.best().native());
  CHECK(calls <= static_cast<int>(spaces.size()) * 4);
}

TEST_CASE("tune online: the budget ends tuning; drift restarts it") {
  OnlineOptions o;
  o.max_calls = 6;
  const Workload w = big_allreduce();
  OnlineTuner t(w, subspaces_for(w), alpha_beta_model(), o);
  for (int i = 0; i < 6; ++i) t.observe(true_cost(t.next()));
  CHECK(t.converged());
  const double best = t.best_score();
  CHECK_FALSE(t.check_drift(best * 1.1));  // within the drift ratio
  CHECK_FALSE(t.check_drift(best * 2));    // one window is not enough
  CHECK(t.check_drift(best * 2));          // two in a row: re-tune
  CHECK_FALSE(t.converged());
  CHECK(t.calls() == 0);
  CHECK(t.report().empty());
}

TEST_CASE("tune auto state: learned choices round-trip through a table and outrank tuning") {
  Workload w = big_allreduce();
  w.nranks = 2;
  AutoState a(Selector::Config{});
  AutoState::Timing timing{};
  int calls = 0;
  while (calls < 100) {
    const Candidate c = a.choose(w, /*online=*/true, timing);
    if (timing != AutoState::Timing::tune) break;
    a.observe(w, true_cost(c));
    ++calls;
  }
  REQUIRE(a.converged(w));
  CHECK(calls <= 40);
  const Candidate best = a.choose(w, true, timing);
  const TuningTable t = a.learned();
  REQUIRE(t.entries().size() == 1);
  CHECK(t.entries()[0].best() == to_string(best));

  Selector::Config cfg;
  cfg.table = TuningTable::parse(t.dump());
  cfg.table_origin = "saved.json";
  AutoState b(cfg);
  CHECK(b.choose(w, true, timing) == best);  // exact size: the table's, without tuning
  CHECK(timing == AutoState::Timing::none);
  CHECK(b.tuning_calls(w) == 0);
  Workload other = w;
  other.bytes = 4u << 20;
  (void)b.choose(other, true, timing);  // another size: tuned online, not the nearest entry
  CHECK(timing == AutoState::Timing::tune);
  (void)b.choose(other, false, timing);  // without online tuning the nearest entry serves
  CHECK(timing == AutoState::Timing::none);
  CHECK(b.explain(other, false).find("from tuning table: saved.json at 16M") != std::string::npos);
}

// Negative control for the MPI test "auto: online tuning under per-rank noise ..." (test_auto.cpp):
// with that test's noise (every rank sleeps U(0, 300) us before each call, seeded 1234 + 7919 r),
// tuners fed each rank's LOCAL call time would end with different choices, so the test's agreement
// is evidence of the max-over-ranks feeding, not of weak noise. Ranks are emulated: rank r arrives
// a_r after the previous call, the call ends when the last rank has arrived plus the candidate's
// cost, and rank r sees max_q a_q - a_r + cost.
TEST_CASE("tune online: per-rank noise makes local-time tuners disagree (negative control)") {
  const Predictor model = alpha_beta_model();
  for (int n = 2; n <= 8; ++n) {
    Workload w;
    w.collective = Collective::allreduce;
    w.nranks = n;
    w.bytes = 8192;  // the MPI test's 2048 ints
    w.elem_size = 4;
    std::vector<OnlineTuner> local;
    std::vector<std::mt19937> noise;
    for (int r = 0; r < n; ++r) {
      local.emplace_back(w, subspaces_for(w), model);
      noise.emplace_back(static_cast<unsigned>(1234 + 7919 * r));
    }
    OnlineTuner agreed(w, subspaces_for(w), model);  // what the Communicator feeds
    std::uniform_int_distribution<int> us(0, 300);
    for (int call = 0; call < 48; ++call) {
      std::vector<double> arrive(static_cast<std::size_t>(n));
      for (int r = 0; r < n; ++r) arrive[r] = 1e-6 * us(noise[r]);
      const double last = *std::max_element(arrive.begin(), arrive.end());
      const double first = *std::min_element(arrive.begin(), arrive.end());
      // The emulated call runs each local tuner's own proposal: exactly what would happen if each
      // rank trusted its own clock (and is what makes a real run deadlock or mix algorithms).
      for (int r = 0; r < n; ++r) {
        const double cost = std::max(0.0, model(local[r].next(), w));
        local[r].observe(last - arrive[r] + cost);
      }
      agreed.observe(last - first + std::max(0.0, model(agreed.next(), w)));
    }
    std::set<std::string> choices;
    for (const auto& t : local) choices.insert(to_string(t.best()));
    INFO("n = " << n << ", local choices: " << choices.size());
    CHECK(choices.size() >= 2);
    CHECK(agreed.converged());
  }
}

// The drift check once converged: a window is scored like a candidate (fastest 75%), so one
// descheduled call per window does not restart tuning; a lasting slowdown does.
TEST_CASE("tune auto state: an outlier per drift window is ignored, a lasting slowdown re-tunes") {
  Workload w = big_allreduce();
  w.nranks = 2;
  AutoState a(Selector::Config{});
  AutoState::Timing timing{};
  for (int calls = 0; calls < 100; ++calls) {
    const Candidate c = a.choose(w, /*online=*/true, timing);
    if (timing != AutoState::Timing::tune) break;
    a.observe(w, true_cost(c));
  }
  REQUIRE(a.converged(w));
  const Candidate best = a.choose(w, true, timing);
  // Runs `windows` drift windows of calls at `slowdown` x the best's cost, one call per window
  // taking `outlier` x; true when tuning restarted.
  const auto run_windows = [&](int windows, double slowdown, double outlier) {
    for (int win = 0; win < windows; ++win)
      for (int sample = 0; sample < AutoState::window;) {
        const Candidate c = a.choose(w, true, timing);
        if (timing == AutoState::Timing::tune) return true;
        if (timing != AutoState::Timing::sample) continue;
        const double t = true_cost(c) * slowdown * (sample == 0 ? outlier : 1.0);
        if (a.add_sample(w, t)) a.check_drift(w, a.window_score(w));
        ++sample;
      }
    return !a.converged(w);
  };
  CHECK_FALSE(run_windows(4, 1.0, 10.0));  // a plain mean would be +56%: beyond the 25% ratio
  CHECK(a.converged(w));
  CHECK(a.choose(w, true, timing) == best);
  CHECK(run_windows(2, 2.0, 1.0));  // twice as slow for two windows: re-tune
}

TEST_CASE("tune online: a hierarchical policy's pipeline is a coordinate, starting at 1") {
  const std::vector<int> hosts = {0, 0, 1, 1};
  Workload w = big_allreduce();
  w.hosts = hosts;
  std::size_t axes = 0;
  for (const auto& s : subspaces_for(w)) {
    CHECK(s.start.params.empty());  // the model's pipelined candidates are points of an axis
    for (const auto& a : s.axes)
      if (a.param == "pipeline") {
        CHECK(s.start.algorithm.find('_') != std::string::npos);  // multilane_*, leader_*
        CHECK(a.values == std::vector<long long>{1, 2, 4, 8});
        CHECK(s.center.params.at("pipeline") == 1);  // the descent starts with the phases in turn
        ++axes;
      }
  }
  CHECK(axes >= 2);
  // Segments under min_pipeline_segment, or a collective that does not pipeline: no axis.
  for (const auto& [bytes, c] : {std::pair{std::size_t{64} << 10, Collective::allreduce},
                                 std::pair{std::size_t{16} << 20, Collective::allgather}}) {
    Workload v = w;
    v.bytes = bytes;
    v.collective = c;
    for (const auto& s : subspaces_for(v))
      for (const auto& a : s.axes) CHECK(a.param != "pipeline");
  }
}

TEST_CASE("tune online: channels are a coordinate of the descent, chosen alike on every rank") {
  const Workload w = big_allreduce();
  bool ring_axis = false;
  for (const auto& s : subspaces_for(w))
    for (const auto& a : s.axes)
      if (a.param == "channels") {
        CHECK(a.values == std::vector<long long>{1, 2, 4});
        CHECK(s.center.params.at("channels") == 1);     // the descent starts unsplit
        CHECK_FALSE(s.start.params.count("channels"));  // the start: default parameters
        ring_axis = ring_axis || s.start.algorithm == "ring";
      }
  CHECK(ring_axis);
  Workload gather = w;  // one block per rank: nothing to split, no channels axis or parameter
  gather.collective = Collective::allgather;
  for (const auto& s : subspaces_for(gather)) {
    CHECK_FALSE(s.start.params.count("channels"));
    for (const auto& a : s.axes) CHECK(a.param != "channels");
  }
  // Ring with two channels is 10% faster than any other point: the descent must find it, and two
  // tuners fed the same (max-over-ranks) times must walk the same path to the same choice.
  const auto run = [&] {
    OnlineOptions o;
    o.max_calls = 200;
    OnlineTuner t(w, subspaces_for(w), alpha_beta_model(), o);
    std::mt19937 rng(5);
    std::uniform_real_distribution<double> noise(0.99, 1.01);
    std::vector<std::string> tried;
    while (!t.converged()) {
      const Candidate c = t.next();
      tried.push_back(to_string(c));
      const auto ch = c.params.count("channels") ? c.params.at("channels") : 1;
      t.observe(true_cost(c) * (c.algorithm == "ring" && ch == 2 ? 0.9 : 1.0) * noise(rng));
    }
    return std::make_pair(tried, t.best());
  };
  const auto a = run(), b = run();
  CHECK(a.first == b.first);
  CHECK(a.second == b.second);
  CHECK(a.second.algorithm == "ring");
  CHECK(a.second.params.at("channels") == 2);
  CHECK(std::count_if(a.first.begin(), a.first.end(), [](const std::string& s) {
          return s.find("channels=4") != std::string::npos;
        }) > 0);  // explored past the optimum
}
