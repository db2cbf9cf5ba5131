// The hierarchical schedules (algo/hierarchical.hpp), composed of existing generators
// (schedule/compose.hpp). h hosts, host j with k_j ranks, L = max k_j lanes.
//
// Multi-lane: the data is L lanes of B blocks each (B: the inter-host schedule's blocks on h
// ranks), L * B blocks in all. On host j, local rank i carries lanes [i*L/k_j, (i+1)*L/k_j): one
// lane each when k_j = L, several on a host with fewer ranks. Phases:
//   1. per host, the ring reduce-scatter over its k_j ranks, rank i's block being its lanes;
//   2. per lane, Inter's allreduce among the lane's carriers (one per host), in place on Out;
//      a rank carrying several lanes runs their schedules in the same steps;
//   3. per host, the ring allgather (in place) of the lanes.
// Multi-lane allgather and reduce_scatter (block r is rank r's): lane l is the blocks of the hosts'
// local ranks l, carried on host j by its local rank l mod k_j (its own block when l < k_j; a host
// with fewer ranks than lanes has no block in the higher lanes but still carries them, so that
// they reach its ranks). Allgather: 1. per lane, Inter's allgather among the lane's carriers (one
// per host), each host's block of the lane being its block there, if any; 2. per host, the ring
// allgather (in place) of what each rank carried. Reduce_scatter the other way round: 1. per host,
// the ring reduce-scatter of the lanes each rank carries, into a Scratch copy of their own;
// 2. per lane, Inter's reduce-scatter among its carriers from that copy into Out. A part's block
// covers blocks scattered over the whole (compose.hpp's block maps); the v-collectives are the
// same schedules, their blocks sized per call. Multi-lane bcast and reduce (lanes as in the
// allreduce): the root's host scatters the lanes, Inter broadcasts each between the hosts, every
// host allgathers them; reduce the other way round, gathering the lanes to the root.
// Leader-based: B blocks. 1. per host, the binomial reduce to its leader (local rank 0);
// 2. Inter's allreduce among the leaders, in place on Out; 3. per host, the binomial bcast.
// Leader-based bcast (when Inter serves bcast): Inter's bcast among the hosts' representatives,
// the root standing for its host, then the binomial bcast on every host; reduce (when Inter
// serves reduce) the other way round. Leader-based allgather (when Inter serves it): the binomial
// gather to each leader, Inter's allgather among the leaders of the hosts' blocks, the binomial
// bcast on every host; reduce_scatter (when Inter serves it) the other way round: the binomial
// reduce to each leader, Inter's reduce-scatter among the leaders, the binomial scatter; the same
// for their v-collectives.
// Pipelined (allreduce, bcast, reduce with pipeline p > 1): each composition is built for one
// segment (bytes / p), and sched::pipeline() (schedule/channels.hpp) staggers p copies of it
// through its phases, by the bounds the composer recorded.
#include "cclx/algo/hierarchical.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cclx/algo/binomial_tree.hpp"
#include "cclx/algo/ring.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/schedule/compose.hpp"

namespace cclx::sched {

namespace {

constexpr std::array kMultiLane = {Collective::allreduce,       Collective::allgather,
                                   Collective::reduce_scatter,  Collective::allgatherv,
                                   Collective::reduce_scatterv, Collective::bcast,
                                   Collective::reduce};
constexpr std::array kLeaderBased = {Collective::allreduce,      Collective::bcast,
                                     Collective::reduce,         Collective::allgather,
                                     Collective::reduce_scatter, Collective::allgatherv,
                                     Collective::reduce_scatterv};

ScheduleRequest sub_request(Collective c, int nranks, bool in_place, std::size_t bytes = 0) {
  ScheduleRequest r;
  r.collective = c;
  r.nranks = nranks;
  r.in_place = in_place;
  r.bytes = bytes;
  return r;
}

// A composition's intra-host parts, each generated once per request: hosts of one size share
// theirs (a ring or a binomial tree of k ranks), so that h equal hosts cost one generation, not h
// (what keeps a composition built a host's ranks at a time, as algo::Auto's model does, cheap).
class Parts {
 public:
  const Schedule& ring(const ScheduleRequest& r) { return get(0, r, &sched::ring); }
  const Schedule& tree(const ScheduleRequest& r) { return get(1, r, &sched::binomial_tree); }

 private:
  using Key = std::tuple<int, Collective, int, int, bool, std::size_t>;
  const Schedule& get(int kind, const ScheduleRequest& r,
                      Schedule (*generate)(const ScheduleRequest&)) {
    const Key key{kind, r.collective, r.nranks, r.root, r.in_place, r.bytes};
    auto it = parts_.find(key);
    if (it == parts_.end()) it = parts_.emplace(key, generate(r)).first;
    return it->second;
  }
  std::map<Key, Schedule> parts_;  // a map: references stay valid
};

// Inter's schedule on the hosts' representatives (`sub`: allreduce in place, it runs on Out; or
// bcast from the root's host); its errors name the composition and the number of hosts.
void require_inter_serves(std::string_view algorithm, const InterHost& inter, Collective c) {
  if (std::find(inter.collectives.begin(), inter.collectives.end(), c) == inter.collectives.end())
    throw Error(std::string(algorithm) + ": the inter-host algorithm '" + std::string(inter.name) +
                "' does not serve " + std::string(to_string(c)));
}

Schedule inter_schedule(std::string_view algorithm, const InterHost& inter,
                        const ScheduleRequest& sub) {
  const int hosts = sub.nranks;
  require_inter_serves(algorithm, inter, sub.collective);
  try {
    return inter.generate(sub);
  } catch (const Error& e) {
    throw Error(std::string(algorithm) + ": the inter-host algorithm '" + std::string(inter.name) +
                "' cannot serve " + std::to_string(hosts) + " hosts: " + e.detail());
  }
}

// The request's host map; a malformed one is an error of the composition named `algorithm`.
HostMap hosts_of(const ScheduleRequest& req, std::string_view algorithm) {
  try {
    return host_map(req.hosts, req.nranks);
  } catch (const Error& e) {
    throw Error(std::string(algorithm) + ": " + e.detail());
  }
}

Schedule header(const ScheduleRequest& req, std::string_view algorithm) {
  Schedule s;
  s.algorithm = std::string(algorithm);
  s.params = req.hosts.empty() ? std::string() : "hosts=" + host_labels(req.hosts);
  s.collective = req.collective;
  s.root = req.root;
  s.in_place = req.in_place;
  s.preserves_order = req.nranks == 1;
  return s;
}

// The composed schedule, as `segments` segments pipelined through the composer's phases
// (sched::pipeline(); one segment: as composed), or one segment and its shape where the request
// asks for that (ScheduleRequest::segment_only).
Schedule finish_pipelined(const ScheduleComposer& c, const ScheduleRequest& req,
                          std::string_view algorithm, std::uint32_t segments) {
  if (req.segment_only && segments > 1) {
    *req.segment_only = {c.phase_bounds(), segments};
    return c.finish(header(req, algorithm));
  }
  return pipeline(c.finish(header(req, algorithm)), c.phase_bounds(), segments);
}

// The first lane local rank i of a host of k ranks carries, of L lanes (i = k: L).
std::uint32_t first_lane(int i, int k, std::uint32_t lanes) {
  return static_cast<std::uint32_t>(static_cast<std::uint64_t>(i) * lanes /
                                    static_cast<std::uint64_t>(k));
}

// The lanes of an allreduce, bcast or reduce on `m`, each of `nb` blocks: host j's local rank i
// carries the whole's blocks [bounds[j][i], bounds[j][i + 1]).
std::vector<std::vector<std::uint32_t>> lane_bounds(const HostMap& m, std::uint32_t lanes,
                                                    std::uint32_t nb) {
  std::vector<std::vector<std::uint32_t>> bounds(m.hosts.size());
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    const int k = static_cast<int>(m.hosts[j].size());
    for (int i = 0; i <= k; ++i) bounds[j].push_back(first_lane(i, k, lanes) * nb);
  }
  return bounds;
}

// Lane l's carrier on every host, in host order.
std::vector<int> lane_carriers(const HostMap& m, std::uint32_t lanes, std::uint32_t l) {
  std::vector<int> carriers;
  for (const auto& host : m.hosts) {
    const int k = static_cast<int>(host.size());
    int i = 0;
    while (first_lane(i + 1, k, lanes) <= l) ++i;
    carriers.push_back(host[static_cast<std::size_t>(i)]);
  }
  return carriers;
}

// The leaders' ranks: each host's lowest.
std::vector<int> leaders(const HostMap& m) {
  std::vector<int> heads;
  for (const auto& host : m.hosts) heads.push_back(host.front());
  return heads;
}

// Who stands for each host in a rooted collective: the root for its own, the leader elsewhere.
std::vector<int> representatives(const HostMap& m, int root) {
  std::vector<int> reps = leaders(m);
  reps[static_cast<std::size_t>(m.host_of[static_cast<std::size_t>(root)])] = root;
  return reps;
}

// Leader-based bcast: the root stands for its host. 1. Inter's bcast among the hosts'
// representatives (the root, the other hosts' leaders) from the root's host; 2. on every host,
// the binomial bcast from its representative.
Schedule leader_bcast(const ScheduleRequest& req, std::string_view algorithm,
                      const InterHost& inter, const HostMap& m, std::uint32_t segments) {
  Parts parts;
  const int h = m.num_hosts();
  const int root_host = m.host_of[static_cast<std::size_t>(req.root)];
  const std::vector<int> reps = representatives(m, req.root);
  ScheduleRequest sub = sub_request(Collective::bcast, h, false, req.bytes);
  sub.root = root_host;
  const Schedule between = inter_schedule(algorithm, inter, sub);
  const std::uint32_t nb = between.nblocks;
  ScheduleComposer c(req, nb);
  if (h > 1) c.embed(between, {reps, contiguous(block_bounds(0, nb)), Buf::in, Buf::out});
  c.next_phase();
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    const auto& host = m.hosts[j];
    const int k = static_cast<int>(host.size());
    if (k == 1) continue;
    ScheduleRequest local = sub_request(Collective::bcast, k, false);
    local.root = m.local_of[static_cast<std::size_t>(reps[j])];
    c.embed(parts.tree(local), {host, contiguous({0, nb}), Buf::in, Buf::out});
  }
  return finish_pipelined(c, req, algorithm, segments);
}

// Leader-based reduce: the root stands for its host. 1. on every host, the binomial reduce to its
// representative (the root, the other hosts' leaders), into a Scratch copy of its own above every
// copy the parts use (a non-root has no Out); 2. Inter's reduce among the representatives, from
// that copy to the root's Out. One host: phase 1 reduces into the root's Out.
Schedule leader_reduce(const ScheduleRequest& req, std::string_view algorithm,
                       const InterHost& inter, const HostMap& m, std::uint32_t segments) {
  Parts parts;
  const int h = m.num_hosts();
  const int root_host = m.host_of[static_cast<std::size_t>(req.root)];
  const std::vector<int> reps = representatives(m, req.root);
  // Out of place: In is read, the result goes where it is mapped.
  std::vector<const Schedule*> local;
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    ScheduleRequest r = sub_request(Collective::reduce, static_cast<int>(m.hosts[j].size()), false);
    r.root = m.local_of[static_cast<std::size_t>(reps[j])];
    local.push_back(&parts.tree(r));
  }
  ScheduleRequest sub = sub_request(Collective::reduce, h, false, req.bytes);
  sub.root = root_host;
  const Schedule between = inter_schedule(algorithm, inter, sub);
  const std::uint32_t nb = between.nblocks;
  std::uint32_t partial = between.scratch_copies;  // the copy holding a host's partial result
  for (const Schedule* s : local) partial = std::max(partial, s->scratch_copies);

  ScheduleComposer c(req, nb);
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    Embedding e{m.hosts[j], contiguous({0, nb}), Buf::in, Buf::out};
    if (h > 1) {
      e.out = Buf::scratch;
      e.out_copy = partial;
    }
    c.embed(*local[j], e);
  }
  c.next_phase();
  if (h > 1) {
    Embedding e{reps, contiguous(block_bounds(0, nb)), Buf::scratch, Buf::out};
    e.in_copy = partial;
    c.embed(between, e);
  }
  return finish_pipelined(c, req, algorithm, segments);
}

// The lanes of an allgather or reduce_scatter on `m` (see the top): for each lane, its carrier on
// every host and the whole's blocks of each host in it (the part's block j: host j's, if any).
struct RankLanes {
  std::vector<std::vector<int>> carriers;                        // [lane][host]
  std::vector<std::vector<std::vector<std::uint32_t>>> blocks;   // [lane][host]: 0 or 1 block
  std::vector<std::vector<std::vector<std::uint32_t>>> carried;  // [host][local rank]: blocks
};

RankLanes rank_lanes(const HostMap& m) {
  const auto lanes = static_cast<std::size_t>(m.max_ranks_per_host());
  RankLanes r;
  r.carriers.resize(lanes);
  r.blocks.resize(lanes);
  r.carried.resize(m.hosts.size());
  for (std::size_t j = 0; j < m.hosts.size(); ++j) r.carried[j].resize(m.hosts[j].size());
  for (std::size_t l = 0; l < lanes; ++l)
    for (const auto& host : m.hosts) {
      r.carriers[l].push_back(host[l % host.size()]);
      r.blocks[l].push_back(l < host.size()
                                ? std::vector<std::uint32_t>{static_cast<std::uint32_t>(host[l])}
                                : std::vector<std::uint32_t>{});
    }
  // What each rank carries: its lanes' blocks of every host, ascending (fewest runs).
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    const std::size_t k = m.hosts[j].size();
    for (std::size_t l = 0; l < lanes; ++l)
      for (const auto& b : r.blocks[l])
        r.carried[j][l % k].insert(r.carried[j][l % k].end(), b.begin(), b.end());
    for (auto& set : r.carried[j]) std::sort(set.begin(), set.end());
  }
  return r;
}

// The flat counterpart of a v-collective: its schedule in blocks is the same (schedule.hpp).
Collective equal_blocks(Collective c) {
  if (c == Collective::allgatherv) return Collective::allgather;
  if (c == Collective::reduce_scatterv) return Collective::reduce_scatter;
  return c;
}

// Inter's schedule of the allgather or reduce_scatter (or v-collective) `req` among the h hosts
// (one lane's carriers, or the leaders), on `bytes` of the message.
Schedule between_hosts(const ScheduleRequest& req, std::string_view algorithm,
                       const InterHost& inter, const HostMap& m, bool in_place, std::size_t bytes) {
  require_inter_serves(algorithm, inter, req.collective);  // the v-collective too
  return inter_schedule(algorithm, inter,
                        sub_request(equal_blocks(req.collective), m.num_hosts(), in_place, bytes));
}

// The whole's blocks of host j: the leaders' block j.
BlockMap host_blocks(const HostMap& m) {
  BlockMap blocks;
  for (const auto& host : m.hosts) blocks.emplace_back(host.begin(), host.end());
  return blocks;
}
// A host's ranks' own blocks: its local rank i's block is the whole's block of host[i].
BlockMap own_blocks(const std::vector<int>& host) {
  BlockMap blocks;
  for (const int r : host) blocks.push_back({static_cast<std::uint32_t>(r)});
  return blocks;
}

// Leader-based allgather: 1. per host, the binomial gather of its ranks' blocks to its leader;
// 2. Inter's allgather among the leaders (in place on Out), host j's blocks being their block j;
// 3. per host, the binomial bcast of all the blocks from its leader.
Schedule leader_allgather(const ScheduleRequest& req, std::string_view algorithm,
                          const InterHost& inter, const HostMap& m) {
  Parts parts;
  const Schedule between = between_hosts(req, algorithm, inter, m, true, req.bytes);
  const auto n = static_cast<std::uint32_t>(req.nranks);
  ScheduleComposer c(req, n);
  for (const auto& host : m.hosts)
    c.embed(
        parts.tree(sub_request(Collective::gather, static_cast<int>(host.size()), req.in_place)),
        {host, own_blocks(host), Buf::in, Buf::out});
  c.next_phase();
  if (m.num_hosts() > 1) c.embed(between, {leaders(m), host_blocks(m), Buf::out, Buf::out});
  c.next_phase();
  for (const auto& host : m.hosts)
    if (host.size() > 1)
      c.embed(parts.tree(sub_request(Collective::bcast, static_cast<int>(host.size()), false)),
              {host, contiguous({0, n}), Buf::in, Buf::out});
  return c.finish(header(req, algorithm));
}

// Leader-based reduce_scatter, the allgather reversed: 1. per host, the binomial reduce of all the
// blocks to its leader, into a Scratch copy (the host's partial sums); 2. Inter's reduce-scatter
// among the leaders into a second Scratch copy (a leader's Out holds its own block only), host j's
// blocks being their block j; 3. per host, the binomial scatter from its leader to its ranks' Out.
// One host: phase 3 scatters the partial sums.
Schedule leader_reduce_scatter(const ScheduleRequest& req, std::string_view algorithm,
                               const InterHost& inter, const HostMap& m) {
  Parts parts;
  const int h = m.num_hosts();
  const Schedule between = between_hosts(req, algorithm, inter, m, false, req.bytes);
  std::vector<const Schedule*> reduce, scatter;
  std::uint32_t partial = between.scratch_copies;  // the copy holding a host's partial sums
  for (const auto& host : m.hosts) {
    const int k = static_cast<int>(host.size());
    reduce.push_back(&parts.tree(sub_request(Collective::reduce, k, false)));
    scatter.push_back(&parts.tree(sub_request(Collective::scatter, k, false)));
    partial = std::max({partial, reduce.back()->scratch_copies, scatter.back()->scratch_copies});
  }
  const std::uint32_t result = h > 1 ? partial + 1 : partial;  // the leaders' reduce-scatter's
  const auto n = static_cast<std::uint32_t>(req.nranks);
  ScheduleComposer c(req, n);
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    Embedding e{m.hosts[j], contiguous({0, n}), Buf::in, Buf::scratch};
    e.out_copy = partial;
    c.embed(*reduce[j], e);
  }
  c.next_phase();
  if (h > 1) {
    Embedding e{leaders(m), host_blocks(m), Buf::scratch, Buf::scratch};
    e.in_copy = partial;
    e.out_copy = result;
    c.embed(between, e);
  }
  c.next_phase();
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    Embedding e{m.hosts[j], own_blocks(m.hosts[j]), Buf::scratch, Buf::out};
    e.in_copy = result;
    c.embed(*scatter[j], e);
  }
  return c.finish(header(req, algorithm));
}

Schedule multi_lane_allgather(const ScheduleRequest& req, std::string_view algorithm,
                              const InterHost& inter, const HostMap& m) {
  Parts parts;
  const RankLanes lanes = rank_lanes(m);
  const std::size_t nlanes = lanes.carriers.size();
  const Schedule lane = between_hosts(req, algorithm, inter, m, req.in_place, req.bytes / nlanes);
  ScheduleComposer c(req, static_cast<std::uint32_t>(req.nranks));
  // Always, even on one host: out of place it moves each rank's block from In to Out.
  for (std::size_t l = 0; l < nlanes; ++l) {
    c.embed(lane, {lanes.carriers[l], lanes.blocks[l], Buf::in, Buf::out});
  }
  c.next_phase();
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    const int k = static_cast<int>(m.hosts[j].size());
    if (k == 1) continue;
    c.embed(parts.ring(sub_request(Collective::allgather, k, true)),
            {m.hosts[j], lanes.carried[j], Buf::out, Buf::out});
  }
  return c.finish(header(req, algorithm));
}

Schedule multi_lane_reduce_scatter(const ScheduleRequest& req, std::string_view algorithm,
                                   const InterHost& inter, const HostMap& m) {
  Parts parts;
  const RankLanes lanes = rank_lanes(m);
  const std::size_t nlanes = lanes.carriers.size();
  const Schedule lane = between_hosts(req, algorithm, inter, m, false, req.bytes / nlanes);
  // Out of place: In is read, the host's partial sums go to Scratch.
  std::vector<const Schedule*> local;
  for (const auto& host : m.hosts)
    local.push_back(
        &parts.ring(sub_request(Collective::reduce_scatter, static_cast<int>(host.size()), false)));
  std::uint32_t partial = lane.scratch_copies;  // the copy holding the host's partial sums
  for (const Schedule* s : local) partial = std::max(partial, s->scratch_copies);

  ScheduleComposer c(req, static_cast<std::uint32_t>(req.nranks));
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    Embedding e{m.hosts[j], lanes.carried[j], Buf::in, Buf::scratch};
    e.out_copy = partial;
    c.embed(*local[j], e);
  }
  c.next_phase();
  for (std::size_t l = 0; l < nlanes; ++l) {
    Embedding e{lanes.carriers[l], lanes.blocks[l], Buf::scratch, Buf::out};
    e.in_copy = partial;
    c.embed(lane, e);
  }
  return c.finish(header(req, algorithm));
}

// The last two phases of the multi-lane allreduce and bcast, in place on Out: every lane's
// `lane` schedule among its carriers (one per host), then on every host the ring allgather of
// the lanes (host j's local rank i holding the whole's blocks [bounds[j][i], bounds[j][i + 1])).
void lanes_then_allgather(ScheduleComposer& c, Parts& parts, const HostMap& m, const Schedule& lane,
                          const std::vector<std::vector<std::uint32_t>>& bounds) {
  const auto lanes = static_cast<std::uint32_t>(m.max_ranks_per_host());
  const std::uint32_t nb = lane.nblocks;
  if (m.num_hosts() > 1)
    for (std::uint32_t l = 0; l < lanes; ++l)
      c.embed(lane, {lane_carriers(m, lanes, l), contiguous(block_bounds(l * nb, nb)), Buf::out,
                     Buf::out});
  c.next_phase();
  for (std::size_t j = 0; j < m.hosts.size(); ++j)
    if (m.hosts[j].size() > 1)
      c.embed(
          parts.ring(sub_request(Collective::allgather, static_cast<int>(m.hosts[j].size()), true)),
          {m.hosts[j], contiguous(bounds[j]), Buf::out, Buf::out});
}

// A multi-lane bcast's or reduce's lanes: Inter's schedule of one lane (s/L bytes) among the
// hosts, rooted at the root's host, and where each host's ranks carry the lanes (lane_bounds).
struct RootedLanes {
  std::size_t root_host;
  std::uint32_t lanes, nb;
  Schedule lane;
  std::vector<std::vector<std::uint32_t>> bounds;
};

RootedLanes rooted_lanes(const ScheduleRequest& req, std::string_view algorithm,
                         const InterHost& inter, const HostMap& m) {
  RootedLanes r{};
  r.root_host = static_cast<std::size_t>(m.host_of[static_cast<std::size_t>(req.root)]);
  r.lanes = static_cast<std::uint32_t>(m.max_ranks_per_host());
  ScheduleRequest sub = sub_request(req.collective, m.num_hosts(), false, req.bytes / r.lanes);
  sub.root = static_cast<int>(r.root_host);
  r.lane = inter_schedule(algorithm, inter, sub);
  r.nb = r.lane.nblocks;
  r.bounds = lane_bounds(m, r.lanes, r.nb);
  return r;
}

// Multi-lane bcast (Traeff's: every rank of a host moves 1/L of the data between hosts): 1. on
// the root's host, the binomial scatter of the lanes from the root, local rank i receiving the
// lanes it carries; 2. per lane, Inter's bcast among the lane's carriers from the root's host;
// 3. per host, the ring allgather (in place) of the lanes. A bcast's data is in Out, the root's
// too: the scatter reads it there.
Schedule multi_lane_bcast(const ScheduleRequest& req, std::string_view algorithm,
                          const InterHost& inter, const HostMap& m, std::uint32_t segments) {
  Parts parts;
  const RootedLanes r = rooted_lanes(req, algorithm, inter, m);
  const auto& [root_host, lanes, nb, lane, bounds] = r;
  ScheduleComposer c(req, lanes * nb);
  const auto& home = m.hosts[root_host];
  if (home.size() > 1) {
    ScheduleRequest scatter = sub_request(Collective::scatter, static_cast<int>(home.size()), true);
    scatter.root = m.local_of[static_cast<std::size_t>(req.root)];
    c.embed(parts.tree(scatter), {home, contiguous(bounds[root_host]), Buf::out, Buf::out});
  }
  c.next_phase();
  lanes_then_allgather(c, parts, m, lane, bounds);
  return finish_pipelined(c, req, algorithm, segments);
}

// Multi-lane reduce, the bcast reversed: 1. per host, the ring reduce-scatter of the lanes into a
// Scratch copy (the host's partial sums); 2. per lane, Inter's reduce among the lane's carriers to
// the root's host, into a second Scratch copy (a carrier other than the root has no Out); 3. on
// the root's host, the binomial gather of the lanes into the root's Out.
Schedule multi_lane_reduce(const ScheduleRequest& req, std::string_view algorithm,
                           const InterHost& inter, const HostMap& m, std::uint32_t segments) {
  Parts parts;
  const int h = m.num_hosts();
  const RootedLanes r = rooted_lanes(req, algorithm, inter, m);
  const auto& [root_host, lanes, nb, lane, bounds] = r;
  std::vector<const Schedule*> local;  // out of place: In is read, the partial sums go to Scratch
  for (const auto& host : m.hosts)
    local.push_back(
        &parts.ring(sub_request(Collective::reduce_scatter, static_cast<int>(host.size()), false)));
  const auto& home = m.hosts[root_host];
  ScheduleRequest gather = sub_request(Collective::gather, static_cast<int>(home.size()), false);
  gather.root = m.local_of[static_cast<std::size_t>(req.root)];
  const Schedule& collect = parts.tree(gather);
  // The two copies above every copy the parts use: the host's partial sums, the lanes' results.
  std::uint32_t partial = std::max(lane.scratch_copies, collect.scratch_copies);
  for (const Schedule* s : local) partial = std::max(partial, s->scratch_copies);
  const std::uint32_t result = h > 1 ? partial + 1 : partial;

  ScheduleComposer c(req, lanes * nb);
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    Embedding e{m.hosts[j], contiguous(bounds[j]), Buf::in, Buf::scratch};
    e.out_copy = partial;
    c.embed(*local[j], e);
  }
  c.next_phase();
  if (h > 1)
    for (std::uint32_t l = 0; l < lanes; ++l) {
      Embedding e{lane_carriers(m, lanes, l), contiguous(block_bounds(l * nb, nb)), Buf::scratch,
                  Buf::scratch};
      e.in_copy = partial;
      e.out_copy = result;
      c.embed(lane, e);
    }
  c.next_phase();
  Embedding e{home, contiguous(bounds[root_host]), Buf::scratch, Buf::out};
  e.in_copy = result;
  c.embed(collect, e);
  return finish_pipelined(c, req, algorithm, segments);
}

}  // namespace

Schedule multi_lane(const ScheduleRequest& req, std::string_view algorithm, const InterHost& inter,
                    std::size_t pipelined) {
  require_supported(req, algorithm, kMultiLane);
  const std::uint32_t segments = split_count(algorithm, "pipeline", "segments",
                                             static_cast<long long>(pipelined), req.collective);
  const ScheduleRequest seg = channel_part_request(req, segments);  // one segment's
  const HostMap m = hosts_of(req, algorithm);
  switch (equal_blocks(req.collective)) {
    case Collective::allgather:
      return multi_lane_allgather(req, algorithm, inter, m);
    case Collective::reduce_scatter:
      return multi_lane_reduce_scatter(req, algorithm, inter, m);
    case Collective::bcast:
      return multi_lane_bcast(seg, algorithm, inter, m, segments);
    case Collective::reduce:
      return multi_lane_reduce(seg, algorithm, inter, m, segments);
    default:
      break;
  }
  Parts parts;
  const int h = m.num_hosts();
  const auto lanes = static_cast<std::uint32_t>(m.max_ranks_per_host());
  const Schedule lane = inter_schedule(
      algorithm, inter, sub_request(Collective::allreduce, h, true, seg.bytes / lanes));
  const std::uint32_t nb = lane.nblocks;
  ScheduleComposer c(req, lanes * nb);

  const auto bounds = lane_bounds(m, lanes, nb);  // host j's ring: local rank i's block its lanes
  for (std::size_t j = 0; j < m.hosts.size(); ++j) {
    const int k = static_cast<int>(m.hosts[j].size());
    if (k == 1 && req.in_place) continue;  // its input is its lanes' data already
    // Out of place even when the call is in place: the ring reads In block v only when it
    // completes Out block v, so In aliasing Out is harmless (the verifier checks it aliased).
    c.embed(parts.ring(sub_request(Collective::reduce_scatter, k, false)),
            {m.hosts[j], contiguous(bounds[j]), Buf::in, Buf::out});
  }
  c.next_phase();
  lanes_then_allgather(c, parts, m, lane, bounds);
  return finish_pipelined(c, req, algorithm, segments);
}

Schedule leader_based(const ScheduleRequest& req, std::string_view algorithm,
                      const InterHost& inter, std::size_t pipelined) {
  require_supported(req, algorithm, kLeaderBased);
  const std::uint32_t segments = split_count(algorithm, "pipeline", "segments",
                                             static_cast<long long>(pipelined), req.collective);
  const ScheduleRequest seg = channel_part_request(req, segments);  // one segment's
  const HostMap m = hosts_of(req, algorithm);
  if (req.collective == Collective::bcast) return leader_bcast(seg, algorithm, inter, m, segments);
  if (req.collective == Collective::reduce)
    return leader_reduce(seg, algorithm, inter, m, segments);
  if (equal_blocks(req.collective) == Collective::allgather)
    return leader_allgather(req, algorithm, inter, m);
  if (equal_blocks(req.collective) == Collective::reduce_scatter)
    return leader_reduce_scatter(req, algorithm, inter, m);
  Parts parts;
  const int h = m.num_hosts();
  const Schedule between =
      inter_schedule(algorithm, inter, sub_request(Collective::allreduce, h, true, seg.bytes));
  const std::uint32_t nb = between.nblocks;
  ScheduleComposer c(req, nb);
  const BlockMap whole = contiguous({0, nb});  // the binomial tree's one block

  for (const auto& host : m.hosts) {
    const int k = static_cast<int>(host.size());
    c.embed(parts.tree(sub_request(Collective::reduce, k, req.in_place)),
            {host, whole, Buf::in, Buf::out});
  }
  c.next_phase();
  if (h > 1) c.embed(between, {leaders(m), contiguous(block_bounds(0, nb)), Buf::out, Buf::out});
  c.next_phase();
  for (const auto& host : m.hosts) {
    const int k = static_cast<int>(host.size());
    if (k > 1)
      c.embed(parts.tree(sub_request(Collective::bcast, k, false)),
              {host, whole, Buf::in, Buf::out});
  }
  return finish_pipelined(c, req, algorithm, segments);
}

}  // namespace cclx::sched
