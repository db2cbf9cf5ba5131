// --algo NAME -> a cclx policy. Every registry algorithm comes through tune::parse_candidate and
// algo::with_policy ("native", "ring", "rhd", "pipelined_tree(segment_bytes=64K,fanout=2)",
// "stragglar(straggler=1)", ...); the policies that are not in the registry are named here, one
// line each.
#pragma once

#include <cclx/algo/by_name.hpp>
#include <cclx/cclx.hpp>
#include <cclx/relay/adaptive.hpp>
#include <cclx/tune/candidate.hpp>
#include <string>
#include <string_view>

namespace trainer {

// Calls f(policy) with the allreduce policy `name` names; throws cclx::Error for an unknown name,
// bad parameters, or an algorithm that does not serve allreduce.
template <class F>
decltype(auto) with_algorithm(std::string_view name, F&& f) {
  const auto call = [&](const auto& policy) -> decltype(auto) {
    using A = std::decay_t<decltype(policy)>;
    if constexpr (cclx::algo::serves<A>(cclx::sched::Collective::allreduce)) {
      return f(policy);
    } else {
      throw cclx::Error("algorithm '" + std::string(name) + "' does not serve allreduce");
      return f(cclx::algo::Native{});  // unreachable; fixes the return type
    }
  };
  if (name == "straggler_aware") return call(cclx::algo::StragglerAware<>{});
  if (name == "auto") return call(cclx::algo::Auto{});
  if (name == "adaptive") return call(cclx::algo::Adaptive{});  // needs MPI_THREAD_MULTIPLE
  return cclx::algo::with_policy(cclx::tune::parse_candidate(name), call);
}

}  // namespace trainer
