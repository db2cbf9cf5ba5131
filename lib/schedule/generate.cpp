#include "cclx/schedule/generate.hpp"

#include <algorithm>
#include <sstream>

#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"

namespace cclx::sched {

namespace {
Schedule ring_by_name(const ScheduleRequest& r, const ParamMap&) {
  return ring(r);
}
Schedule stragglar_by_name(const ScheduleRequest& r, const ParamMap& p) {
  const auto it = p.find("straggler");
  return stragglar(r, it == p.end() ? r.nranks - 1 : static_cast<int>(it->second));
}
Schedule rhd_by_name(const ScheduleRequest& r, const ParamMap&) {
  return recursive_halving_doubling(r);
}
Schedule rhd_elimination_by_name(const ScheduleRequest& r, const ParamMap&) {
  return rhd_elimination(r);
}
Schedule recursive_doubling_by_name(const ScheduleRequest& r, const ParamMap&) {
  return recursive_doubling(r);
}
Schedule binomial_tree_by_name(const ScheduleRequest& r, const ParamMap&) {
  return binomial_tree(r);
}
Schedule dissemination_by_name(const ScheduleRequest& r, const ParamMap&) {
  return dissemination(r);
}
// Defaults as algo::PipelinedTree{}: 1 MiB segments, binary tree.
Schedule pipelined_tree_by_name(const ScheduleRequest& r, const ParamMap& p) {
  const auto seg = p.find("segment_bytes");
  const auto fan = p.find("fanout");
  const long long segment_bytes = seg == p.end() ? (1 << 20) : seg->second;
  if (segment_bytes <= 0)
    throw Error("pipelined_tree: segment_bytes must be > 0, got " + std::to_string(segment_bytes));
  const long long fanout = fan != p.end() ? fan->second : 2;
  if (fanout < 1 || fanout > 1 << 20)
    throw Error("pipelined_tree: fanout must be in [1, 2^20], got " + std::to_string(fanout));
  return pipelined_tree(r, static_cast<std::size_t>(segment_bytes), static_cast<int>(fanout));
}
// A registry entry from the policy's own declaration of what it serves. A policy with a `channels`
// field takes that parameter (channels.hpp), which generate_by_name() applies around the generator.
template <class A>
GeneratorInfo info(std::vector<std::string> params,
                   Schedule (*generate)(const ScheduleRequest&, const ParamMap&)) {
  if constexpr (requires(A a) { a.channels; }) params.emplace_back("channels");
  return {std::string(A::name),
          {A::collectives.begin(), A::collectives.end()},
          {A::keeps_rank_order.begin(), A::keeps_rank_order.end()},
          std::move(params),
          generate};
}
}  // namespace

const std::vector<GeneratorInfo>& generators() {
  static const std::vector<GeneratorInfo> all = {
      info<algo::Ring>({"segment_bytes"}, &ring_by_name),
      info<algo::StragglAR>({"straggler"}, &stragglar_by_name),
      info<algo::RecursiveHalvingDoubling>({"segment_bytes"}, &rhd_by_name),
      info<algo::RhdElimination>({"segment_bytes"}, &rhd_elimination_by_name),
      info<algo::RecursiveDoubling>({"segment_bytes"}, &recursive_doubling_by_name),
      info<algo::BinomialTree>({}, &binomial_tree_by_name),
      info<algo::PipelinedTree>({"segment_bytes", "fanout"}, &pipelined_tree_by_name),
      info<algo::Dissemination>({}, &dissemination_by_name),
  };
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
    if (std::find(g.param_names.begin(), g.param_names.end(), key) == g.param_names.end())
      throw Error("algorithm '" + g.name + "' has no parameter '" + key + "'");
  }
  const auto ch = params.find("channels");
  if (ch == params.end()) return g.generate(req, params);
  return split_channels(g.name, req, ch->second,
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

void require_supported(const ScheduleRequest& req, std::string_view algorithm) {
  const auto& supported = generator(algorithm).collectives;
  if (req.nranks < 1) throw Error(std::string(algorithm) + ": communicator size must be >= 1");
  if (req.only_rank >= req.nranks)
    throw Error(std::string(algorithm) + ": rank " + std::to_string(req.only_rank) +
                " out of range for " + std::to_string(req.nranks) + " ranks");
  if (std::find(supported.begin(), supported.end(), req.collective) == supported.end())
    throw Error(std::string(algorithm) + " does not implement " +
                std::string(to_string(req.collective)));
  const bool rooted = cclx::coll::visit(req.collective, [](auto d) { return d.rooted; });
  if (rooted && (req.root < 0 || req.root >= req.nranks))
    throw Error(std::string(algorithm) + ": invalid root " + std::to_string(req.root) + " for " +
                std::to_string(req.nranks) + " ranks");
}

}  // namespace cclx::sched
