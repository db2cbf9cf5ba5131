// Persistent-straggler detection from arrival times. Pure state machine (no MPI): every rank feeds
// it the same arrival vector (all ranks' entry times, exchanged after each call), so every rank
// reaches the same decision for every call — a disagreement would be a deadlock.
//
// Per call: the last rank is "significantly late" when it arrived more than the skew threshold
// after the second-to-last rank. Its score rises by one (capped), every other rank's falls by one.
// A rank becomes the straggler when its score reaches `on_score` (so a persistent straggler is
// picked up within on_score calls of the onset), and stops being it when its score drops to 0
// (hysteresis: a few punctual calls do not flip the choice). The default threshold is half the
// measured duration of the fallback algorithm's calls (about its reduce-scatter time, the delay
// above which StragglAR wins; docs/algorithms/stragglar.md).
#pragma once

#include <span>
#include <vector>

namespace cclx::algo {

/// Detects a persistent straggler from the ranks' arrival times at blocking calls.
class StragglerDetector {
 public:
  /// The detector's thresholds.
  struct Config {
    int on_score = 3;         ///< consecutive-ish late calls before switching
    int max_score = 5;        ///< cap; calls to switch back = max_score
    double min_skew_s = 0.0;  ///< > 0: fixed skew threshold in seconds instead of the automatic one
    double auto_fraction = 0.5;  ///< automatic threshold = fraction x fallback call duration
    double floor_s = 20e-6;  ///< never treat skews below this as lateness (timer/scheduling noise)
  };

  StragglerDetector() = default;
  /// A detector with the thresholds `c` instead of the defaults.
  explicit StragglerDetector(const Config& c) : cfg_(c) {}

  /// The straggler to use for the next call, or -1 for the fallback algorithm.
  [[nodiscard]] int decision() const { return active_; }

  /// `arrivals[r]`: when rank r entered the call (a clock common to all ranks); `duration_s`: time
  /// from the last arrival to completion, agreed across ranks (e.g. the maximum), and whether the
  /// call ran the fallback algorithm (its durations calibrate the automatic threshold).
  void observe(std::span<const double> arrivals, double duration_s, bool ran_fallback);

  /// The skew threshold in seconds that makes the last rank late: min_skew_s when it is set,
  /// else auto_fraction times the smoothed fallback call duration, but at least floor_s.
  [[nodiscard]] double threshold_s() const;
  /// Every rank's lateness score, in [0, max_score]; empty before the first observe().
  [[nodiscard]] const std::vector<int>& scores() const { return score_; }
  /// The number of calls observed so far.
  [[nodiscard]] long calls() const { return calls_; }

 private:
  Config cfg_{};
  std::vector<int> score_;
  int active_ = -1;
  double fallback_duration_s_ = 0.0;  ///< smoothed
  long calls_ = 0;
};

}  // namespace cclx::algo
