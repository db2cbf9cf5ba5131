// What algo::Auto knows on one communicator: the selector (override > table > model), the online
// tuners of the workloads being tuned, and the drift checks of tuned ones. Owned by the
// Communicator; every rank holds an identical copy as long as it is fed identical inputs (the
// Communicator agrees on fingerprint() once and reduces every measured time to its max).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cclx/tune/online.hpp"
#include "cclx/tune/selector.hpp"
#include "cclx/tune/settled.hpp"

namespace cclx::tune {

/// CCLX_TUNE (cclx/settings.hpp): "online" tunes every Auto workload online; unset, "" or "off"
/// does not. Throws cclx::Error on anything else.
[[nodiscard]] bool online_from_env();
/// CCLX_LOG names "tune" or "all" (comma-separated list): log each decision on rank 0. Throws
/// cclx::Error on a word it does not know.
[[nodiscard]] bool log_tune_from_env();

/// One workload's decision: the selector's, and the online tuner's once a call tunes it.
/// AutoState's map of them is the one place a decision is kept; AutoContext runs a repeated call
/// from its entry's `settled` (map nodes never move, so a pointer into an entry stays valid).
struct AutoEntry {
  Decision decision;                   ///< the selector's, made at the workload's first call
  std::unique_ptr<OnlineTuner> tuner;  ///< null until a call tunes the workload online
  int calls_since_sample = 0;          ///< a converged tuner's calls since its last drift sample
  std::vector<double> samples;         ///< the drift window's local times
  Settled settled;                     ///< the settled choice resolved (AutoContext sets it)
};

/// What algo::Auto knows on one communicator: the selector, the decisions and the online tuners.
class AutoState {
 public:
  using Timing = tune::Timing;  ///< what to time around a call
  using Entry = AutoEntry;      ///< one workload's decision

  /// A state whose selector decides from the sources `cfg` and whose online tuners use `o`.
  explicit AutoState(Selector::Config cfg, OnlineOptions o = {});

  /// The candidate for this call of `w` (tuned online when `online`), what to time, and (when
  /// `entry` is given) the entry that holds the decision.
  const Candidate& choose(const Workload& w, bool online, Timing& timing, Entry** entry = nullptr);
  /// After a Timing::tune call of `w`: its time in seconds, max over ranks, for the online tuner.
  void observe(const Workload& w, double max_seconds);
  /// After a Timing::sample call of `w`: its local time in seconds, added to the drift window.
  /// True when the window holds `window` samples: reduce window_score() to its max over ranks and
  /// pass that to check_drift().
  bool add_sample(const Workload& w, double local_seconds);
  /// The robust_score of `w`'s drift window in seconds (0 while it holds no sample).
  [[nodiscard]] double window_score(const Workload& w) const;
  /// Closes `w`'s drift window with its score's max over ranks, in seconds: the window starts
  /// empty again, and the tuner restarts tuning when the choice has slowed down
  /// (OnlineTuner::check_drift()).
  void check_drift(const Workload& w, double max_score_seconds);

  /// The decision for `w` and where it came from; with online tuning, what was measured.
  [[nodiscard]] std::string explain(const Workload& w, bool online);
  /// The selector's Selector::fingerprint(), which the ranks compare before their first decision.
  [[nodiscard]] std::uint64_t fingerprint() const { return selector_.fingerprint(); }
  /// Calls spent tuning `w` so far (0 when it is not tuned online).
  [[nodiscard]] int tuning_calls(const Workload& w) const;
  /// Whether `w` is tuned online and has converged.
  [[nodiscard]] bool converged(const Workload& w) const;
  /// For a caller that repeats the choice of a choose() that returned Timing::none for `e`
  /// without calling choose() again: null when that decision is static (it holds for every later
  /// call), else the converged tuner's calls since its last drift sample, which such a caller
  /// advances per call while it stays below sample_every - 1 (the call that would reach
  /// sample_every goes through choose(), which samples it).
  [[nodiscard]] static int* repeat_counter(Entry& e) {
    return e.tuner ? &e.calls_since_sample : nullptr;
  }
  /// What online tuning learned, as a tuning table: per converged workload, the measured score of
  /// every candidate it tried (CCLX_TUNE_SAVE writes it; CCLX_TUNE_FILE reads it back).
  [[nodiscard]] TuningTable learned() const;

  /// Drift check: one call in `sample_every` of a converged workload is timed; a window is
  /// `window` samples.
  static constexpr int sample_every = drift_sample_every, window = 16;  ///< samples per window

 private:
  Entry& entry(const Workload& w);
  /// `w`'s entry with its online tuner.
  Entry& tuned(const Workload& w);
  [[nodiscard]] const Entry* find_tuned(const Workload& w) const;

  Selector selector_;
  OnlineOptions options_;
  std::unordered_map<Workload, Entry, WorkloadHash> entries_;
};

}  // namespace cclx::tune
