// Which algorithm serves a call: the one place that decides.
//
// Every collective but alltoallv is decided by the communicator's algo::Auto (docs/tuning.md):
// CCLX_ALGO first, then a tuning table (CCLX_TUNE_FILE), online tuning (CCLX_TUNE=online), the
// model; the Communicator makes the decision and times tuning calls as it does for header users
// (Communicator::with_auto_choice), and its first Auto call compares the selector's inputs across
// the ranks. Every input of the decision is the same on every rank (the environment, the call's
// collective, size, root, communicator size and op), so every rank chooses alike.
//
// alltoallv has no size every rank knows (each rank knows its own counts only): Auto serves it
// native; the library keeps CCLX_ALGO's rule for size 0 (alltoallv:*=ring) for it, or native.
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
  std::string error;                         // a bad CCLX_ALGO: every call is passed through
  std::string report_path;                   // CCLX_SHIM_REPORT
  std::string auto_reason;  // the report's reason for an Auto choice no CCLX_ALGO rule made
  bool log = false;         // CCLX_LOG contains "shim" (or "all")
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

// alltoallv's decision: calls run(policy) with the policy of CCLX_ALGO's rule for `w` on this
// rank (`rank`), or algo::Native when none matches or the rule's algorithm cannot serve the call
// (a request its generator refuses), which `d.fallback` then explains.
template <class Run>
void with_rule_policy(const tune::Workload& w, int rank, Decision& d, Run&& run) {
  const tune::SizeRule* r = rule_for(w);
  if (!r) return run(algo::Native{});
  d.rule = r->text;
  d.algorithm = algorithm_name(&r->choice);
  const auto fall_back = [&](std::string_view why) {
    d.fallback = d.algorithm;
    d.fallback += ": ";
    d.fallback += why;
    d.algorithm = "native";
    run(algo::Native{});
  };
  if (std::string why; !r->choice.native() && !tune::can_serve(r->choice, w, &why))
    return fall_back(why);
  algo::with_policy(r->choice, [&](const auto& policy) {
    using A = std::decay_t<decltype(policy)>;
    if constexpr (algo::ScheduledAlgorithm<A>) {
      sched::ScheduleRequest req = w.request();
      req.only_rank = rank;
      try {
        (void)algo::schedule_for(policy, req);  // cached: the call itself finds it there
      } catch (const Error& e) {
        return fall_back(e.detail());
      }
    }
    run(policy);
  });
}

}  // namespace cclx::shim
