// The registry by name (algo/registry.hpp): every entry built from its policy's declarations.
#include "cclx/algo/registry.hpp"

#include <algorithm>
#include <sstream>
#include <tuple>

#include "cclx/algo/param.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"

namespace cclx::algo {

using sched::Collective;
using sched::GeneratorInfo;
using sched::ParamMap;
using sched::Schedule;
using sched::ScheduleRequest;

namespace {

// The registry's generate-by-name: the policy from its parameters (defaults: its initializers),
// then its own generator. Channels are applied around it by generate_by_name().
template <class A>
Schedule generate_named(const ScheduleRequest& r, const ParamMap& p) {
  return from_params<A>(p).generate(r);
}

// The policy's canonical_at, or null when it combines canonically at every rank count.
template <class A>
bool (*canonical_at())(int) {
  if constexpr (requires { A::canonical_at(1); })
    return [](int n) { return A::canonical_at(n); };
  else
    return nullptr;
}
template <class A>
std::string canonical_ranks() {
  if constexpr (requires { A::canonical_ranks; })
    return std::string(A::canonical_ranks);
  else
    return {};
}

// A registry entry from the policy's own declarations.
template <class A>
GeneratorInfo info() {
  return {std::string(A::name),
          {A::collectives.begin(), A::collectives.end()},
          {A::keeps_rank_order.begin(), A::keeps_rank_order.end()},
          {sched::canonical_order_collectives<A>().begin(),
           sched::canonical_order_collectives<A>().end()},
          canonical_at<A>(),
          canonical_ranks<A>(),
          param_infos<A>(),
          &generate_named<A>,
          uses_hosts<A>};
}

}  // namespace

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> all = std::apply(
      [](auto... policies) { return std::vector<GeneratorInfo>{info<decltype(policies)>()...}; },
      registry{});
  return all;
}

const GeneratorInfo& generator(std::string_view name) {
  for (const auto& g : generators())
    if (g.name == name) return g;
  std::ostringstream msg;
  msg << "unknown algorithm '" << name << "' (known:";
  for (const auto& g : generators()) msg << ' ' << g.name;
  msg << ')';
  throw Error(msg.str());
}

Schedule generate_by_name(std::string_view name, const ScheduleRequest& req,
                          const ParamMap& params) {
  const auto& g = generator(name);
  for (const auto& [key, value] : params) {
    (void)value;
    if (!g.takes(key)) throw Error("algorithm '" + g.name + "' has no parameter '" + key + "'");
  }
  const auto ch = params.find("channels");
  if (ch == params.end()) return g.generate(req, params);
  return sched::split_channels(g.name, req, ch->second,
                               [&](const ScheduleRequest& r) { return g.generate(r, params); });
}

bool keeps_rank_order(std::string_view algorithm, Collective c) {
  for (const auto& g : generators())
    if (g.name == algorithm)
      return std::find(g.keeps_rank_order.begin(), g.keeps_rank_order.end(), c) !=
             g.keeps_rank_order.end();
  return false;
}

std::string order_preserving_algorithms(Collective c) {
  std::string list = "native";
  for (const auto& g : generators())
    if (keeps_rank_order(g.name, c)) list += ", " + g.name;
  return list;
}

}  // namespace cclx::algo
