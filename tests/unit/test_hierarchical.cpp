// The hierarchical allreduce schedules (algo/hierarchical.hpp) on many host maps: one host, every
// rank its own host, even and uneven ranks per host, a host's ranks not consecutive, arbitrary
// labels; every registered hierarchical policy (so every inter-host algorithm the registry
// composes), in and out of place, several counts, through the symbolic verifier. Also what the
// compositions promise beyond correctness: only lanes (leaders) cross hosts, with the lane's share
// of the data; the cache tells host maps apart; bad input is a clear cclx::Error.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cclx/algo/hierarchical.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/cache.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/schedule/compose.hpp"
#include "cclx/schedule/hosts.hpp"
#include "cclx/schedule/partition.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"

namespace {

using namespace cclx;
using sched::Collective;
using sched::ScheduleRequest;

struct NamedMap {
  std::string what;
  std::vector<int> ids;  // empty: every rank its own host
};

// The host maps of n ranks the sweep visits.
std::vector<NamedMap> host_maps(int n) {
  std::vector<NamedMap> maps;
  const auto make = [&](std::string what, auto id) {
    std::vector<int> ids;
    for (int r = 0; r < n; ++r) ids.push_back(id(r));
    maps.push_back({std::move(what), std::move(ids)});
  };
  maps.push_back({"empty (every rank its own host)", {}});
  make("one host", [](int) { return 0; });
  make("every rank its own host", [](int r) { return r; });
  for (int k : {2, 3, 4})
    make(std::to_string(k) + " per host, consecutive", [k](int r) { return r / k; });
  for (int h : {2, 3}) make("round robin on " + std::to_string(h), [h](int r) { return r % h; });
  make("rank 0 alone", [](int r) { return r == 0 ? 0 : 1; });
  make("last rank alone, labels 9 and 4", [n](int r) { return r == n - 1 ? 4 : 9; });
  make("uneven scattered", [](int r) { return (r * r + 3 * r) % 5 % 3; });
  return maps;
}

std::vector<const sched::GeneratorInfo*> hierarchical_generators() {
  std::vector<const sched::GeneratorInfo*> gens;
  for (const auto& g : algo::generators())
    if (g.uses_hosts) gens.push_back(&g);
  return gens;
}

// The roots a collective is checked at: the first, a middle and the last rank when rooted.
std::vector<int> roots(Collective c, int n) {
  if (c != Collective::bcast && c != Collective::reduce) return {0};
  std::vector<int> r = {0, n / 2, n - 1};
  r.erase(std::unique(r.begin(), r.end()), r.end());
  return r;
}

// Block sizes of a v-collective for the sweep's `count`: block b of n holds (b * 7 + count) % 5
// elements, zeros among them, then count - 1 for the last (0 when count is 0).
sched::BlockSizes v_sizes(int n, std::size_t count) {
  std::vector<std::size_t> counts(static_cast<std::size_t>(n));
  for (std::size_t b = 0; b < counts.size(); ++b) counts[b] = (b * 7 + count) % 5;
  counts.back() = count == 0 ? 0 : count - 1;
  return {std::vector(static_cast<std::size_t>(n), counts),
          std::vector(static_cast<std::size_t>(n), counts)};
}

// Bytes rank r sends to ranks on other hosts, for `count` elements of `elem` bytes.
std::size_t cross_host_bytes(const sched::Schedule& s, const sched::HostMap& m, int r,
                             std::size_t count, std::size_t elem) {
  const sched::Partition part{count, s.nblocks};
  std::size_t bytes = 0;
  for (const auto& op : s.programs[static_cast<std::size_t>(r)].ops)
    if (op.kind == sched::OpKind::send &&
        m.host_of[static_cast<std::size_t>(op.peer)] != m.host_of[static_cast<std::size_t>(r)]) {
      sched::Region g = op.src;
      if (g.buf == sched::Buf::scratch) g.first %= s.nblocks;
      bytes += part.region_size(g) * elem;
    }
  return bytes;
}

}  // namespace

TEST_CASE("hierarchical: the registry has the compositions and what each serves") {
  const auto gens = hierarchical_generators();
  std::vector<std::string> names;
  for (const auto* g : gens) names.push_back(g->name);
  for (const char* want : {"multilane_ring", "multilane_rhd", "multilane_recursive_doubling",
                           "leader_recursive_doubling", "leader_rhd", "leader_binomial_tree"})
    CHECK(std::find(names.begin(), names.end(), want) != names.end());
  for (const auto* g : gens) {
    INFO(g->name);
    // Both serve, besides allreduce, what their inter-host algorithm serves of bcast, reduce,
    // allgather, reduce_scatter and their v-collectives.
    using C = Collective;
    std::vector<C> want{C::allreduce};
    if (g->name == "leader_binomial_tree") want = {C::allreduce, C::bcast, C::reduce};
    if (g->name == "leader_rhd")
      want = {C::allreduce,      C::bcast,      C::reduce,         C::allgather,
              C::reduce_scatter, C::allgatherv, C::reduce_scatterv};
    if (g->name == "multilane_ring")
      want = {C::allreduce, C::allgather, C::reduce_scatter, C::allgatherv, C::reduce_scatterv};
    if (g->name == "multilane_rhd")
      want = {C::allreduce,       C::allgather, C::reduce_scatter, C::allgatherv,
              C::reduce_scatterv, C::bcast,     C::reduce};
    CHECK(g->collectives == want);
    CHECK(g->keeps_rank_order.empty());
  }
}

TEST_CASE("hierarchical: verifier sweep over host maps, n = 1..16") {
  std::size_t verified = 0;
  for (const auto* g : hierarchical_generators())
    for (Collective c : g->collectives)
      for (int n = 1; n <= std::min(16, test::sweep_max_n()); ++n)
        for (const auto& map : host_maps(n))
          for (int root : roots(c, n))
            for (bool ip : {false, true})
              for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(n - 1),
                                        std::size_t(n + 1), std::size_t{1000}}) {
                ScheduleRequest req{c, n, root, ip, count * 4};
                req.hosts = map.ids;
                const auto s = g->generate(req, {});
                const auto rep = coll::has_variable_counts(c)
                                     ? sched::verify(s, v_sizes(n, count), 4)
                                     : sched::verify(s, count, 4);
                std::string errs;
                for (const auto& e : rep.errors) errs += "\n  " + e;
                INFO(g->name, " ", sched::to_string(c), " n=", n, " root=", root,
                     " hosts: ", map.what, " in_place=", ip, " count=", count, errs);
                REQUIRE(rep.ok);
                CHECK(s.scratch_copies == std::max(1u, test::scratch_copies_used(s)));
                ++verified;
              }
  MESSAGE("verified ", verified, " hierarchical schedules");
}

TEST_CASE("hierarchical: verifier on channels") {
  const std::vector<int> hosts = {0, 1, 0, 2, 1, 0, 2};
  for (const auto* g : hierarchical_generators())
    for (bool ip : {false, true}) {
      ScheduleRequest req{Collective::allreduce, 7, 0, ip, 4000};
      req.hosts = hosts;
      const auto s = algo::generate_by_name(g->name, req, {{"channels", 3}});
      const auto rep = sched::verify(s, 1000, 4);
      INFO(g->name, " in_place=", ip);
      CHECK(rep.ok);
    }
}

TEST_CASE("hierarchical: verifier on pipelines, over host maps") {
  std::size_t verified = 0;
  for (const auto* g : hierarchical_generators())
    for (Collective c : g->collectives) {
      if (!sched::splits_into_channels(c)) continue;
      for (int n : {2, 5, 7, 8})
        for (const auto& map : host_maps(n))
          for (int root : roots(c, n))
            for (bool ip : {false, true})
              for (long long segments : {2LL, 3LL})
                for (std::size_t count : {std::size_t{1}, std::size_t{1000}}) {
                  ScheduleRequest req{c, n, root, ip, count * 4};
                  req.hosts = map.ids;
                  const auto s = algo::generate_by_name(g->name, req, {{"pipeline", segments}});
                  const auto rep = sched::verify(s, count, 4);
                  std::string errs;
                  for (const auto& e : rep.errors) errs += "\n  " + e;
                  INFO(g->name, " ", sched::to_string(c), " n=", n, " root=", root,
                       " hosts: ", map.what, " in_place=", ip, " pipeline=", segments,
                       " count=", count, errs);
                  REQUIRE(rep.ok);
                  // Every rank's program numbers the steps alike when built alone.
                  req.only_rank = n - 1;
                  const auto last = algo::generate_by_name(g->name, req, {{"pipeline", segments}});
                  CHECK(last.programs.back() == s.programs.back());
                  ++verified;
                }
    }
  MESSAGE("verified ", verified, " pipelined hierarchical schedules");
}

TEST_CASE(
    "hierarchical: a pipeline overlaps one segment's inter-host phase with the next's "
    "intra-host phase") {
  // 2 hosts of 4 ranks: the ring reduce-scatter takes 3 steps, the inter-host ring allreduce of a
  // lane 2, the ring allgather 3. Two segments: segment 1's reduce-scatter follows segment 0's
  // (steps 3-5, while segment 0 crosses the hosts in steps 3-4), its lanes follow it (steps 6-7,
  // while segment 0's allgather runs in 5-7), and its allgather follows segment 0's (8-10).
  ScheduleRequest req{Collective::allreduce, 8, 0, false, 8000};
  const std::vector<int> hosts = {0, 0, 0, 0, 1, 1, 1, 1};
  req.hosts = hosts;
  const auto one = algo::generate_by_name("multilane_ring", req);
  const auto two = algo::generate_by_name("multilane_ring", req, {{"pipeline", 2}});
  CHECK(one.num_rounds() == 8);
  CHECK(two.num_rounds() == 11);  // not 16: the phases overlap
  CHECK(two.nblocks == 2 * one.nblocks);
  CHECK(two.params == "hosts=0,0,0,0,1,1,1,1,pipeline=2");
  // Step 3 of rank 0 holds segment 0's first inter-host send and segment 1's first intra-host one.
  const sched::HostMap m = sched::host_map(hosts, 8);
  const auto& p = two.programs[0];
  bool inter = false, intra = false;
  for (std::size_t i = 0; i < p.step_size(3); ++i) {
    const sched::Op& op = p.step_data(3)[i];
    if (op.kind != sched::OpKind::send) continue;
    (m.host_of[static_cast<std::size_t>(op.peer)] == 0 ? intra : inter) = true;
  }
  CHECK(inter);
  CHECK(intra);
}

TEST_CASE("hierarchical: one rank's program equals its program in the whole schedule") {
  const std::vector<int> hosts = {0, 1, 0, 2, 1, 0, 2};
  for (const auto* g : hierarchical_generators()) {
    ScheduleRequest req{Collective::allreduce, 7, 0, false, 4000};
    req.hosts = hosts;
    const auto whole = g->generate(req, {});
    for (int r = 0; r < 7; ++r) {
      req.only_rank = r;
      const auto mine = g->generate(req, {});
      INFO(g->name, " rank ", r);
      CHECK(mine.programs[static_cast<std::size_t>(r)] ==
            whole.programs[static_cast<std::size_t>(r)]);
      CHECK(mine.nblocks == whole.nblocks);
      CHECK(mine.scratch_copies == whole.scratch_copies);
    }
  }
  // A host's ranks at once (only_rank_end), as algo::Auto's model builds a composition: hosts of
  // consecutive ranks, of unequal sizes, with their pipelines.
  const std::vector<int> blocks = {0, 0, 0, 1, 1, 2, 2, 2, 2};
  for (const auto* g : hierarchical_generators())
    for (const Collective c : g->collectives)
      for (const long long pipeline : {1LL, 4LL}) {
        ScheduleRequest req{c, 9, 4, false, 9 * 4000};
        req.hosts = blocks;
        sched::ParamMap params;
        if (pipeline > 1) params["pipeline"] = pipeline;
        sched::Schedule whole;
        try {
          whole = g->generate(req, params);
        } catch (const cclx::Error&) {
          continue;  // a pipeline on a collective that does not split
        }
        for (const std::pair<int, int> host : {std::pair{0, 3}, std::pair{3, 5}, std::pair{5, 9}}) {
          req.only_rank = host.first;
          req.only_rank_end = host.second;
          const auto some = g->generate(req, params);
          for (int r = host.first; r < host.second; ++r) {
            INFO(g->name, " ", sched::to_string(c), " pipeline ", pipeline, " rank ", r);
            CHECK(some.programs[static_cast<std::size_t>(r)] ==
                  whole.programs[static_cast<std::size_t>(r)]);
          }
          req.only_rank = req.only_rank_end = -1;
        }
      }
}

TEST_CASE("hierarchical: multi-lane sends a lane's share between hosts, leader-based the leaders") {
  // 4 hosts of 3 ranks, ranks of a host not consecutive.
  std::vector<int> hosts;
  for (int r = 0; r < 12; ++r) hosts.push_back(r % 4);
  const auto m = sched::host_map(hosts, 12);
  const std::size_t count = 12000, elem = 4, s = count * elem;
  ScheduleRequest req{Collective::allreduce, 12, 0, false, s};
  req.hosts = hosts;

  const auto lanes = algo::generate_by_name("multilane_ring", req);
  for (int r = 0; r < 12; ++r) {
    // Ring over h = 4 hosts on s / k = s / 3 bytes: 2 (h - 1) / h of it.
    INFO("rank ", r);
    CHECK(cross_host_bytes(lanes, m, r, count, elem) == 2 * 3 * (s / 3) / 4);
  }
  // Allgather and reduce_scatter: each rank's lane crosses hosts with one block per other host
  // (the ring over h = 4 hosts), where the flat ring sends n - 1 = 11 blocks, 8 of them across.
  for (Collective c : {Collective::allgather, Collective::reduce_scatter}) {
    ScheduleRequest lane_req{c, 12, 0, false, s};
    lane_req.hosts = hosts;
    const auto lane = algo::generate_by_name("multilane_ring", lane_req);
    for (int r = 0; r < 12; ++r) {
      INFO(sched::to_string(c), " rank ", r);
      CHECK(cross_host_bytes(lane, m, r, count, elem) == 3 * s / 12);
    }
  }
  // Bcast from rank 5 (host 1): the root and the other hosts' leaders cross hosts, no one else.
  req.collective = Collective::bcast;
  req.root = 5;
  const auto bcast = algo::generate_by_name("leader_binomial_tree", req);
  for (int r = 0; r < 12; ++r) {
    INFO("bcast, rank ", r);
    const auto ur = static_cast<std::size_t>(r);
    const bool represents = r == 5 || (m.local_of[ur] == 0 && m.host_of[ur] != m.host_of[5]);
    if (!represents) CHECK(cross_host_bytes(bcast, m, r, count, elem) == 0);
  }
  CHECK(cross_host_bytes(bcast, m, 5, count, elem) > 0);
  // Reduce to rank 5: the other hosts' leaders send their host's partial result, no one else.
  req.collective = Collective::reduce;
  const auto reduce = algo::generate_by_name("leader_binomial_tree", req);
  for (int r = 0; r < 12; ++r) {
    INFO("reduce, rank ", r);
    const auto ur = static_cast<std::size_t>(r);
    const bool leader = m.local_of[ur] == 0 && m.host_of[ur] != m.host_of[5];
    CHECK(cross_host_bytes(reduce, m, r, count, elem) == (leader ? s : 0));
  }
  // Multi-lane bcast and reduce at rank 5: every rank carries its lane between the hosts, a third
  // of what its host's representative (the root, the other hosts' leaders) carries in the
  // leader-based schedule with the same inter-host algorithm (RHD's on 4 hosts).
  for (Collective c : {Collective::bcast, Collective::reduce}) {
    req.collective = c;
    const auto lanes_c = algo::generate_by_name("multilane_rhd", req);
    const auto leader_c = algo::generate_by_name("leader_rhd", req);
    for (int r = 0; r < 12; ++r) {
      INFO(sched::to_string(c), ", rank ", r);
      const int host = m.host_of[static_cast<std::size_t>(r)];
      const int rep = host == m.host_of[5] ? 5 : m.hosts[static_cast<std::size_t>(host)].front();
      const std::size_t mine = cross_host_bytes(lanes_c, m, r, count, elem);
      CHECK(mine > 0);
      CHECK(3 * mine == cross_host_bytes(leader_c, m, rep, count, elem));
    }
  }
  // Leader-based allgather and reduce_scatter: only the leaders cross hosts, each with the other
  // hosts' blocks as RHD on 4 hosts moves them: 1 + 2 of the 4 hosts' 3 blocks, 3/4 of the data.
  for (Collective c : {Collective::allgather, Collective::reduce_scatter}) {
    req.collective = c;
    req.root = 0;
    const auto leader_c = algo::generate_by_name("leader_rhd", req);
    for (int r = 0; r < 12; ++r) {
      INFO(sched::to_string(c), ", rank ", r);
      const bool leader = m.local_of[static_cast<std::size_t>(r)] == 0;
      CHECK(cross_host_bytes(leader_c, m, r, count, elem) == (leader ? 3 * s / 4 : 0));
    }
  }
  req.collective = Collective::allreduce;
  req.root = 0;
  const auto leaders = algo::generate_by_name("leader_recursive_doubling", req);
  for (int r = 0; r < 12; ++r) {
    INFO("rank ", r);
    // Recursive doubling on 4 leaders: log2(4) exchanges of the whole message.
    CHECK(cross_host_bytes(leaders, m, r, count, elem) ==
          (m.local_of[static_cast<std::size_t>(r)] == 0 ? 2 * s : 0));
  }
}

TEST_CASE("hierarchical: a composed part's blocks scattered over the whole") {
  using sched::Buf;
  using sched::OpKind;
  // The ring allgather of 2 ranks played by ranks 0 and 2 of 4: part block 0 is the whole's
  // blocks 0 and 2 (not adjacent: two messages), part block 1 none (its transfers disappear).
  const auto part = algo::generate_by_name("ring", {Collective::allgather, 2, 0, true, 8});
  sched::ScheduleComposer c(4, 4);
  c.embed(part, {{0, 2}, {{0, 2}, {}}, Buf::out, Buf::out});
  const auto s = c.finish({});
  const auto ops = [&](int r, OpKind k) {
    std::vector<sched::Region> regions;
    for (const auto& op : s.programs[static_cast<std::size_t>(r)].ops)
      if (op.kind == k) regions.push_back(k == OpKind::send ? op.src : op.dst);
    return regions;
  };
  CHECK(ops(0, OpKind::send) == std::vector<sched::Region>{{Buf::out, 0, 1}, {Buf::out, 2, 1}});
  CHECK(ops(2, OpKind::recv) == std::vector<sched::Region>{{Buf::out, 0, 1}, {Buf::out, 2, 1}});
  CHECK(ops(2, OpKind::send).empty());
  CHECK(ops(0, OpKind::recv).empty());
  // A copy whose operands fall into different runs of the whole cannot be embedded.
  sched::Schedule copy;
  copy.algorithm = "copy";
  copy.nblocks = 2;
  copy.programs.resize(1);
  sched::ProgramBuilder(copy.programs[0]).copy({Buf::out, 0, 1}, {Buf::in, 1, 1}).end_step();
  sched::ScheduleComposer bad(1, 3);
  sched::Embedding split{{0}, {{0, 1}, {2}}, Buf::in, Buf::out};
  CHECK_THROWS_WITH_AS(bad.embed(copy, split),
                       "cclx: embedding of 'copy': a copy whose operands cover different runs of "
                       "the whole's blocks",
                       cclx::Error);
  // A set naming a block outside the whole.
  split.blocks = {{0}, {3}};
  CHECK_THROWS_AS(bad.embed(copy, split), cclx::Error);
}

TEST_CASE("hierarchical: the schedule cache keys the host map, not its labels, and the pipeline") {
  sched::clear_schedule_cache();
  const std::vector<int> a = {0, 0, 1, 1}, b = {0, 1, 0, 1}, a_relabeled = {5, 5, 2, 2};
  ScheduleRequest req{Collective::allreduce, 4, 0, false, 4096};
  const algo::MultiLane<algo::Ring> p{};
  req.hosts = a;
  const auto sa = algo::schedule_for(p, req);
  req.hosts = b;
  const auto sb = algo::schedule_for(p, req);
  req.hosts = a_relabeled;
  const auto sa2 = algo::schedule_for(p, req);
  CHECK(sa != sb);
  CHECK(sa->programs != sb->programs);
  CHECK(sa == sa2);
  CHECK(sa->params == "hosts=0,0,1,1");
  // The pipeline's segments are part of the key: a pipelined policy gets its own schedule.
  req.hosts = a;
  const auto piped = algo::schedule_for(algo::MultiLane<algo::Ring>{.pipeline = 2}, req);
  CHECK(piped != sa);
  CHECK(piped->params == "hosts=0,0,1,1,pipeline=2");
  CHECK(piped->nblocks == 2 * sa->nblocks);
  // A flat policy's key ignores the map: one schedule for every map.
  req.hosts = a;
  const auto ra = algo::schedule_for(algo::Ring{}, req);
  req.hosts = b;
  CHECK(algo::schedule_for(algo::Ring{}, req) == ra);
}

TEST_CASE("hierarchical: bad input is a clear cclx::Error") {
  ScheduleRequest req{Collective::allreduce, 4, 0, false, 64};
  const std::vector<int> hosts = {0, 0, 1, 1};
  req.hosts = hosts;
  // An inter-host algorithm that does not serve allreduce.
  const sched::InterHost barrier = cclx::detail::inter_host<algo::Dissemination>();
  CHECK_THROWS_WITH_AS(
      (void)sched::multi_lane(req, "multilane_dissemination", barrier),
      "cclx: multilane_dissemination: the inter-host algorithm 'dissemination' does "
      "not serve allreduce",
      cclx::Error);
  CHECK_THROWS_AS((void)sched::leader_based(req, "leader_dissemination", barrier), cclx::Error);
  // An inter-host algorithm that refuses the number of hosts names the composition and the count.
  const sched::InterHost refuses{
      "picky", algo::Ring::collectives,
      [](const ScheduleRequest&) -> sched::Schedule { throw cclx::Error("no"); }};
  CHECK_THROWS_WITH_AS(
      (void)sched::multi_lane(req, "multilane_picky", refuses),
      "cclx: multilane_picky: the inter-host algorithm 'picky' cannot serve 2 hosts: no",
      cclx::Error);
  // Bcast through an inter-host algorithm without one (the policy does not declare it then).
  req.collective = Collective::bcast;
  CHECK_THROWS_WITH_AS((void)algo::generate_by_name("leader_recursive_doubling", req),
                       "cclx: leader_recursive_doubling: the inter-host algorithm "
                       "'recursive_doubling' does not serve bcast",
                       cclx::Error);
  // A collective it does not serve, and a host map of the wrong length.
  req.collective = Collective::bcast;
  CHECK_THROWS_AS((void)algo::generate_by_name("multilane_ring", req), cclx::Error);
  // A pipeline of a collective that does not split, or of too many segments.
  req.collective = Collective::allgather;
  CHECK_THROWS_WITH_AS((void)algo::generate_by_name("multilane_ring", req, {{"pipeline", 2}}),
                       "cclx: multilane_ring: pipeline=2: allgather does not split into segments "
                       "(only allreduce, reduce and bcast do)",
                       cclx::Error);
  req.collective = Collective::allreduce;
  CHECK_THROWS_AS((void)algo::generate_by_name("leader_rhd", req, {{"pipeline", 65}}), cclx::Error);
  const std::vector<int> short_map = {0, 1, 1};
  req.hosts = short_map;
  CHECK_THROWS_WITH_AS((void)algo::generate_by_name("leader_rhd", req),
                       "cclx: leader_rhd: host map has 3 entries for 4 ranks", cclx::Error);
}
