// Topology model: builders, routes, JSON round trip, GraphViz, probe rounds, α-β fitting.
#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <set>

#include "cclx/error.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/topology/fit.hpp"
#include "cclx/topology/graphviz.hpp"
#include "cclx/topology/rounds.hpp"
#include "cclx/topology/routes.hpp"
#include "cclx/topology/topology_json.hpp"

using namespace cclx::topo;

TEST_CASE("full mesh: one direct link per ordered pair, routes of one hop") {
  const LinkCost c = LinkCost::from_bandwidth(3e-6, 450e9);
  const Topology t = full_mesh(6, c);
  CHECK(t.nranks() == 6);
  CHECK(t.num_links() == 30);
  const RouteTable rt(t);
  for (int a = 0; a < 6; ++a)
    for (int b = 0; b < 6; ++b) {
      const Route r = rt.route(a, b);
      if (a == b) {
        CHECK(r.links.empty());
        CHECK(r.alpha == 0);
        continue;
      }
      REQUIRE(r.links.size() == 1);
      const EdgeId e = t.edge(r.links[0]);
      CHECK(boost::source(e, t.graph()) == t.rank_vertex(a));
      CHECK(boost::target(e, t.graph()) == t.rank_vertex(b));
      CHECK(r.alpha == c.alpha);
      CHECK(r.beta == c.beta);
    }
}

TEST_CASE("two-level: intra-host links direct, inter-host via NIC, switch, NIC") {
  Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 400e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  h.pcie = LinkCost::from_bandwidth(0.5e-6, 64e9);
  const Topology t = two_level(3, 4, h);
  CHECK(t.nranks() == 12);
  CHECK(t.nhosts() == 3);
  CHECK(t.host_of(5) == 1);
  const RouteTable rt(t);
  const Route in = rt.route(4, 7);
  REQUIRE(in.links.size() == 1);
  CHECK(t.link(in.links[0]).kind == LinkKind::intra_host);
  CHECK(in.alpha == h.intra.alpha);

  const Route out = rt.route(1, 9);
  REQUIRE(out.links.size() == 4);  // rank -> NIC -> switch -> NIC -> rank
  CHECK(t.link(out.links[0]).kind == LinkKind::pcie);
  CHECK(t.link(out.links[1]).kind == LinkKind::network);
  CHECK(t.link(out.links[2]).kind == LinkKind::network);
  CHECK(t.link(out.links[3]).kind == LinkKind::pcie);
  CHECK(out.alpha == doctest::Approx(h.pcie.alpha * 2 + h.inter.alpha));
  CHECK(out.beta == h.inter.beta);  // the slowest link of the path
}

TEST_CASE("two-level with several NICs per host spreads local ranks over them") {
  Hierarchy h;
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  h.nics_per_host = 2;
  const Topology t = two_level(2, 4, h);
  const RouteTable rt(t);
  // Local ranks 0 and 1 leave host 0 through different NICs.
  CHECK(rt.route(0, 4).links[1] != rt.route(1, 4).links[1]);
  CHECK(rt.route(0, 4).links[1] == rt.route(2, 4).links[1]);
}

TEST_CASE("two-level with cyclic placement deals the ranks round the hosts") {
  Hierarchy h;
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  h.nics_per_host = 2;
  const Topology t = two_level(3, 2, h, Placement::cyclic);
  REQUIRE(t.nranks() == 6);
  for (int r = 0; r < 6; ++r) CHECK(t.host_of(r) == r % 3);
  const RouteTable rt(t);
  CHECK(rt.route(0, 3).links.size() == 1);  // ranks 0 and 3 share host 0
  CHECK(rt.route(0, 1).links.size() == 4);
  // Rank 3 is host 0's second rank: it leaves through the host's other NIC.
  CHECK(rt.route(0, 1).links[1] != rt.route(3, 1).links[1]);
  const Topology j = topology_from_json(R"({"builder":"two_level","hosts":3,"ranks_per_host":2,
      "intra":{"alpha":1e-6,"bw":4e11},"inter":{"alpha":5e-6,"bw":2.5e10},"placement":"cyclic"})");
  for (int r = 0; r < 6; ++r) CHECK(j.host_of(r) == r % 3);
  CHECK_THROWS_WITH_AS((void)topology_from_json(R"({"builder":"two_level","hosts":3,
      "ranks_per_host":2,"intra":{"alpha":0,"bw":1},"inter":{"alpha":0,"bw":1},
      "placement":"scattered"})"),
                       doctest::Contains("placement must be"), cclx::Error);
}

TEST_CASE("routes prefer lower latency among minimum-hop paths") {
  Topology t;
  const auto a = t.add_rank(-1), b = t.add_rank(-1);
  const auto s1 = t.add_switch("slow"), s2 = t.add_switch("fast");
  t.add_link(a, s1, {5e-6, 1e-9}, LinkKind::network);
  t.add_link(s1, b, {5e-6, 1e-9}, LinkKind::network);
  t.add_link(a, s2, {1e-6, 1e-9}, LinkKind::network);
  t.add_link(s2, b, {1e-6, 1e-9}, LinkKind::network);
  const RouteTable rt(t);
  CHECK(rt.route(0, 1).alpha == doctest::Approx(2e-6));
  CHECK_THROWS_AS((void)rt.route(1, 0), cclx::Error);  // no link back
}

TEST_CASE("lazy route rows above the precompute limit agree with precomputed ones") {
  Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 400e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  const Topology t = two_level(4, 3, h);
  const RouteTable eager(t), lazy(t, 0);
  for (int a = 0; a < 12; ++a)
    for (int b = 0; b < 12; ++b) {
      const Route x = eager.route(a, b), y = lazy.route(a, b);
      CHECK(std::vector<std::uint32_t>(x.links.begin(), x.links.end()) ==
            std::vector<std::uint32_t>(y.links.begin(), y.links.end()));
      CHECK(x.alpha == y.alpha);
      CHECK(x.beta == y.beta);
    }
}

TEST_CASE("route table of a 1024-rank full mesh") {
  const Topology t = full_mesh(1024, LinkCost::from_bandwidth(3e-6, 450e9));
  CHECK(t.num_links() == 1024u * 1023u);
  const RouteTable rt(t);
  CHECK(rt.route(1023, 0).links.size() == 1);
  CHECK(rt.route(17, 900).alpha == 3e-6);
}

TEST_CASE("JSON round trip keeps vertices, links and costs") {
  Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 400e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  h.host_inter = {h.inter, LinkCost::from_bandwidth(7e-6, 10e9)};
  Topology t = two_level(2, 3, h);
  t.set_ports(4, 2);
  t.set_overhead(3, 4.5e-5);
  const std::string text = to_json(t);
  const Topology u = topology_from_json(text);
  CHECK(to_json(u) == text);
  REQUIRE(u.nranks() == t.nranks());
  REQUIRE(u.num_links() == t.num_links());
  CHECK(u.host_names() == t.host_names());
  for (std::uint32_t l = 0; l < t.num_links(); ++l) {
    CHECK(u.link(l).alpha == t.link(l).alpha);
    CHECK(u.link(l).beta == t.link(l).beta);
    CHECK(u.link(l).kind == t.link(l).kind);
    CHECK(boost::source(u.edge(l), u.graph()) == boost::source(t.edge(l), t.graph()));
    CHECK(boost::target(u.edge(l), u.graph()) == boost::target(t.edge(l), t.graph()));
  }
  CHECK(u.graph()[u.rank_vertex(4)].ports == 2);
  CHECK(u.graph()[u.rank_vertex(3)].overhead == 4.5e-5);
  CHECK(u.graph()[u.rank_vertex(2)].overhead == 0);
  CHECK(u.host_of(4) == 1);
}

TEST_CASE("JSON builder form and bandwidth shorthand") {
  const Topology m =
      topology_from_json(R"({"builder":"full_mesh","nranks":4,"alpha":2e-6,"bw":1e9})");
  CHECK(m.num_links() == 12);
  CHECK(m.link(0).beta == doctest::Approx(1e-9));
  CHECK(m.graph()[m.rank_vertex(3)].overhead == 0);
  const Topology mo = topology_from_json(
      R"({"builder":"full_mesh","nranks":4,"alpha":2e-6,"bw":1e9,"overhead":3e-5})");
  for (int r = 0; r < 4; ++r) CHECK(mo.graph()[mo.rank_vertex(r)].overhead == 3e-5);
  CHECK_THROWS_AS((void)topology_from_json(
                      R"({"builder":"full_mesh","nranks":2,"alpha":0,"bw":1,"overhead":-1})"),
                  cclx::Error);
  const Topology t = topology_from_json(R"({"builder":"two_level","hosts":2,"ranks_per_host":2,
      "intra":{"alpha":1e-6,"bw":4e11},"inter":{"alpha":5e-6,"bw":2.5e10}})");
  CHECK(t.nranks() == 4);
  CHECK(RouteTable(t).route(0, 3).links.size() == 4);
  const Topology e = topology_from_json(R"({"vertices":[{"kind":"rank"},{"kind":"rank"}],
      "links":[{"from":0,"to":1,"alpha":1e-6,"bw":1e9,"duplex":true}]})");
  CHECK(e.num_links() == 2);
  CHECK_THROWS_AS((void)topology_from_json("{"), cclx::Error);
  CHECK_THROWS_AS((void)topology_from_json(R"({"vertices":[{"kind":"rank"}],
      "links":[{"from":0,"to":3}]})"),
                  cclx::Error);
  CHECK_THROWS_AS((void)topology_from_json(R"({"builder":"torus"})"), cclx::Error);
}

TEST_CASE("GraphViz export labels links with latency and bandwidth") {
  Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 400e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  const Topology t = two_level(2, 2, h);
  const std::string dot = to_dot(t);
  CHECK(dot.find("digraph") != std::string::npos);
  CHECK(dot.find("400 GB/s") != std::string::npos);
  CHECK(dot.find("5 us") != std::string::npos);
  CHECK(dot.find("dir=both") != std::string::npos);  // duplex intra-host pairs drawn once
  CHECK(dot.find("host1/nic0") != std::string::npos);
}

TEST_CASE("GraphViz export escapes names that hold quotes, backslashes and line breaks") {
  Topology t;
  const int h = t.add_host("rack \"A\"\\x\ny");
  t.add_rank(h);
  t.add_rank(h);
  t.add_duplex(t.rank_vertex(0), t.rank_vertex(1), LinkCost::from_bandwidth(1e-6, 1e9),
               LinkKind::intra_host);
  const std::string dot = to_dot(t);
  CHECK_MESSAGE(dot.find(R"(r0\nrack \"A\"\\x\ny")") != std::string::npos, dot);
  CHECK(dot.find('\n' + std::string("y")) == std::string::npos);  // no raw line break in a label
}

TEST_CASE("topology: an unknown link or rank is a cclx::Error that names it") {
  const Topology t = full_mesh(3, LinkCost::from_bandwidth(1e-6, 1e9));
  const auto n = static_cast<std::uint32_t>(t.num_links());
  const std::string missing = "link " + std::to_string(n) + " out of range";
  CHECK_THROWS_WITH_AS((void)t.link(n), doctest::Contains(missing.c_str()), cclx::Error);
  CHECK_THROWS_AS((void)t.edge(n), cclx::Error);
  Topology u = t;
  CHECK_THROWS_AS(u.set_link_cost(n, LinkCost{}), cclx::Error);
  CHECK_THROWS_WITH_AS((void)t.host_of(3), doctest::Contains("rank 3"), cclx::Error);
  CHECK(t.link(n - 1).id == n - 1);
}

TEST_CASE("interference-free rounds: matchings that cover every pair once") {
  for (int n = 1; n <= 17; ++n) {
    const auto rounds = interference_free_rounds(n);
    CHECK(rounds.size() == static_cast<std::size_t>(n % 2 == 0 ? n - 1 : n));
    std::set<std::pair<int, int>> seen;
    for (const auto& round : rounds) {
      std::set<int> busy;
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(b < n);
        CHECK(busy.insert(a).second);  // one flow per port per round
        CHECK(busy.insert(b).second);
        CHECK(seen.insert({a, b}).second);
      }
    }
    CHECK(seen.size() == static_cast<std::size_t>(n * (n - 1) / 2));
  }
}

TEST_CASE("interference-free rounds on hosts: one probe between hosts per host and round") {
  const std::vector<std::vector<int>> maps = {
      {0, 0, 1, 1},                    // 2 hosts x 2
      {0, 0, 0, 0, 1, 1, 1, 1},        // 2 x 4
      {0, 1, 0, 1, 0, 1, 0, 1},        // 2 x 4, round-robin
      {0, 0, 1, 1, 2, 2, 3, 3},        // 4 x 2
      {0, 0, 0, 1, 1, 2, 2, 2, 2, 3},  // uneven
      {0, 1, 2, 3, 4},                 // one rank per host: the plain rounds
      {0, 0, 0},                       // one host
  };
  for (const auto& hosts : maps) {
    const int n = static_cast<int>(hosts.size());
    CAPTURE(n);
    const auto rounds = interference_free_rounds(hosts);
    std::set<std::pair<int, int>> seen;
    int across = 0;
    for (const auto& round : rounds) {
      CHECK_FALSE(round.empty());
      std::set<int> busy, busy_hosts;
      for (const auto& [a, b] : round) {
        CHECK(a < b);
        CHECK(b < n);
        CHECK(busy.insert(a).second);
        CHECK(busy.insert(b).second);
        CHECK(seen.insert({a, b}).second);
        const int ha = hosts[static_cast<std::size_t>(a)], hb = hosts[static_cast<std::size_t>(b)];
        if (ha != hb) {
          ++across;
          CHECK(busy_hosts.insert(ha).second);  // one probe through each host's link
          CHECK(busy_hosts.insert(hb).second);
        }
      }
    }
    CHECK(seen.size() == static_cast<std::size_t>(n * (n - 1) / 2));
    std::set<int> distinct(hosts.begin(), hosts.end());
    if (distinct.size() == hosts.size() || distinct.size() == 1)
      CHECK(rounds == interference_free_rounds(n));  // nothing shares a host link
    if (distinct.size() == 2)  // 2 hosts: every pair between them is a round of its own
      CHECK(rounds.size() >= static_cast<std::size_t>(across));
  }
}

TEST_CASE("α-β fit recovers synthetic links") {
  const double alpha = 2.5e-6, beta = 1.0 / 12e9;
  std::vector<TimingSample> exact;
  for (double s : {8.0, 1024.0, 16384.0, 131072.0, 1048576.0, 4194304.0})
    exact.push_back({s, alpha + beta * s});
  const AlphaBetaFit f = fit_alpha_beta(exact);
  CHECK(f.alpha == doctest::Approx(alpha).epsilon(1e-9));
  CHECK(f.beta == doctest::Approx(beta).epsilon(1e-9));
  CHECK(f.rms_residual < 1e-15);
  CHECK(f.samples == 6);

  // ±2% multiplicative noise, several repetitions per size.
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> noise(0.98, 1.02);
  std::vector<TimingSample> noisy;
  for (int rep = 0; rep < 20; ++rep)
    for (const auto& s : exact) noisy.push_back({s.bytes, s.seconds * noise(rng)});
  const AlphaBetaFit g = fit_alpha_beta(noisy);
  CHECK(g.alpha == doctest::Approx(alpha).epsilon(0.03));
  CHECK(g.beta == doctest::Approx(beta).epsilon(0.03));
  CHECK(g.rel_residual > 0.001);
  CHECK(g.rel_residual < 0.02);
}

TEST_CASE("α-β fit pins a negative latency to zero and rejects degenerate input") {
  // Times that fall below a line through the origin at small sizes would give α < 0.
  const std::vector<TimingSample> s = {{1000, 0.5e-6}, {2000, 2e-6}, {4000, 4e-6}};
  const AlphaBetaFit f = fit_alpha_beta(s);
  CHECK(f.alpha == 0);
  CHECK(f.beta > 0);
  const std::vector<TimingSample> one = {{8, 1e-6}, {8, 2e-6}};
  CHECK_THROWS_AS((void)fit_alpha_beta(one), cclx::Error);
  const std::vector<TimingSample> zero = {{8, 0}, {16, 1e-6}};
  CHECK_THROWS_AS((void)fit_alpha_beta(zero), cclx::Error);
}

TEST_CASE("copies and moves keep link ids pointing into their own graph") {
  Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 400e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 25e9);
  Topology t = two_level(2, 3, h);
  const Topology copy = t;
  Topology tmp = t;
  const Topology moved = std::move(tmp);
  Topology assigned;
  assigned = copy;
  t.set_link_cost(0, {9, 9});  // must not show through any copy
  for (const Topology* u : std::initializer_list<const Topology*>{&copy, &moved, &assigned}) {
    REQUIRE(u->num_links() == t.num_links());
    CHECK(u->link(0).alpha == h.intra.alpha);
    for (std::uint32_t l = 0; l < u->num_links(); ++l) {
      CHECK(u->link(l).id == l);
      CHECK(&u->link(l) != &t.link(l));
    }
    CHECK(RouteTable(*u).route(0, 4).beta == h.inter.beta);
  }
}

TEST_CASE("α-β fit of a token-bucket link: the anchored fit keeps the large-message rate") {
  // What a tbf-shaped 23.9 MB/s link with an 80 KB burst measured (ping-pong medians, one way):
  // small messages pass at line rate, large ones at the shaped rate.
  const std::vector<TimingSample> tbf = {{8, 11e-6},       {1024, 9e-6},      {8192, 11e-6},
                                         {65536, 1.26e-3}, {524288, 18.8e-3}, {4194304, 174.3e-3}};
  const AlphaBetaFit rel = fit_alpha_beta(tbf);
  CHECK(rel.bandwidth() > 1.3 * 23.9e6);  // the relative fit lets the small sizes decide β
  const AlphaBetaFit a = fit_alpha_beta_anchored(tbf);
  CHECK(a.bandwidth() == doctest::Approx((4194304.0 - 524288) / (174.3e-3 - 18.8e-3)));
  CHECK(a.bandwidth() == doctest::Approx(23.9e6).epsilon(0.02));
  CHECK(a.alpha >= 0);
  CHECK(a.alpha < 11e-6);
  const AlphaBetaFit l = fit_link(tbf);
  CHECK(l.beta == a.beta);
  // On a linear link fit_link keeps the relative fit.
  const std::vector<TimingSample> lin = {{8, 5e-6 + 8e-9}, {1e6, 5e-6 + 1e-3}, {4e6, 5e-6 + 4e-3}};
  const AlphaBetaFit r2 = fit_alpha_beta(lin), l2 = fit_link(lin);
  CHECK(l2.alpha == r2.alpha);
  CHECK(l2.beta == r2.beta);
  // Repeated sizes: medians per size.
  const std::vector<TimingSample> rep = {{8, 1e-5},   {8, 3e-5},   {8, 2e-5},   {1e6, 1e-2},
                                         {1e6, 1e-2}, {2e6, 2e-2}, {2e6, 2e-2}, {2e6, 9}};
  CHECK(fit_alpha_beta_anchored(rep).beta == doctest::Approx(1e-8));
}
