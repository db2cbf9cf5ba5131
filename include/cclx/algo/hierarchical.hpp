// Node-aware (hierarchical) collectives on a rank -> host map (ScheduleRequest::hosts, a
// Communicator's host map: docs/hierarchical.md):
//   MultiLane<Inter>    Traeff's multi-lane allreduce: reduce-scatter inside each host, then every
//                       rank of a host, as a lane, allreduces its part of the data with its peers
//                       on the other hosts by Inter, then allgather inside each host; allgather:
//                       the lanes' allgathers between hosts, then allgather inside each host;
//                       reduce_scatter the other way round (and their v-collectives); bcast:
//                       scatter on the root's host, the lanes' bcasts, allgather in each host;
//                       reduce the other way round;
//   LeaderBased<Inter>  for small messages: reduce to each host's leader, the leaders' allreduce by
//                       Inter, bcast from the leader inside each host; bcast, reduce, allgather
//                       and reduce_scatter likewise through the leaders.
// The inter-host part is Inter's own generator, run on the lanes' (the leaders') ranks through a
// schedule composition (schedule/compose.hpp); the intra-host parts are the ring's reduce-scatter
// and allgather and the binomial tree's reduce and bcast.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "cclx/algo/algorithm.hpp"
#include "cclx/schedule/hosts.hpp"

namespace cclx::sched {

/// The inter-host algorithm of a hierarchical schedule: its name (for messages), the collectives
/// it serves and its generator (called on the hosts' representatives, h ranks).
struct InterHost {
  std::string_view name;                    ///< its registry name, e.g. "ring"
  std::span<const Collective> collectives;  ///< what it serves (its policy's declaration)
  std::function<Schedule(const ScheduleRequest&)> generate;  ///< its schedule for h ranks
};

/// The multi-lane allreduce, bcast, reduce, allgather or reduce_scatter (or v-collective) named
/// `algorithm` on req.hosts with `inter` between the hosts; an allreduce, bcast or reduce with
/// `pipelined` > 1 runs as that many segments pipelined through its phases (sched::pipeline()).
/// Throws cclx::Error when `inter` does not serve the collective or refuses the number of hosts,
/// or `pipelined` is outside [1, max_channels] or above 1 for another collective.
Schedule multi_lane(const ScheduleRequest& req, std::string_view algorithm, const InterHost& inter,
                    std::size_t pipelined = 1);
/// The leader-based allreduce, bcast, reduce, allgather or reduce_scatter (or v-collective) named
/// `algorithm` on req.hosts with `inter` among the leaders, pipelined as multi_lane(). Throws
/// cclx::Error as multi_lane() does.
Schedule leader_based(const ScheduleRequest& req, std::string_view algorithm,
                      const InterHost& inter, std::size_t pipelined = 1);

}  // namespace cclx::sched

namespace cclx::detail {
// `A` followed by `B` as one constexpr string_view: a composed policy's registry name.
template <const std::string_view& A, const std::string_view& B>
struct JoinedName {
  static constexpr auto chars = [] {
    std::array<char, A.size() + B.size()> c{};
    std::copy(A.begin(), A.end(), c.begin());
    std::copy(B.begin(), B.end(), c.begin() + static_cast<std::ptrdiff_t>(A.size()));
    return c;
  }();
  static constexpr std::string_view value{chars.data(), chars.size()};
};

// Inter at its defaults as a hierarchical schedule's inter-host algorithm.
template <class Inter>
sched::InterHost inter_host() {
  return {Inter::name, Inter::collectives,
          [](const sched::ScheduleRequest& r) { return algo::generate(Inter{}, r); }};
}
// A composition's collectives: allreduce, then those of `optional` that Inter serves, in that
// order.
template <class Inter, const auto& optional>
constexpr auto served_by() {
  constexpr std::size_t size = 1 + static_cast<std::size_t>(std::count_if(
                                       optional.begin(), optional.end(),
                                       [](sched::Collective c) { return algo::serves<Inter>(c); }));
  std::array<sched::Collective, size> served{sched::Collective::allreduce};
  std::size_t i = 1;
  for (sched::Collective c : optional)
    if (algo::serves<Inter>(c)) served[i++] = c;
  return served;
}
// "hosts=0,0,1,1": the host map as it shapes the schedule (empty for an empty map).
inline std::string hosts_param(const sched::ScheduleRequest& r) {
  return r.hosts.empty() ? std::string() : "hosts=" + sched::host_labels(r.hosts);
}
}  // namespace cclx::detail

namespace cclx::algo {

/// The multi-lane composition of a hierarchical policy (MultiLane, below).
struct MultiLaneComposition {
  /// Its registry names' prefix.
  static constexpr std::string_view prefix = "multilane_";
  /// The collectives besides allreduce it serves where Inter serves them.
  static constexpr std::array optional{
      sched::Collective::allgather,  sched::Collective::reduce_scatter,
      sched::Collective::allgatherv, sched::Collective::reduce_scatterv,
      sched::Collective::bcast,      sched::Collective::reduce};
  /// Its schedule builder.
  static constexpr auto build = &sched::multi_lane;
};
/// The leader-based composition of a hierarchical policy (LeaderBased, below).
struct LeaderComposition {
  /// Its registry names' prefix.
  static constexpr std::string_view prefix = "leader_";
  /// The collectives besides allreduce it serves where Inter serves them.
  static constexpr std::array optional{
      sched::Collective::bcast,      sched::Collective::reduce,
      sched::Collective::allgather,  sched::Collective::reduce_scatter,
      sched::Collective::allgatherv, sched::Collective::reduce_scatterv};
  /// Its schedule builder.
  static constexpr auto build = &sched::leader_based;
};

/// Policy: a hierarchical composition (MultiLane or LeaderBased, below) on the host map with
/// `Inter` (at its defaults) between the hosts. Registry names "<prefix><inter>".
template <class Inter, class Composition>
struct Hierarchical {
  static_assert(serves<Inter>(sched::Collective::allreduce),
                "hierarchical policy: the inter-host algorithm must serve allreduce");
  /// Its registry name: the composition's prefix and Inter's name.
  static constexpr std::string_view name =
      cclx::detail::JoinedName<Composition::prefix, Inter::name>::value;
  /// What it serves: allreduce, and each of the composition's other collectives where Inter
  /// serves it; with keeps_rank_order the one declaration of it.
  static constexpr auto collectives = cclx::detail::served_by<Inter, Composition::optional>();
  /// None: the hosts' partial sums are combined in host order, not rank order.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  /// Its schedule depends on the request's host map (ScheduleRequest::hosts), which the
  /// Communicator then provides.
  static constexpr bool uses_hosts = true;
  std::size_t segment_bytes = 0;  ///< as in Ring
  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// fields, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;
  /// Segments of an allreduce, bcast or reduce pipelined through the composition's phases
  /// (schedule/channels.hpp): while one segment crosses the hosts the next one works inside them;
  /// 1: the phases one after another.
  std::size_t pipeline = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(Hierarchical, segment_bytes, 0, kUnbounded, "as in ring"),
        CCLX_POLICY_PARAM(
            Hierarchical, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
        CCLX_POLICY_PARAM(Hierarchical, pipeline, 1, sched::max_channels,
                          "segments pipelined through the intra- and inter-host phases "
                          "(allreduce, bcast, reduce); 1: the phases one after another"),
    };
  }
  /// The schedule for `r` on r.hosts, one channel's part when `channels` > 1 (algo::generate()
  /// splits); throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return Composition::build(r, name, cclx::detail::inter_host<Inter>(), pipeline);
  }
  /// The host map ("hosts=0,0,1,1") and the pipeline's segments when more than one: the schedule
  /// depends on them.
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest& r) const {
    std::string s = cclx::detail::hosts_param(r);
    if (pipeline > 1) s += (s.empty() ? "pipeline=" : ",pipeline=") + std::to_string(pipeline);
    return s;
  }
};

/// Policy: Traeff's multi-lane allreduce on the host map: intra-host ring reduce-scatter, each
/// lane's part allreduced between the hosts by `Inter` (at its defaults), intra-host ring
/// allgather; where `Inter` serves them, allgather (the lanes' allgathers by `Inter` between the
/// hosts, then the intra-host ring allgather) and reduce_scatter (the intra-host ring
/// reduce-scatter, then the lanes' reduce-scatters by `Inter`), and their v-collectives; bcast
/// (the binomial scatter of the lanes on the root's host, the lanes' bcasts by `Inter`, the
/// intra-host ring allgather) and reduce (the intra-host ring reduce-scatter, the lanes' reduces
/// by `Inter` to the root's host, the binomial gather to the root). Registry names
/// "multilane_<inter>".
template <class Inter>
using MultiLane = Hierarchical<Inter, MultiLaneComposition>;

/// Policy: leader-based allreduce on the host map: intra-host binomial reduce to each host's
/// leader (its lowest rank), the leaders' allreduce by `Inter` (at its defaults), intra-host
/// binomial bcast; where `Inter` serves them, bcast (`Inter`'s bcast among the hosts'
/// representatives, the root for its own host, then the intra-host binomial bcast), reduce
/// (the intra-host binomial reduce to the representatives, then `Inter`'s reduce among them),
/// allgather (the intra-host binomial gather to the leaders, `Inter`'s allgather of the hosts'
/// blocks among them, the intra-host binomial bcast), reduce_scatter (the intra-host binomial
/// reduce to the leaders, `Inter`'s reduce-scatter among them, the intra-host binomial scatter)
/// and their v-collectives.
/// Registry names "leader_<inter>".
template <class Inter>
using LeaderBased = Hierarchical<Inter, LeaderComposition>;

}  // namespace cclx::algo
