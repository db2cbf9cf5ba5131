// The late-rank predictor of the adaptive runtime (include/cclx/relay/late_prediction.hpp).
#include "cclx/relay/late_prediction.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <string>

#include "cclx/error.hpp"

namespace cclx::detail {

LatePredictor::LatePredictor(int nranks, int calls, double threshold_s)
    : calls_(calls),
      threshold_(threshold_s),
      streak_(static_cast<std::size_t>(std::max(nranks, 0))),
      late_(static_cast<std::size_t>(std::max(nranks, 0)), false) {
  if (nranks < 1 || calls < 0 || !(threshold_s >= 0))
    throw Error("LatePredictor: needs nranks >= 1, calls >= 0 and a threshold >= 0");
}

void LatePredictor::record(const std::vector<double>& delays) {
  if (delays.size() != streak_.size())
    throw Error("LatePredictor: " + std::to_string(delays.size()) + " delays for " +
                std::to_string(streak_.size()) + " ranks");
  any_ = false;
  for (std::size_t r = 0; r < streak_.size(); ++r) {
    auto& s = streak_[r];
    if (delays[r] >= threshold_ && delays[r] > 0) {
      s.push_back(delays[r]);
      if (static_cast<int>(s.size()) > calls_) s.pop_front();
    } else {
      s.clear();  // on time once: the streak, and any prediction from it, ends
    }
    late_[r] = calls_ > 0 && static_cast<int>(s.size()) == calls_;
    any_ = any_ || late_[r];
  }
}

double LatePredictor::delay(int r) const {
  const auto& s = streak_.at(static_cast<std::size_t>(r));
  return late_.at(static_cast<std::size_t>(r)) ? *std::min_element(s.begin(), s.end()) : 0.0;
}

bool proceed_pays(double arrival_in, double phase1, double phase2, double full, double margin) {
  const double arrival = std::max(arrival_in, 0.0);
  const double proceed = std::max(phase1, arrival) + phase2;
  const double wait = arrival + full;
  return proceed + margin * (phase1 + phase2) < wait;
}

std::optional<double> ski_gain(const std::vector<ArrivalStep>& steps, double last, double full) {
  for (std::size_t k = 0; k < steps.size(); ++k) {
    const ArrivalStep& s = steps[k];
    const double next = k + 1 < steps.size() ? steps[k + 1].at : last;
    const double tau = std::max(s.at, s.phase1 + s.phase2);
    if (!(tau < next)) continue;  // the next rank came first (or this set cannot proceed)
    return (last + full) - (std::max(tau + s.phase1, last) + s.phase2) -
           kReplayMargin * (s.phase1 + s.phase2);
  }
  return std::nullopt;
}

void SkiGuard::record(double gain) {
  gains_.push_back(gain);
  if (static_cast<int>(gains_.size()) > kSkiWindow) gains_.pop_front();
}

bool SkiGuard::enabled() const {
  double sum = 0;
  for (const double g : gains_) sum += g;
  return sum >= 0;
}

std::optional<double> last_rank_gain(const std::vector<ArrivalStep>& steps, double last,
                                     double full) {
  if (steps.empty()) return std::nullopt;
  const ArrivalStep& s = steps.back();
  if (!(s.at < last) || !std::isfinite(s.phase1)) return std::nullopt;
  return (last + full) - (std::max(s.at + s.phase1, last) + s.phase2) -
         kReplayMargin * (s.phase1 + s.phase2);
}

void WaitRules::record(std::optional<double> ski, std::optional<double> last_rank) {
  if (ski) ski_guard_.record(*ski);
  calls_.emplace_back(ski.value_or(0), last_rank.value_or(0));
  if (static_cast<int>(calls_.size()) > kRuleWindow) calls_.pop_front();
}

bool WaitRules::last_rank() const {
  if (2 * static_cast<int>(calls_.size()) < kRuleWindow) return false;
  double ski = 0, last = 0;
  for (const auto& [s, l] : calls_) ski += s, last += l;
  return last > 0 && last > ski;
}

}  // namespace cclx::detail
