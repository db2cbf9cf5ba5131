// Wait or proceed with a prediction (docs/algorithms/adaptive.md, "Persistently late ranks"). The
// ski-rental rule knows nothing of the past, so with a rank late by the same delay in every call
// it rents until the break-even every time, and never proceeds when the delay is below the cost of
// proceeding, even where proceeding at once would finish first. Rank 0 of an adaptive request
// therefore remembers how late each rank was in its last calls: a rank late by at least a
// threshold in each of the last `calls` calls is predicted late again, by the least of those
// delays. When exactly the predicted-late ranks are missing, rank 0 proceeds at once if the
// model's finish of proceeding beats that of waiting by a margin; otherwise the ski-rental rule
// decides as before. A wrong prediction costs one call (at most the cost of proceeding instead of
// the all-active schedule) and ends the streak that made it.
#pragma once

#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "cclx/relay/model.hpp"

namespace cclx::detail {

/// Proceeding on a prediction must beat waiting by this fraction of its own modelled cost: the
/// α-β simulator is within about 10% of the testbed (docs/algorithms/adaptive.md), and a wrong
/// prediction costs a whole call.
inline constexpr double kPredictionMargin = 0.1;
/// A rank counts as late in a call when it was ready this fraction of the all-active schedule's
/// predicted time after the first rank, or later; shorter delays cannot make proceeding pay much.
inline constexpr double kLateFraction = 0.1;

class LatePredictor {
 public:
  /// `calls`: consecutive late calls before a rank is predicted late (0: never predict);
  /// `threshold_s`: the least delay (after the call's first ready rank) that counts as late.
  LatePredictor(int nranks, int calls, double threshold_s);

  /// A completed call: delays[r] = rank r's ready time minus the call's first ready time.
  void record(const std::vector<double>& delays);

  /// The predicted delay of rank r (seconds after the call's first ready rank); 0: not predicted
  /// late.
  [[nodiscard]] double delay(int r) const;
  /// The ranks predicted late (late[r]), and whether there are any.
  [[nodiscard]] const std::vector<bool>& late() const { return late_; }
  [[nodiscard]] bool any() const { return any_; }

 private:
  int calls_;
  double threshold_;
  std::vector<std::deque<double>> streak_;  ///< by rank: delays of its current run of late calls
  std::vector<bool> late_;
  bool any_ = false;
};

/// The model's finish of proceeding now against waiting for the late ranks, both measured from
/// now: proceeding runs phase 1 at once and phase 2 once phase 1 is done and the late ranks have
/// arrived (`arrival_in` seconds from now, predicted; overdue counts as now); waiting runs the
/// all-active schedule (`full`) after the arrival. True when proceeding is predicted to finish
/// sooner by more than the fraction `margin` of its own modelled cost, phase1 + phase2 (the
/// model's error scales with what it models, not with the predicted delay).
[[nodiscard]] bool proceed_pays(double arrival_in, double phase1, double phase2, double full,
                                double margin);

/// Ski rental in hindsight. The break-even rule assumes that waiting can cost without bound, but
/// here a call that waits for everyone finishes at most T(all) − P2 later than one that proceeded
/// early, while proceeding just before the late rank arrives costs up to P1 + P2 − T(all) more:
/// under exponential compute jitter (memoryless arrivals) the rule loses on average (measured on
/// the testbed: +4% over ring at a mean of 150 ms). Rank 0 therefore replays, after every call,
/// what the rule would have done with that call's arrivals (by the model), and keeps the rule only
/// while its last kSkiWindow replayed proceeds did not lose in sum against waiting.
inline constexpr int kSkiWindow = 4;
/// A replayed proceed counts only what it gained beyond the model's resolution: each is charged
/// this fraction of its plan's modelled cost, P1 + P2 (the tie tolerance of the plans' choice: the
/// α-β simulator does not resolve smaller differences). Without it, gains of a few milliseconds
/// per call switched the last-rank rule on under light jitter (exponential, mean 40 ms on the
/// testbed), where the replays expected +1% and the calls measured 2-3% above ring.
inline constexpr double kReplayMargin = RelayModel::kPlanTieTolerance;

/// One interval of a call's arrivals: from `at` (seconds after the first ready rank) until the
/// next arrival, the ready set's plan costs (phase1 = infinity: that set cannot proceed, e.g. the
/// waiting stays below its cost floor).
struct ArrivalStep {
  double at = 0, phase1 = 0, phase2 = 0;
};
/// What the ski-rental rule gained against waiting in one call (seconds by the model, less
/// kReplayMargin · (P1_k + P2_k); negative: lost): it proceeds at the first τ = max(at_k, P1_k +
/// P2_k) before the next arrival (steps[k+1].at or `last`, the last rank's arrival) and finishes at
/// max(τ + P1_k, last) + P2_k; waiting finishes at last + full. std::nullopt when the rule would
/// not have proceeded (the same as waiting).
[[nodiscard]] std::optional<double> ski_gain(const std::vector<ArrivalStep>& steps, double last,
                                             double full);

/// Whether the ski-rental rule may proceed: the sum of its last kSkiWindow replayed gains is not
/// negative (true before any).
class SkiGuard {
 public:
  void record(double gain);
  [[nodiscard]] bool enabled() const;

 private:
  std::deque<double> gains_;
};

/// Proceeding as soon as one rank is missing, judged the same way. Under memoryless jitter the
/// last rank's gap is the longest wait of a call, and with a cheap plan (the owner plan on the
/// testbed: proceeding costs about 1.15 T(all)) proceeding there gains on average, while ski
/// rental first waits P1 + P2 and then usually has little left to gain. Rank 0 replays both rules
/// on every call and proceeds at the last rank's absence instead of by ski rental while that rule
/// gained more in sum over the last kRuleWindow calls (and gained at all, with at least half a
/// window of calls seen); a call where a rule would not have proceeded counts 0 for it.
inline constexpr int kRuleWindow = 8;
/// What proceeding when only the last rank was missing gained in one call: at the last step's
/// arrival (`steps.back().at`, the set of all ranks but the last, priced there), finishing at
/// max(at + P1, last) + P2 against last + full, less kReplayMargin · (P1 + P2). std::nullopt when
/// that set cannot proceed or the last rank arrived with the one before it.
[[nodiscard]] std::optional<double> last_rank_gain(const std::vector<ArrivalStep>& steps,
                                                   double last, double full);

/// Which rule may proceed without some ranks, from the replays of the last calls.
class WaitRules {
 public:
  void record(std::optional<double> ski, std::optional<double> last_rank);
  /// Proceed once exactly one rank is missing (then ski rental does not apply).
  [[nodiscard]] bool last_rank() const;
  /// Ski rental may proceed (SkiGuard), unless the last-rank rule is on.
  [[nodiscard]] bool ski() const { return !last_rank() && ski_guard_.enabled(); }

 private:
  SkiGuard ski_guard_;
  std::deque<std::pair<double, double>> calls_;  ///< per call: ski's and the last-rank rule's gain
};

}  // namespace cclx::detail
