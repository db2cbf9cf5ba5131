// Rank 0's wait-or-proceed policy for one relay request (docs/algorithms/adaptive-runtime.md):
// for each call, from the ranks' ready times, whether to proceed now and with which plan (ski
// rental on the model's costs, the prediction of persistently late ranks, the last-rank rule, each
// applied while its replays on past calls pay), and the fault time-out. No MPI and no threads:
// the runtime (runtime.cpp) feeds it the ready notices and posts what it decides.
#pragma once

#include <algorithm>
#include <cstdio>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cclx/relay/late_prediction.hpp"
#include "cclx/relay/model.hpp"

namespace cclx::detail {

// algo::Adaptive's fault time-out and prediction settings, as the runtime applies them.
struct RelayOptions {
  double fault_factor = 5, fault_floor_s = 10, fault_cap_s = 300;
  int predict_calls = 2;
};

// One call being coordinated.
struct Round {
  std::vector<double> ready_at;  // hub time of each rank's ready notice; < 0: not yet
  double first = 0, last = 0;
  int nready = 0;
  bool decided = false, faulted = false;
};

class WaitOrProceed {
 public:
  WaitOrProceed(std::shared_ptr<const RelayModel> model, const RelayOptions& options, int nranks,
                std::string name);

  struct Decision {
    int plan = -1;           // >= 0: proceed now with this plan (RelayModel::phases); < 0: wait
    bool predicted = false;  // on the prediction of late ranks
    bool last_rank = false;  // by the last-rank rule
  };
  // For an undecided call at hub time `now`. Ski rental: waiting is renting, proceeding is buying
  // at the predicted cost of phase 1 + phase 2 with the ranks ready now; buy once the waiting has
  // cost as much. Below the model's cheap floor of that cost the rule cannot buy yet: the
  // simulation that prices a new set (milliseconds) waits until it can matter. The rule applies
  // only while its replays on recent calls' arrivals did not lose (SkiGuard), and not while the
  // last-rank rule (proceed once one rank is missing) gained more in its replays (WaitRules).
  // Before either, ranks late in every recent call may be predicted late enough to proceed.
  [[nodiscard]] Decision decide(const Round& r, double now);
  // A call every rank has joined: its arrivals train the rules and the predictor.
  void learn(const Round& r);
  // Seconds after its first ready notice after which `r`'s missing ranks are declared failed:
  // clamp(fault_factor x the largest arrival spread seen, floor, cap).
  [[nodiscard]] double fault_limit(const Round& r) const;

 private:
  // The plans of a ready set, priced once (milliseconds of simulation), and the cheapest.
  struct Priced {
    std::vector<RelayModel::Choice> plans;
    RelayModel::Choice cheapest;
  };
  const Priced& priced(const std::vector<bool>& ready) {
    auto it = costs_.find(ready);
    if (it == costs_.end()) {
      // A set the model cannot serve is never chosen: the call then waits for every rank.
      Priced p{{}, {std::numeric_limits<double>::infinity(), 0, 0}};
      try {
        p.plans = model_->choices(ready);
        p.cheapest = RelayModel::best_plan(p.plans, 0);
      } catch (const std::exception& e) {
        p.plans.clear();
        std::fprintf(stderr, "cclx: rank 0: %s: no relay for this set of ready ranks: %s\n",
                     name_.c_str(), e.what());
      }
      it = costs_.emplace(ready, std::move(p)).first;
    }
    return it->second;
  }
  const RelayModel::Choice& cost(const std::vector<bool>& ready) { return priced(ready).cheapest; }
  // The plan a decision for `ready` names when nothing was predicted: the cheapest one (0 for a
  // set that was never priced: all ranks ready).
  int cost_plan(const std::vector<bool>& ready) const {
    const auto c = costs_.find(ready);
    return c == costs_.end() ? 0 : c->second.cheapest.plan;
  }
  // When every missing rank is predicted late: the plan that finishes first if they arrive when
  // predicted, provided proceeding with it now is predicted to finish sooner than waiting for the
  // latest of them (relay/late_prediction.hpp); -1 otherwise.
  int proceed_on_prediction(const Round& r, const std::vector<bool>& ready, double now) {
    if (!predictor_ || !predictor_->any()) return -1;
    double arrival = now;  // the latest predicted ready time of a missing rank (hub time)
    for (int q = 0; q < n_; ++q) {
      if (ready[static_cast<std::size_t>(q)]) continue;
      if (!predictor_->late()[static_cast<std::size_t>(q)]) return -1;
      arrival = std::max(arrival, r.first + predictor_->delay(q));
    }
    const double full = all_active_cost();
    const Priced& p = priced(ready);
    if (p.plans.empty()) return -1;
    const RelayModel::Choice& c = RelayModel::best_plan(p.plans, arrival - now);
    return proceed_pays(arrival - now, c.phase1, c.phase2, full, kPredictionMargin) ? c.plan : -1;
  }
  // A call every rank has joined: what the ski-rental and last-rank rules would have gained in it
  // (WaitRules), and how late each rank was (the predictor).
  void learn_from(const Round& r) {
    replay_rules(r);
    if (options_.predict_calls <= 0) return;
    if (!predictor_)
      predictor_.emplace(n_, options_.predict_calls, kLateFraction * all_active_cost());
    std::vector<double> delays(static_cast<std::size_t>(n_));
    for (int q = 0; q < n_; ++q)
      delays[static_cast<std::size_t>(q)] = r.ready_at[static_cast<std::size_t>(q)] - r.first;
    predictor_->record(delays);
  }
  // The ski-rental and last-rank rules on this call's arrivals, by the model (detail::ski_gain,
  // detail::last_rank_gain). A set is priced where ski rental would have priced it live (its
  // interval reaches the set's cost floor), and the set of all ranks but the last always.
  void replay_rules(const Round& r) {
    std::vector<int> order(static_cast<std::size_t>(n_));
    for (int q = 0; q < n_; ++q) order[static_cast<std::size_t>(q)] = q;
    const auto at = [&](int q) { return r.ready_at[static_cast<std::size_t>(q)] - r.first; };
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return at(a) < at(b); });
    std::vector<bool> ready(static_cast<std::size_t>(n_), false);
    std::vector<ArrivalStep> steps;
    for (int k = 0; k + 1 < n_; ++k) {
      const int q = order[static_cast<std::size_t>(k)];
      ready[static_cast<std::size_t>(q)] = true;
      ArrivalStep step{at(q), std::numeric_limits<double>::infinity(), 0};
      const double next = at(order[static_cast<std::size_t>(k) + 1]);
      if (next > step.at && (k + 2 == n_ || next >= model_->cost_floor(ready))) {
        const RelayModel::Choice& c = cost(ready);
        step.phase1 = c.phase1;
        step.phase2 = c.phase2;
      }
      steps.push_back(step);
    }
    const double last = at(order.back()), full = all_active_cost();
    rules_.record(ski_gain(steps, last, full), last_rank_gain(steps, last, full));
  }
  double all_active_cost() {
    return cost(std::vector<bool>(static_cast<std::size_t>(n_), true)).total();
  }
  double fault_limit(double spread) const {
    return std::clamp(options_.fault_factor * spread, options_.fault_floor_s,
                      std::max(options_.fault_floor_s, options_.fault_cap_s));
  }

  std::shared_ptr<const RelayModel> model_;
  RelayOptions options_;
  int n_;
  std::string name_;
  std::map<std::vector<bool>, Priced> costs_;
  std::optional<LatePredictor> predictor_;  // made at the first complete call
  WaitRules rules_;
  double spread_ = 0;
};

}  // namespace cclx::detail
