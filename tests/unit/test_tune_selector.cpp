// algo::Auto's decisions without MPI: authority of the sources, fallback when a source's choice
// cannot serve the call, the model's ranking at the extremes, caching and fingerprints.
#include <doctest/doctest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/auto_state.hpp"
#include "cclx/tune/model.hpp"
#include "cclx/tune/selector.hpp"
#include "support.hpp"

using namespace cclx::tune;
using cclx::sched::Collective;
using cclx::test::contains;

namespace {
Workload allreduce(int n, std::size_t bytes, bool commutative = true) {
  Workload w;
  w.collective = Collective::allreduce;
  w.nranks = n;
  w.bytes = bytes;
  w.elem_size = 4;
  w.commutative = commutative;
  return w;
}
// A workload of `c` on the ranks of `hosts` (a host id per rank; the caller keeps the map).
Workload on_hosts(Collective c, std::size_t bytes, std::size_t elem_size,
                  const std::vector<int>& hosts) {
  Workload w;
  w.collective = c;
  w.nranks = static_cast<int>(hosts.size());
  w.bytes = bytes;
  w.elem_size = elem_size;
  w.hosts = hosts;
  return w;
}
}  // namespace

TEST_CASE("tune selector: the model prefers native for tiny and a schedule for huge allreduce") {
  Selector s;
  const Decision& small = s.decide(allreduce(2, 8));
  CHECK(small.source == Source::model);
  CHECK(small.choice.native());
  CHECK(contains(small.explanation, "predicted:"));
  const Decision& big = s.decide(allreduce(8, 64u << 20));
  CHECK_FALSE(big.choice.native());
  // Every model candidate serves the call: binomial_tree/pipelined_tree/ring/rhd for allreduce.
  CHECK(contains(big.explanation, "ring="));
  CHECK_FALSE(contains(big.explanation, "stragglar"));
}

TEST_CASE("tune selector: override, then table, then model") {
  Selector::Config c;
  c.overrides = Overrides::parse("allreduce:0-1K=rhd");
  c.table = TuningTable{};
  c.table->record({Collective::allreduce, 4, 4096, {{"native", 5.0}, {"ring", 3.0}}});
  c.table_origin = "t.json";
  Selector s(c);
  const Decision& a = s.decide(allreduce(4, 512));
  CHECK(a.source == Source::override_env);
  CHECK(a.choice.algorithm == "rhd");
  CHECK(contains(a.explanation, "rule 'allreduce:0-1K=rhd'"));
  const Decision& b = s.decide(allreduce(4, 8192));
  CHECK(b.source == Source::table);
  CHECK(b.choice.algorithm == "ring");
  CHECK(contains(b.explanation, "t.json at 4K (4 ranks)"));
  const Decision& m = s.decide(allreduce(3, 8192));  // the table has nothing for 3 ranks
  CHECK(m.source == Source::model);
}

TEST_CASE("tune selector: a choice that cannot serve the call is skipped and explained") {
  Selector::Config c;
  c.overrides = Overrides::parse("allreduce:*=ring");  // ring reorders: not for non-commutative
  c.table = TuningTable{};
  c.table->record({Collective::allreduce, 4, 64, {{"ring", 1.0}, {"rhd", 2.0}, {"native", 3.0}}});
  Selector s(c);
  const Decision& d = s.decide(allreduce(4, 64, false));
  CHECK(d.source == Source::table);
  CHECK(d.choice.algorithm != "ring");
  CHECK(contains(d.explanation, "CCLX_ALGO chose ring but ring reorders contributions"));
  CHECK(contains(d.explanation, "table chose ring but"));
  // The commutative call takes the override.
  CHECK(s.decide(allreduce(4, 64)).choice.algorithm == "ring");
}

TEST_CASE(
    "tune selector: a choice whose generator refuses the request is skipped with its reason") {
  // Declared for allgather, but a pipeline splits allreduce, reduce and bcast only: the generator
  // says so when asked for rank 0's program (generates()), without pricing the candidate.
  Selector::Config c;
  c.overrides = Overrides::parse("*:*=multilane_ring(pipeline=4)");
  Selector s(c);
  const std::vector<int> hosts = {0, 0, 0, 0, 1, 1, 1, 1};
  Workload w = allreduce(8, 1 << 20);
  w.collective = Collective::allgather;
  w.hosts = hosts;
  CHECK(can_serve(parse_candidate("multilane_ring(pipeline=4)"), w));
  CHECK_FALSE(generates(parse_candidate("multilane_ring(pipeline=4)"), w));
  const Decision& d = s.decide(w);
  CHECK(d.source == Source::model);
  CHECK(contains(d.explanation,
                 "CCLX_ALGO chose multilane_ring(pipeline=4) but multilane_ring: "
                 "pipeline=4: allgather does not split into segments"));
  w.collective = Collective::allreduce;  // there it runs
  CHECK(s.decide(w).source == Source::override_env);
}

TEST_CASE("tune selector: decisions depend only on the workload and config; AutoState keeps them") {
  Selector a, b;
  const Workload w = allreduce(5, 1 << 16);
  const Decision first = a.decide(w);
  CHECK(a.decide(w).choice == first.choice);
  CHECK(b.decide(w).choice == first.choice);
  CHECK(a.fingerprint() == b.fingerprint());
  // The one place a decision is kept: its workload's entry, the same on every call.
  AutoState state{Selector::Config{}};
  AutoState::Timing timing{};
  AutoState::Entry* e1 = nullptr;
  AutoState::Entry* e2 = nullptr;
  const Candidate& c1 = state.choose(w, false, timing, &e1);
  const Candidate& c2 = state.choose(w, false, timing, &e2);
  CHECK(e1 == e2);
  CHECK(&c1 == &e1->decision.choice);
  CHECK(&c2 == &c1);
  CHECK(c1 == first.choice);
  Selector::Config c;
  c.overrides = Overrides::parse("bcast:*=native");
  CHECK(Selector(c).fingerprint() != a.fingerprint());
}

TEST_CASE("tune model: native stands in with MPICH's choice; estimates grow with size") {
  const Predictor p = alpha_beta_model();
  const Workload w = allreduce(4, 1 << 20);
  CHECK(native_algorithm(allreduce(4, 8)) != "");
  CHECK(native_algorithm(w) == "rhd");
  const double ring_small = p(Candidate{"ring", {}}, allreduce(4, 1 << 10));
  const double ring_big = p(Candidate{"ring", {}}, w);
  CHECK(ring_small > 0);
  CHECK(ring_big > ring_small);
  CHECK(p(Candidate{"binomial_tree", {}}, Workload{Collective::alltoall, 4}) < 0);
}

TEST_CASE(
    "tune model: across hosts it charges each host's link and ranks the hierarchical "
    "policies") {
  using cclx::sched::Schedule;
  std::vector<int> consecutive(16), round_robin(16), alone(16), one_host(16, 0);
  for (int r = 0; r < 16; ++r) {
    consecutive[static_cast<std::size_t>(r)] = r / 8;
    round_robin[static_cast<std::size_t>(r)] = r % 2;
    alone[static_cast<std::size_t>(r)] = r;
  }
  Workload w = allreduce(16, 64u << 20);
  CHECK_FALSE(w.multi_host());
  w.hosts = alone;
  CHECK_FALSE(w.multi_host());  // every rank its own host: hierarchical = flat
  w.hosts = one_host;
  CHECK_FALSE(w.multi_host());
  for (const auto* map : {&consecutive, &round_robin}) {
    CAPTURE(map == &consecutive);
    w.hosts = *map;
    REQUIRE(w.multi_host());
    bool hierarchical = false;
    for (const Candidate& c : model_candidates(w))
      hierarchical = hierarchical || c.algorithm == "multilane_ring";
    CHECK(hierarchical);
    // A flat ring's bytes cross the hosts' links. With consecutive placement only two of its 16
    // neighbours are on another host; round-robin, every one is, and each host's link carries 8
    // ranks' bytes per step: the flat ring then costs several times its flat estimate, and a
    // multi-lane allreduce (1/8 of the data per lane across) wins.
    const Schedule ring = cclx::algo::generate_by_name("ring", w.request());
    const ModelParams m;
    const double across = estimate(ring, w.bytes, 4, m, 0, w.hosts);
    const double flat_estimate = estimate(ring, w.bytes, 4, m, 0);
    CHECK(across >= flat_estimate);
    if (map == &round_robin) {
      CHECK(across > 2 * flat_estimate);
      Selector s;
      const Decision& d = s.decide(w);
      CHECK(d.source == Source::model);
      CHECK(d.choice.algorithm.rfind("multilane_", 0) == 0);
      CHECK(contains(d.explanation, "multilane_ring="));
    }
    // Native stands in as MPICH's node-aware composition: a leader per host.
    CHECK(native_algorithm(w) == "leader_rhd");
    CHECK(native_algorithm(allreduce(16, 8)) == "recursive_doubling");
    Workload tiny = allreduce(16, 8);
    tiny.hosts = *map;
    CHECK(native_algorithm(tiny) == "leader_recursive_doubling");
  }
  // The hierarchical policies' pipelines are candidates where a segment holds 64 KiB or more; on
  // 2 hosts of 8 the model ranks a pipelined multi-lane allreduce first at 64 MiB (its phases
  // overlap: a step's intra-host transfers run beside the inter-host ones).
  w.hosts = consecutive;
  std::vector<long long> pipelines;
  for (const Candidate& c : model_candidates(w))
    if (c.algorithm == "multilane_rhd" && c.params.count("pipeline"))
      pipelines.push_back(c.params.at("pipeline"));
  CHECK(pipelines == std::vector<long long>{2, 4, 8});
  const Decision& piped = Selector{}.decide(w);
  CHECK(piped.choice.params.count("pipeline"));
  CHECK(contains(piped.explanation, "multilane_rhd(pipeline=4)="));
  Workload small = allreduce(16, 128u << 10);
  small.hosts = consecutive;
  std::size_t small_pipelines = 0;
  for (const Candidate& c : model_candidates(small))
    small_pipelines += c.params.count("pipeline") ? c.params.at("pipeline") : 0;
  CHECK(small_pipelines == 2 * 6);  // pipeline=2 of each of the six hierarchical policies
  // Without a map the hierarchical policies are not candidates (they would be their flat Inter).
  Selector flat;
  CHECK_FALSE(contains(flat.decide(allreduce(16, 64u << 20)).explanation, "multilane"));
}

TEST_CASE(
    "tune model: a host's links (ModelParams::inter_links) each carry the ranks placed on them") {
  using cclx::sched::Schedule;
  const std::vector<int> hosts = {0, 0, 0, 0, 1, 1, 1, 1};
  Workload w = allreduce(8, 16u << 20);
  w.hosts = hosts;
  ModelParams one;
  one.inter_beta = 1 / 25e6;  // a slow network, so that crossing dominates
  ModelParams four = one;
  four.inter_links = 4;
  // Multi-lane: lane l (local rank l of each host) carries a quarter of the data across; on four
  // links the lanes cross side by side, on one they queue on the host's link.
  const Schedule lanes = cclx::algo::generate_by_name("multilane_ring", w.request());
  const double lanes_one = estimate(lanes, w.bytes, 4, one, 0, w.hosts);
  const double lanes_four = estimate(lanes, w.bytes, 4, four, 0, w.hosts);
  CHECK(lanes_four < 0.3 * lanes_one);
  CHECK(lanes_four > 0.2 * lanes_one);
  // A flat ring crosses at one rank per host and direction: the links do not matter.
  const Schedule ring = cclx::algo::generate_by_name("ring", w.request());
  CHECK(estimate(ring, w.bytes, 4, four, 0, w.hosts) ==
        doctest::Approx(estimate(ring, w.bytes, 4, one, 0, w.hosts)));
  // Three links for four ranks: local ranks 0 and 3 share link 0, so the lanes take half of one
  // link's time (two lanes' bytes on the busiest link).
  ModelParams three = one;
  three.inter_links = 3;
  const double lanes_three = estimate(lanes, w.bytes, 4, three, 0, w.hosts);
  CHECK(lanes_three > 1.5 * lanes_four);
  CHECK(lanes_three < 0.6 * lanes_one);
  // More links than a host has ranks: the extra ones carry nothing (and cost no memory).
  ModelParams many = one;
  many.inter_links = 1 << 20;
  CHECK(estimate(lanes, w.bytes, 4, many, 0, w.hosts) == doctest::Approx(lanes_four));
}

TEST_CASE("tune model: a host link's bytes over the whole call bound its time") {
  // A flat pipelined tree (fanout 2, one segment) bcasting 256 KiB on 2 hosts of 4: rank 0 sends
  // to rank 5 in the first round, rank 1 (which receives within the host at once) to rank 4 in
  // the second. Each round charges host 0's link once, but the two crossings overlap in time and
  // share it: the call takes at least both messages' time on the link.
  const std::vector<int> hosts = {0, 0, 0, 0, 1, 1, 1, 1};
  const Workload w = on_hosts(Collective::bcast, 256u << 10, 1, hosts);
  ModelParams m;
  m.inter_beta = 1 / 25e6;
  const auto tree = cclx::algo::generate_by_name("pipelined_tree", w.request());
  const double link = static_cast<double>(w.bytes) * m.inter_beta;
  CHECK(estimate(tree, w.bytes, 1, m, 0, w.hosts) >= 2 * link);
  // A binomial tree crosses once (0 -> 4): one message's time.
  const auto binomial = cclx::algo::generate_by_name("binomial_tree", w.request());
  CHECK(estimate(binomial, w.bytes, 1, m, 0, w.hosts) < 1.1 * link);
  Selector::Config c;
  c.model_params = m;
  CHECK(Selector(c).decide(w).choice.algorithm != "pipelined_tree");
}

TEST_CASE("tune selector: the model's network comes from CCLX_NET_LATENCY, _BANDWIDTH and _LINKS") {
  namespace settings = cclx::settings;
  // 4 hosts of 2 ranks, a 1 MiB allgather: on the default 12.5 GB/s network the model ranks the
  // flat RHD first; told that each host has a 25 MB/s link, a node-aware schedule.
  const std::vector<int> hosts = {0, 0, 1, 1, 2, 2, 3, 3};
  const Workload w = on_hosts(Collective::allgather, 1u << 20, 4, hosts);
  const Selector fixed;
  const Decision plain = fixed.decide(w);
  CHECK(plain.choice.algorithm == "rhd");

  setenv("CCLX_NET_LATENCY", "30e-6", 1);
  setenv("CCLX_NET_BANDWIDTH", "25M", 1);
  setenv("CCLX_NET_LINKS", "2", 1);
  settings::reload();
  const ModelParams m = model_params_from_env();
  CHECK(m.inter_alpha == 30e-6);
  CHECK(m.inter_beta == doctest::Approx(1 / 25e6).epsilon(1e-12));
  CHECK(m.inter_links == 2);
  CHECK(m.beta == ModelParams{}.beta);  // the rest stays the measured default
  const Selector told(Selector::config_from_env());
  CHECK(told.fingerprint() != fixed.fingerprint());  // ranks must agree on the network too
  const Decision d = told.decide(w);
  CHECK(d.source == Source::model);
  CAPTURE(d.explanation);
  // explain() and CCLX_LOG=tune say which network the model assumed.
  CHECK(contains(d.explanation,
                 "(across hosts: CCLX_NET_LATENCY=3e-05 CCLX_NET_BANDWIDTH=25M CCLX_NET_LINKS=2)"));
  CHECK(contains(plain.explanation, "CCLX_NET_BANDWIDTH=12.5G"));
  CHECK_FALSE(contains(told.decide(allreduce(8, 1u << 20)).explanation, "across hosts"));
  CHECK((d.choice.algorithm.rfind("multilane_", 0) == 0 ||
         d.choice.algorithm.rfind("leader_", 0) == 0));

  setenv("CCLX_NET_BANDWIDTH", "100Gb/s", 1);
  settings::reload();
  CHECK_THROWS_WITH_AS((void)Selector::config_from_env(),
                       doctest::Contains("CCLX_NET_BANDWIDTH='100Gb/s': expected bytes per second"),
                       cclx::Error);
  unsetenv("CCLX_NET_LATENCY");
  unsetenv("CCLX_NET_BANDWIDTH");
  unsetenv("CCLX_NET_LINKS");
  settings::reload();
  CHECK(Selector(Selector::config_from_env()).fingerprint() == fixed.fingerprint());
}
