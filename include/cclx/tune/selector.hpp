// algo::Auto's decision for one workload, from the sources in order of authority:
//   1. override   CCLX_ALGO (override.hpp)
//   2. table      CCLX_TUNE_FILE, a cclx-tune table (table.hpp), nearest measured size: its
//                 fastest candidate that clearly beats native (margin.hpp), else native
//   3. model      the predictor (model.hpp): the fastest predicted candidate
// A source whose choice cannot serve the call (wrong collective, reorders a non-commutative op,
// displacements, generator refuses the request) is skipped, and the explanation says so: never a
// silent change of the collective's semantics.
//
// A workload without a size (Workload::sized false: a one-shot alltoallv, whose ranks each know
// only their own counts) is decided for every size at once: the sources above are asked at every
// size where their answer can change (the override's range bounds, the table's region_starts());
// when they name one candidate at all of them, that candidate serves every call. When the table
// alone decides and its choice varies with size, the candidate least slower than the fastest at
// its worst measured size (minimax regret; native unless clearly better, margin.hpp). Otherwise
// (rules that vary with size, or sizes left to the model, which ranks by size) native: agreeing
// on a size would cost an allreduce per call, more than a small alltoallv itself (docs/tuning.md,
// "alltoallv"). Decisions are cached per workload, so a repeated call costs one
// hash lookup. Every input is the same on every rank (env, file, model constants: compared across
// ranks by fingerprint()), and the decision a pure function of them, so all ranks choose alike.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cclx/tune/margin.hpp"
#include "cclx/tune/model.hpp"
#include "cclx/tune/override.hpp"
#include "cclx/tune/table.hpp"

namespace cclx::tune {

/// native_default: a workload without a size whose sources do not name one candidate for every
/// size (see above).
enum class Source : std::uint8_t { override_env, table, model, native_default };
/// For explanations: "override (CCLX_ALGO)", "tuning table", "model", "native default".
[[nodiscard]] std::string_view to_string(Source s);

/// algo::Auto's decision for one workload: the candidate, where it came from and why.
struct Decision {
  Candidate choice;               ///< the candidate to run
  Source source = Source::model;  ///< where it came from
  /// A table choice measured at exactly this size (not the nearest entry's): online tuning defers
  /// to it, and tunes the sizes the table only approximates.
  bool exact = false;
  /// Human-readable: where the choice came from, what was skipped and why, and the candidates with
  /// their measured (table) or predicted (model) times.
  std::string explanation;
  /// The sources skipped and why ("CCLX_ALGO chose ring but ..."; "; "-separated), also in
  /// `explanation`.
  std::string skipped;
};

/// Hash of a Workload.
struct WorkloadHash {
  /// A process-local hash of every field of `w`, for the decision map.
  std::size_t operator()(const Workload& w) const noexcept;
};

/// Decides a workload's candidate from CCLX_ALGO, a tuning table or the model, in that order.
class Selector {
 public:
  /// The selector's sources.
  struct Config {
    Overrides overrides;                   ///< CCLX_ALGO's rules; empty: none
    std::optional<TuningTable> table;      ///< the tuning table; nullopt: none
    std::string table_origin;              ///< file name, for explanations
    Predictor model;                       ///< empty: alpha_beta_model(model_params)
    ModelParams model_params;              ///< the empty model's machine (its network)
    double native_margin = kNativeMargin;  ///< a table's win over native must exceed this
  };
  Selector() : Selector(Config{}) {}
  /// A selector over the sources `c`; an empty model becomes alpha_beta_model(c.model_params).
  explicit Selector(Config c);
  /// CCLX_ALGO, CCLX_TUNE_FILE and the model's network (CCLX_NET_*); throws cclx::Error on a bad
  /// value or file.
  static Config config_from_env();
  /// The predictor of the model source (online tuning starts from it too).
  [[nodiscard]] const Predictor& model() const { return config_.model; }

  /// The decision for `w`: a function of the configuration and `w` alone (AutoState keeps it).
  [[nodiscard]] Decision decide(const Workload& w) const;
  /// A hash of everything a decision depends on besides the workload (override rules, table
  /// entries, the model's machine when it is the default model): ranks must agree on it before
  /// their decisions can be trusted to agree.
  [[nodiscard]] std::uint64_t fingerprint() const { return fingerprint_; }

 private:
  Decision compute(const Workload& w) const;
  Decision compute_any_size(const Workload& w) const;
  /// For a workload without a size whose table choice varies with size: the candidate with the
  /// smallest worst ratio to the fastest over the table's sizes (native unless clearly better),
  /// and that ratio in words; false when no candidate was measured at every size.
  bool least_regret(const Workload& w, Candidate& choice, std::string& why) const;
  Config config_;
  bool default_model_ = false;  ///< the model is alpha_beta_model(config_.model_params)
  std::uint64_t fingerprint_ = 0;
};

}  // namespace cclx::tune
