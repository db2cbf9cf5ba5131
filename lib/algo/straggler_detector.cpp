#include "cclx/algo/straggler_detector.hpp"

#include <algorithm>

namespace cclx::algo {

double StragglerDetector::threshold_s() const {
  if (cfg_.min_skew_s > 0) return cfg_.min_skew_s;
  return std::max(cfg_.floor_s, cfg_.auto_fraction * fallback_duration_s_);
}

void StragglerDetector::observe(std::span<const double> arrivals, double duration_s,
                                bool ran_fallback) {
  const int n = static_cast<int>(arrivals.size());
  if (static_cast<int>(score_.size()) != n) {
    score_.assign(static_cast<std::size_t>(n), 0);
    active_ = -1;
  }
  ++calls_;
  if (ran_fallback && duration_s > 0) {
    // Smoothed, but the first observation counts fully.
    fallback_duration_s_ =
        fallback_duration_s_ == 0 ? duration_s : 0.75 * fallback_duration_s_ + 0.25 * duration_s;
  }
  if (n < 2) return;

  // Latest and second-latest arrivals; ties go to the lower rank (deterministic everywhere).
  int last = 0;
  for (int r = 1; r < n; ++r)
    if (arrivals[r] > arrivals[last]) last = r;
  double second = -1e300;
  for (int r = 0; r < n; ++r)
    if (r != last) second = std::max(second, arrivals[r]);
  const bool late = arrivals[last] - second > threshold_s();

  for (int r = 0; r < n; ++r) {
    int& s = score_[static_cast<std::size_t>(r)];
    if (late && r == last)
      s = std::min(s + 1, cfg_.max_score);
    else
      s = std::max(s - 1, 0);
  }

  int best = 0;
  for (int r = 1; r < n; ++r)
    if (score_[r] > score_[best]) best = r;
  if (active_ >= 0 && score_[static_cast<std::size_t>(active_)] == 0) active_ = -1;
  if (score_[best] >= cfg_.on_score && best != active_ &&
      (active_ < 0 || score_[static_cast<std::size_t>(active_)] < cfg_.on_score))
    active_ = best;
}

}  // namespace cclx::algo
