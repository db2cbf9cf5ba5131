// Which algorithm serves a call: the one place that decides.
//
// Every collective is decided by the communicator's algo::Auto (docs/tuning.md): CCLX_ALGO
// first, then a tuning table (CCLX_TUNE_FILE), online tuning (CCLX_TUNE=online), the model; the
// Communicator makes the decision and times tuning calls as it does for header users
// (Communicator::with_auto_choice), and its first Auto call compares the selector's inputs across
// the ranks. Every input of the decision is the same on every rank (the environment, the call's
// collective, size, root, communicator size and op), so every rank chooses alike. alltoallv has
// no size every rank knows: Auto takes the one candidate its sources name for every size, or
// native (docs/tuning-alltoallv.md).
#pragma once

#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cclx/algo/by_name.hpp"
#include "cclx/algo/policies.hpp"
#include "cclx/tune/model.hpp"
#include "cclx/tune/override.hpp"

namespace cclx::shim {

// The process's settings, read once (CCLX_ALGO, CCLX_SHIM_REPORT, CCLX_LOG, what Auto consults).
struct Config {
  tune::Overrides overrides;
  std::vector<std::string> rule_algorithms;  // tune::to_string() of each rule's candidate
  std::string error;        // a bad CCLX_ALGO (or CCLX_LOG): every call is passed through
  std::string report_path;  // CCLX_SHIM_REPORT
  std::string auto_reason;  // the report's reason for an Auto choice no CCLX_ALGO rule made
  bool log = false;         // CCLX_LOG contains "shim" (or "all"); a bad CCLX_LOG sets `error`
  bool validate = false;    // CCLX_VALIDATE: the ranks also compare their serve-or-pass decisions
};
const Config& config();

// How a call was decided, for the report.
struct Decision {
  std::string_view algorithm = "native";  // the candidate as CCLX_ALGO writes it
  std::string_view rule;  // the CCLX_ALGO rule or Auto's source (config() or `owned`); empty: none
  std::string owned;      // a reason made for this call
  std::string fallback;   // why the rule's algorithm could not serve (then native)
};

// `c` as CCLX_ALGO writes it ("native" for null); valid until this thread's next call.
[[nodiscard]] std::string_view algorithm_name(const tune::Candidate* c);

// The CCLX_ALGO rule for `w`, or null (view into config()).
[[nodiscard]] const tune::SizeRule* rule_for(const tune::Workload& w);

// Sets d.rule to the report's reason for a call algo::Auto decided as d.algorithm (size `w`): the
// CCLX_ALGO rule when one matches and names that algorithm, else config().auto_reason (saying so
// when a rule matched but Auto skipped it).
void set_auto_reason(const tune::Workload& w, Decision& d);

}  // namespace cclx::shim
