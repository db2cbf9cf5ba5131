// Which algorithm serves a call: the one place that decides. Today the choice is CCLX_ALGO's rule
// for the collective and size (tune::Overrides), or native when no rule matches; when algo::Auto
// is wired into the Communicator, choose() becomes algo::Auto's decision (tables, model, online
// tuning) and nothing else here changes.
//
// Every input is the same on every rank (the environment, the call's collective, size, root,
// communicator size and op), so every rank chooses alike, as a collective requires.
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

// The process's settings, read once (CCLX_ALGO, CCLX_SHIM_REPORT, CCLX_LOG).
struct Config {
  tune::Overrides overrides;
  std::vector<std::string> rule_algorithms;  // tune::to_string() of each rule's candidate
  std::string error;                         // a bad CCLX_ALGO: every call is passed through
  std::string report_path;                   // CCLX_SHIM_REPORT
  bool log = false;                          // CCLX_LOG contains "shim" (or "all")
};
const Config& config();

// How a call was decided, for the report: views into config() or static text, except `fallback`.
struct Decision {
  std::string_view algorithm = "native";  // the candidate as CCLX_ALGO writes it
  std::string_view rule;                  // the CCLX_ALGO rule; empty: none matched
  std::string fallback;                   // why the rule's algorithm could not serve (then native)
};

// The candidate for `w`; null means native.
[[nodiscard]] const tune::Candidate* choose(const tune::Workload& w, Decision& d);

// Calls run(policy) with the policy for `w` on this rank (`rank`): choose()'s, or algo::Native
// when that cannot serve the call (the collective, a non-commutative op on an algorithm that
// reorders, a request its generator refuses), which `d.fallback` then explains.
template <class Run>
void with_chosen_policy(const tune::Workload& w, int rank, Decision& d, Run&& run) {
  const tune::Candidate* c = choose(w, d);
  const auto fall_back = [&](std::string_view why) {
    d.fallback = d.algorithm;
    d.fallback += ": ";
    d.fallback += why;
    d.algorithm = "native";
    run(algo::Native{});
  };
  if (!c) return run(algo::Native{});
  if (std::string why; !tune::can_serve(*c, w, &why)) return fall_back(why);
  algo::with_policy(*c, [&](const auto& policy) {
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
