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

struct SizeRule {
  std::optional<sched::Collective> collective;  // nullopt: '*'
  std::size_t lo = 0, hi = 0;                   // [lo, hi) in bytes
  Candidate choice;
  std::string text;  // the rule as written, for explain()
};

class Overrides {
 public:
  Overrides() = default;
  // Throws cclx::Error naming the bad token (and why).
  static Overrides parse(std::string_view text);
  // From CCLX_ALGO (empty when unset), parsed once by cclx/settings.hpp; throws its error.
  static Overrides from_env();

  [[nodiscard]] const SizeRule* find(sched::Collective c, std::size_t bytes) const;
  [[nodiscard]] bool empty() const { return rules_.empty(); }
  [[nodiscard]] const std::vector<SizeRule>& rules() const { return rules_; }

 private:
  std::vector<SizeRule> rules_;
};

// Splits `text` at `sep` outside parentheses ("a(x=1,y=2),b" -> "a(x=1,y=2)", "b").
[[nodiscard]] std::vector<std::string_view> split_top_level(std::string_view text, char sep);

}  // namespace cclx::tune
