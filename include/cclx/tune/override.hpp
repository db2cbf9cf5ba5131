// CCLX_ALGO: explicit algorithm choices that override every other source of algo::Auto (UCC's
// UCC_TL_UCP_TUNE, NCCL_ALGO, MPICH's MPIR_CVAR_*_ALGORITHM in one string):
//
//   allreduce:0-8K=native,8K-inf=ring(segment_bytes=256K);bcast:*=pipelined_tree(fanout=2)
//
// Sections separated by ';' name a collective (or '*' for every collective); each holds
// comma-separated rules `lo-hi=candidate` over the collective's data size in bytes (the schedule
// request's bytes: the whole partition), lo inclusive, hi exclusive, sizes with K/M/G suffixes and
// `inf`; `*` is every size. The first matching rule of the collective's own section wins, then
// those of '*'; no match leaves the choice to the next source (tuning table, online tuner, model).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/schedule/schedule.hpp"
#include "cclx/tune/candidate.hpp"

namespace cclx::tune {

/// One CCLX_ALGO rule: a collective and a size range, and the algorithm to use there.
struct SizeRule {
  std::optional<sched::Collective> collective;  ///< nullopt: '*'
  /// The least size in bytes the rule matches: it matches [lo, hi) (`*`: [0, SIZE_MAX)).
  std::size_t lo = 0, hi = 0;  ///< the end of the range in bytes, excluded (`inf`: SIZE_MAX)
  Candidate choice;            ///< what a matching call runs
  std::string text;            ///< the rule as written, for explain()
};

/// The rules of CCLX_ALGO.
class Overrides {
 public:
  Overrides() = default;
  /// Throws cclx::Error naming the bad token (and why).
  static Overrides parse(std::string_view text);
  /// From CCLX_ALGO (empty when unset), parsed once by cclx/settings.hpp; throws its error.
  static Overrides from_env();

  /// The first rule for collective `c` whose range holds `bytes`, else the first such rule of a
  /// `*` section; null when none matches.
  [[nodiscard]] const SizeRule* find(sched::Collective c, std::size_t bytes) const;
  /// Whether there is no rule (CCLX_ALGO unset or empty).
  [[nodiscard]] bool empty() const { return rules_.empty(); }
  /// Every rule, in the order written.
  [[nodiscard]] const std::vector<SizeRule>& rules() const { return rules_; }

 private:
  std::vector<SizeRule> rules_;
};

/// Splits `text` at `sep` outside parentheses ("a(x=1,y=2),b" -> "a(x=1,y=2)", "b").
[[nodiscard]] std::vector<std::string_view> split_top_level(std::string_view text, char sep);

}  // namespace cclx::tune
