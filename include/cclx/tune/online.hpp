// Online tuning of one workload (AutoCCL, NSDI'25): the application's own first calls try
// candidates, one per call, and the tuner converges to the fastest.
//
// Subspaces are algorithms (native, ring, ...); inside each, coordinate descent over its resource
// parameters (engine segment size; a tree's segment size and fanout; channels 1, 2, 4 where the
// collective splits and parts keep 16K, schedule/channels.hpp), each on a grid of values,
// because time is close to unimodal in each of them. Two phases: first every subspace's start
// (the algorithm with its default parameters, in the model's order) is measured; then the
// subspaces whose start scored within `prune_ratio` of the best start (the others are pruned)
// are descended, best start first, each from the middle of its grids, until the budget is spent.
// Measuring every start first is what keeps a wrong model from hiding the winner: descending in
// the model's favourite first spent the whole budget there (2 ranks, allreduce at 32 KiB and
// 512 KiB: the model ranked ring, RHD and RHD with elimination, one schedule at n = 2, above
// recursive doubling, which was 2.4-3.2x faster and never ran; docs/tuning.md).
// A candidate is sampled `samples` times after one discarded warm-up call (the first call of a
// candidate generates and caches its schedule), and scored by the mean of its fastest 75% samples
// (AutoCCL's robust statistic) of the call's time as the slowest rank saw it. A candidate the
// model predicts to be more than `model_ratio` times slower than the best score is never tried.
// On converging, a measured native is kept unless the best beats it by the native margin
// (margin.hpp).
//
// Determinism: every rank feeds the same max-over-ranks times (the Communicator reduces them), so
// every rank's tuner walks the same path and proposes the same candidate for the same call.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cclx/tune/candidate.hpp"
#include "cclx/tune/margin.hpp"
#include "cclx/tune/model.hpp"

namespace cclx::tune {

/// When online tuning stops and how it checks for drift.
struct OnlineOptions {
  int samples = 3;            ///< scored samples per candidate (after one warm-up call)
  double prune_ratio = 1.5;   ///< drop a subspace whose start is this much slower than the best
  double model_ratio = 3.0;   ///< never try what the model predicts this much slower
  int max_calls = 40;         ///< budget per workload; converges with the best so far when spent
  double drift_ratio = 1.25;  ///< re-tune when the chosen candidate gets this much slower ...
  int drift_windows = 2;      ///< ... in this many consecutive check windows
  /// Converged on another candidate, keep native unless that one scores this much better
  /// (margin.hpp; the samples of different candidates are not paired, so the margin alone).
  double native_margin = kNativeMargin;
};

/// AutoCCL's robust statistic: the mean of the fastest 75% of `samples` (0 when empty). Scores
/// candidates and, once converged, the drift check's windows.
[[nodiscard]] double robust_score(std::vector<double> samples);

/// A resource parameter and the values coordinate descent walks (in order).
struct Axis {
  std::string param;              ///< the parameter's name ("segment_bytes", "fanout", "channels")
  std::vector<long long> values;  ///< its grid, ascending: those the model accepts for the workload
};

/// One part of the tuner's search: a model candidate and the parameters it descends.
struct Subspace {
  Candidate start;         ///< the algorithm with its default parameters: measured first
  Candidate center;        ///< where the descent starts: the middle of each grid (channels: 1)
  std::vector<Axis> axes;  ///< the parameters it descends, each with two values or more
};
/// The subspaces the tuner explores for `w`: every model candidate, each with its axes.
[[nodiscard]] std::vector<Subspace> subspaces_for(const Workload& w);

/// Online tuning of one workload: tries candidates call by call and converges to the fastest.
class OnlineTuner {
 public:
  /// A tuner for `w` over `spaces` (subspaces_for()): `model` orders the starts, most promising
  /// first, and rules out hopeless candidates (OnlineOptions::model_ratio); an empty `model` does
  /// neither.
  OnlineTuner(const Workload& w, std::vector<Subspace> spaces, const Predictor& model,
              const OnlineOptions& o = {});

  /// The candidate to run for the next call: while tuning, the one being measured; once converged,
  /// the best.
  [[nodiscard]] const Candidate& next() const;
  /// The time (seconds, max over ranks) of the call that ran next().
  void observe(double seconds);
  /// Whether tuning has ended (search done or max_calls spent), until check_drift() restarts it.
  [[nodiscard]] bool converged() const { return converged_; }
  /// The best-scored candidate so far; once converged, the one kept (native when the best does
  /// not clear the native margin; the most promising start when nothing was scored).
  [[nodiscard]] const Candidate& best() const { return best_; }
  /// best()'s score in seconds (the robust_score of its samples); 0 when nothing was scored.
  [[nodiscard]] double best_score() const { return best_score_; }
  /// Calls observed since tuning (re)started, warm-up calls included.
  [[nodiscard]] int calls() const { return calls_; }
  /// Periodic drift check once converged: the chosen candidate's time over a window (its
  /// robust_score, max over ranks). Returns true when it restarted tuning.
  bool check_drift(double window_score_seconds);
  /// The candidates measured so far with their scores (seconds; skipped ones left out).
  [[nodiscard]] std::vector<std::pair<Candidate, double>> measured() const;
  /// One line per candidate tried: "ring(segment_bytes=64K) 12.3 us (3 samples)".
  [[nodiscard]] std::string report() const;

 private:
  struct Tried {
    Candidate c;
    double score;  ///< infinity: skipped as hopeless by the model
    int samples;
  };
  enum class Phase : std::uint8_t { start, descend };
  void begin_descent();  ///< after every start: orders and prunes the subspaces to descend
  void advance();        ///< picks the next candidate that needs measuring
  [[nodiscard]] bool proposal(Candidate& c) const;  ///< false: the neighbour is off the grid
  void on_score(double score);                      ///< moves the search after current_ was scored
  void converge();
  [[nodiscard]] const Tried* tried(const Candidate& c) const;
  [[nodiscard]] double predicted(const Candidate& c) const;

  Workload w_;
  std::vector<Subspace> spaces_;
  Predictor model_;
  OnlineOptions o_;

  Phase phase_ = Phase::start;
  std::size_t space_ = 0;            ///< current subspace
  std::vector<double> start_score_;  ///< per subspace (infinity: skipped)
  std::vector<std::size_t> order_;   ///< the subspaces to descend, best start first
  std::size_t pos_ = 0;              ///< position in order_
  bool entered_ = false;             ///< the current subspace's center has been scored
  std::size_t axis_ = 0;             ///< current axis of the descent
  int direction_ = +1;               ///< +1: towards later grid values, -1: earlier
  bool tried_other_ = false;
  std::size_t axes_unimproved_ = 0;  ///< axes in a row that did not improve the center
  Candidate center_;                 ///< best point of the current subspace so far
  double center_score_ = 0;
  Candidate current_;  ///< being measured
  std::vector<double> samples_;
  bool warm_ = false;  ///< the warm-up call of current_ has run
  std::vector<Tried> tried_;
  Candidate best_;
  double best_score_ = 0;
  bool have_best_ = false;
  bool converged_ = false;
  int calls_ = 0;
  int drift_count_ = 0;
};

}  // namespace cclx::tune
