// Schedule requests and the registry of generators (pure functions from a request to a Schedule; no
// MPI, no element types). Algorithm policies (include/cclx/algo/) call their generator through
// the cache; tools, the verifier tests and the simulator call them directly or by name through
// generate_by_name().
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// How sched::pipeline() staggers copies of one segment's schedule (schedule/channels.hpp).
struct PipelineShape {
  /// The segment's phases: phase p is its steps [phase_bounds[p], phase_bounds[p + 1]).
  std::vector<std::size_t> phase_bounds;
  std::uint32_t segments = 1;  ///< the copies; 1: not pipelined
};

/// What a generator is asked for: the collective, the ranks, the root, in place or not, the message
/// size, and whose programs to build. The policy's parameters come separately (ParamMap).
struct ScheduleRequest {
  Collective collective = Collective::allreduce;  ///< the collective to schedule
  int nranks = 1;                                 ///< the number of ranks (>= 1)
  /// Root rank of a rooted collective (reduce, bcast, ...); the others ignore it.
  int root = 0;
  bool in_place = false;  ///< whether the call is in place (layouts: `collectives/<name>.hpp`)
  /// Message size in bytes: generators that pick their block count from it (pipelined trees) read
  /// it; others ignore it.
  std::size_t bytes = 0;
  /// >= 0: generate only this rank's program (the others stay empty), which is all an executor on
  /// one rank needs, or with only_rank_end the programs of ranks [only_rank, only_rank_end) (a
  /// host's, for algo::Auto's model); -1: every rank (verifier, simulator, tools).
  int only_rank = -1;
  /// The end of the range of ranks that only_rank begins; -1 (or not above only_rank): only_rank
  /// alone.
  int only_rank_end = -1;
  /// A host id per rank (schedule/hosts.hpp), read by the hierarchical generators alone
  /// (algo/hierarchical.hpp), which name it in their cache_params(); empty: every rank its own
  /// host. Not owned: the caller keeps it alive while the request is used (a Communicator keeps
  /// its map for its lifetime).
  std::span<const int> hosts{};
  /// Non-null: a pipelined generator (pipeline > 1) returns one segment's schedule instead of
  /// sched::pipeline()'s staggered copies of it, and writes here how it would stagger them, for a
  /// consumer that prices the pipeline without building it (algo::Auto's model). The others leave
  /// it as it is. Never set for a schedule that runs: the segment alone is not the collective.
  PipelineShape* segment_only = nullptr;

  /// Whether rank r's program is to be built (only_rank, only_rank_end).
  [[nodiscard]] bool wants(int r) const {
    return only_rank < 0 || (r >= only_rank && r < std::max(only_rank_end, only_rank + 1));
  }
};

// The generators are declared next to their policies (include/cclx/algo/<name>.hpp, all of them in
// algo/policies.hpp) and defined in lib/algo/. Each throws cclx::Error when it cannot serve the
// request (unsupported collective, invalid parameters, a rank count it rejects).

/// Parameters given by name (tools, tests): e.g. {"segment_bytes": 65536, "fanout": 2}.
using ParamMap = std::map<std::string, long long, std::less<>>;

// What an algorithm serves and where it keeps rank order, as its policy declares it
// (algo::Ring::collectives, ...): the generators (require_supported, Schedule::preserves_order),
// the error texts and the README's algorithm table (checked by a unit test) read it here.
/// A run-time parameter of an algorithm, as its policy declares it (algo/param.hpp).
struct ParamInfo {
  std::string name;  ///< its ParamMap key, the policy's field name, e.g. "segment_bytes"
  /// The smallest accepted value.
  long long min = 0, max = 0;   ///< the largest accepted value (algo::kUnbounded: no limit)
  long long default_value = 0;  ///< the value when none is given: the policy's initializer
  std::string doc;              ///< one line of documentation, as the policy declares it
};

/// A generator by name, with what it serves.
struct GeneratorInfo {
  std::string name;                     ///< "ring", "rhd", ...
  std::vector<Collective> collectives;  ///< what it serves
  /// Of those, the collectives it combines in rank order (so non-commutative ops are honored).
  std::vector<Collective> keeps_rank_order;
  /// Of those, the collectives whose every element it combines in the canonical order
  /// (canonical_order.hpp): the same bits as any other algorithm that does.
  std::vector<Collective> canonical_order;
  /// Narrows canonical_order to the rank counts it accepts (the policy's canonical_at); null: every
  /// count.
  bool (*canonical_at)(int nranks) = nullptr;
  /// Those rank counts in words, for people ("powers of two"); empty: every count.
  std::string canonical_ranks;
  /// Accepted ParamMap keys: the policy's run-time fields (algo::from_params sets them), whether
  /// they shape the schedule (fanout) or only the engine's execution (Ring's segment_bytes).
  std::vector<ParamInfo> params;
  /// Builds the schedule: the policy from the parameters (the others at their defaults), then its
  /// generator. Throws cclx::Error on a parameter it does not take, a value out of range or a
  /// request it cannot serve.
  Schedule (*generate)(const ScheduleRequest&, const ParamMap&);
  /// Whether its schedule depends on the request's host map (ScheduleRequest::hosts): the
  /// hierarchical policies (algo/hierarchical.hpp). algo::Auto's model ranks them only where the
  /// workload's host map spans hosts (tune::Workload::multi_host()).
  bool uses_hosts = false;
  /// Whether it combines every element of `c` in the canonical order on `nranks` ranks.
  [[nodiscard]] bool reduces_canonically(Collective c, int nranks) const {
    return std::find(canonical_order.begin(), canonical_order.end(), c) != canonical_order.end() &&
           (!canonical_at || canonical_at(nranks));
  }
  /// Whether `param` is one of the accepted ParamMap keys (`params`).
  [[nodiscard]] bool takes(std::string_view param) const {
    for (const ParamInfo& p : params)
      if (p.name == param) return true;
    return false;
  }
};

/// Shared checks for generators: the request is well formed and `supported` (the policy's
/// `collectives`) holds its collective.
void require_supported(const ScheduleRequest& req, std::string_view algorithm,
                       std::span<const Collective> supported);
/// The collectives on which Policy combines in the canonical order (canonical_order.hpp): its
/// `canonical_order` declaration, none when it declares nothing.
template <class Policy>
[[nodiscard]] constexpr std::span<const Collective> canonical_order_collectives() {
  if constexpr (requires { Policy::canonical_order; })
    return Policy::canonical_order;
  else
    return {};
}
/// Whether Policy combines every element of `c` in the canonical order on `nranks` ranks: its
/// `canonical_order` declaration, narrowed by its `canonical_at(nranks)` where it declares one.
template <class Policy>
[[nodiscard]] constexpr bool reduces_canonically(Collective c, int nranks) {
  const auto list = canonical_order_collectives<Policy>();
  if (std::find(list.begin(), list.end(), c) == list.end()) return false;
  if constexpr (requires { Policy::canonical_at(nranks); })
    return Policy::canonical_at(nranks);
  else
    return true;
}
/// Whether Policy keeps rank order on `c` (its keeps_rank_order declaration).
template <class Policy>
[[nodiscard]] constexpr bool keeps_rank_order(Collective c) {
  return std::find(Policy::keeps_rank_order.begin(), Policy::keeps_rank_order.end(), c) !=
         Policy::keeps_rank_order.end();
}

/// A generator's first lines: `req` checked against Policy's collectives, and a Schedule named
/// after Policy with the request's collective, ranks, root and in-place flag, `nblocks` blocks,
/// one empty program per rank, and its order flags from Policy's declarations (one rank keeps
/// rank order trivially). The generator sets what differs (a root of its own, params, ...).
template <class Policy>
[[nodiscard]] Schedule begin_schedule(const ScheduleRequest& req, std::uint32_t nblocks) {
  require_supported(req, Policy::name, Policy::collectives);
  Schedule s;
  s.algorithm = std::string(Policy::name);
  s.collective = req.collective;
  s.nranks = req.nranks;
  s.root = req.root;
  s.in_place = req.in_place;
  s.nblocks = nblocks;
  s.preserves_order = keeps_rank_order<Policy>(req.collective) || req.nranks == 1;
  s.canonical_order = reduces_canonically<Policy>(req.collective, req.nranks);
  s.programs.resize(static_cast<std::size_t>(req.nranks));
  return s;
}

}  // namespace cclx::sched
