// α-β simulator: closed forms on homogeneous full meshes, bandwidth sharing, heterogeneous links,
// ports, start times, reduction cost, critical path, malformed schedules.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/sim/prologue.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/topology/profiler.hpp"

using namespace cclx;
using sched::Collective;
using topo::LinkCost;

namespace {

constexpr double kAlpha = 3e-6;
constexpr double kBw = 450e9;
constexpr double kBeta = 1.0 / kBw;

bool registered(std::string_view name) {
  for (const auto& g : cclx::algo::generators())
    if (g.name == name) return true;
  return false;
}

sched::Schedule make(std::string_view algo, Collective c, int n) {
  sched::ScheduleRequest req;
  req.collective = c;
  req.nranks = n;
  return cclx::algo::generate_by_name(algo, req);
}

sim::SimResult run_mesh(const sched::Schedule& s, std::size_t bytes) {
  sim::SimOptions o;
  o.bytes = bytes;
  return sim::simulate(s, topo::full_mesh(s.nranks, LinkCost::from_bandwidth(kAlpha, kBw)), o);
}

// Exact up to floating-point rounding of the accumulated sums.
doctest::Approx exact(double v) {
  return doctest::Approx(v).epsilon(1e-12);
}

// A one-step schedule of single-block point-to-point messages (nblocks = 1).
sched::Schedule messages(int n, const std::vector<std::pair<int, int>>& pairs) {
  sched::Schedule s;
  s.algorithm = "test";
  s.nranks = n;
  s.nblocks = 1;
  s.programs.resize(static_cast<std::size_t>(n));
  std::vector<sched::ProgramBuilder> b;
  for (auto& p : s.programs) b.emplace_back(p);
  for (const auto& [from, to] : pairs) {
    b[static_cast<std::size_t>(from)].send(to, sched::out(0));
    b[static_cast<std::size_t>(to)].recv(from, sched::scratch(0));
  }
  for (auto& x : b) x.end_step();
  return s;
}

}  // namespace

TEST_CASE("ring allreduce: 2(n-1)α + 2(n-1)/n·s·β") {
  for (const int n : {2, 3, 4, 5, 8, 13, 16, 64}) {
    const std::size_t s = static_cast<std::size_t>(n) * 1048576;  // divisible by n
    const auto r = run_mesh(make("ring", Collective::allreduce, n), s);
    const double expect = 2.0 * (n - 1) * kAlpha + 2.0 * (n - 1) / n * s * kBeta;
    CAPTURE(n);
    CHECK(r.time == exact(expect));
    for (const double t : r.rank_end) CHECK(t == exact(expect));  // symmetric: all end together
    CHECK(r.transfers == static_cast<std::uint64_t>(2 * n * (n - 1)));
    // The critical path is one transfer per step after the start.
    REQUIRE(!r.critical_path.empty());
    CHECK(r.critical_path.front().kind == sim::PathItem::Kind::start);
    CHECK(r.critical_path.size() == static_cast<std::size_t>(2 * (n - 1) + 1));
    CHECK(r.critical_path.back().end == exact(expect));
  }
}

TEST_CASE("recursive halving-doubling allreduce: 2·log2(n)·α + 2(n-1)/n·s·β") {
  if (!registered("rhd")) return;  // generator not in this build yet
  for (const int n : {2, 4, 8, 16, 32, 64}) {
    const std::size_t s = static_cast<std::size_t>(n) * 65536;
    const auto r = run_mesh(make("rhd", Collective::allreduce, n), s);
    const double expect = 2.0 * std::log2(n) * kAlpha + 2.0 * (n - 1) / n * s * kBeta;
    CAPTURE(n);
    CHECK(r.time == exact(expect));
  }
}

TEST_CASE("rhd_elimination allreduce: 2⌈log2 n⌉α + 2sβ(1.5 − 1/p), s·β less than the fold") {
  for (const int n : {3, 5, 6, 7, 12, 24}) {
    const int p = 1 << static_cast<int>(std::floor(std::log2(n)));
    const std::size_t s = static_cast<std::size_t>(p) * 65536;
    const auto r = run_mesh(make("rhd_elimination", Collective::allreduce, n), s);
    const double expect =
        2.0 * std::ceil(std::log2(n)) * kAlpha + 2.0 * s * kBeta * (1.5 - 1.0 / p);
    CAPTURE(n);
    CHECK(r.time == exact(expect));
    const auto fold = run_mesh(make("rhd", Collective::allreduce, n), s);
    CHECK(fold.time - r.time == doctest::Approx(s * kBeta).epsilon(1e-9));
  }
}

TEST_CASE("recursive doubling allreduce: log2 p (α + s·β), + 2(α + s·β) when n != p") {
  for (const int n : {2, 3, 4, 5, 7, 8, 16, 24}) {
    const double L = std::floor(std::log2(n));
    const std::size_t s = 1 << 16;
    const auto r = run_mesh(make("recursive_doubling", Collective::allreduce, n), s);
    const double rounds = L + ((n & (n - 1)) != 0 ? 2 : 0);
    CAPTURE(n);
    CHECK(r.time == exact(rounds * (kAlpha + s * kBeta)));
  }
}

TEST_CASE("dissemination barrier: ⌈log2 n⌉ α of empty messages") {
  for (const int n : {1, 2, 3, 5, 8, 13}) {
    const auto r = run_mesh(make("dissemination", Collective::barrier, n), 0);
    CAPTURE(n);
    CHECK(r.time == exact(std::ceil(std::log2(n)) * kAlpha));
  }
}

TEST_CASE("binomial-tree broadcast: ceil(log2 n)(α + s·β)") {
  if (!registered("binomial_tree")) return;
  for (const int n : {2, 3, 4, 5, 7, 8, 13, 16, 33}) {
    const std::size_t s = 1 << 20;
    const auto r = run_mesh(make("binomial_tree", Collective::bcast, n), s);
    const double expect = std::ceil(std::log2(n)) * (kAlpha + s * kBeta);
    CAPTURE(n);
    CHECK(r.time == exact(expect));
  }
}

TEST_CASE("StragglAR: R·α + R/(n-1)·s·β after a prologue hidden by the straggler") {
  if (!registered("stragglar")) return;
  int tested = 0;
  for (const int n : {3, 4, 5, 8, 9, 16, 32}) {
    sched::Schedule sc;
    try {
      sc = make("stragglar", Collective::allreduce, n);
    } catch (const Error&) {
      continue;  // a rank count the generator does not serve
    }
    const std::size_t s = static_cast<std::size_t>(n - 1) * 262144;  // divisible by n - 1
    const topo::Topology t = topo::full_mesh(n, LinkCost::from_bandwidth(kAlpha, kBw));
    const sim::Simulator simulator(t);
    sim::SimOptions o;
    o.bytes = s;
    const auto h = sim::simulate_hidden_prologue(simulator, sc, o);
    const double rounds = static_cast<double>(sc.num_rounds() - sc.prologue_steps);
    const double expect = rounds * kAlpha + rounds / (n - 1) * s * kBeta;
    CAPTURE(n);
    CHECK(h.late_ranks.size() == 1);
    // The prologue is a ring reduce-scatter of n-1 ranks: (n-2)(α + s/(n-1)·β).
    CHECK(h.prologue_end == exact((n - 2) * (kAlpha + static_cast<double>(s) / (n - 1) * kBeta)));
    CHECK(h.after_prologue == doctest::Approx(expect).epsilon(1e-10));
    ++tested;
  }
  CHECK(tested > 0);
}

TEST_CASE("two flows across one shared link take twice as long") {
  // Ranks 0 and 1 reach ranks 2 and 3 only through one link u -> v.
  topo::Topology t;
  for (int r = 0; r < 4; ++r) t.add_rank(-1);
  const auto u = t.add_switch("u"), v = t.add_switch("v");
  const LinkCost free{0, 0}, link = LinkCost::from_bandwidth(2e-6, 10e9);
  t.add_link(t.rank_vertex(0), u, free, topo::LinkKind::network);
  t.add_link(t.rank_vertex(1), u, free, topo::LinkKind::network);
  t.add_link(u, v, link, topo::LinkKind::network);
  t.add_link(v, t.rank_vertex(2), free, topo::LinkKind::network);
  t.add_link(v, t.rank_vertex(3), free, topo::LinkKind::network);
  sim::SimOptions o;
  o.bytes = 1 << 24;
  const double sb = o.bytes * link.beta;

  const auto one = sim::simulate(messages(4, {{0, 2}}), t, o);
  CHECK(one.time == exact(link.alpha + sb));
  const auto two = sim::simulate(messages(4, {{0, 2}, {1, 3}}), t, o);
  CHECK(two.time == doctest::Approx(link.alpha + 2 * sb).epsilon(1e-12));
  CHECK(two.rank_end[2] == doctest::Approx(link.alpha + 2 * sb).epsilon(1e-12));
  CHECK(two.rate_updates > 0);
  o.sharing = sim::Sharing::equal;
  CHECK(sim::simulate(messages(4, {{0, 2}, {1, 3}}), t, o).time ==
        doctest::Approx(link.alpha + 2 * sb).epsilon(1e-12));
}

TEST_CASE("a finishing flow hands its bandwidth to the flows that remain") {
  // Two messages share the link; the second is twice as large: both run at half rate until the
  // first ends at 2s·β, the rest (s) at full rate: 3s·β.
  topo::Topology t;
  for (int r = 0; r < 4; ++r) t.add_rank(-1);
  const auto u = t.add_switch("u"), v = t.add_switch("v");
  const double beta = 1e-10;
  for (int r : {0, 1}) t.add_link(t.rank_vertex(r), u, {0, 0}, topo::LinkKind::network);
  t.add_link(u, v, {0, beta}, topo::LinkKind::network);
  for (int r : {2, 3}) t.add_link(v, t.rank_vertex(r), {0, 0}, topo::LinkKind::network);
  sched::Schedule s = messages(4, {{0, 2}, {1, 3}});
  s.nblocks = 3;  // rank 0 sends block 0, rank 1 blocks 1..2
  s.programs[1].ops[0].src = sched::out(1, 2);
  s.programs[3].ops[0].dst = sched::scratch(1, 2);
  sim::SimOptions o;
  o.bytes = 3 << 20;
  const double sz = (1 << 20) * beta;
  const auto r = sim::simulate(s, t, o);
  CHECK(r.rank_end[2] == doctest::Approx(2 * sz).epsilon(1e-12));
  CHECK(r.rank_end[3] == doctest::Approx(3 * sz).epsilon(1e-12));
}

TEST_CASE("max-min fairness gives unused share to the flow that can use it") {
  // Flows A (0->2) and B (1->3) share link L (capacity C); B also crosses link M (capacity C/4).
  // Max-min: B = C/4, A = 3C/4. Equal sharing: A = C/2.
  topo::Topology t;
  for (int r = 0; r < 4; ++r) t.add_rank(-1);
  const auto u = t.add_switch("u"), v = t.add_switch("v"), w = t.add_switch("w");
  const double beta = 1e-10;
  for (int r : {0, 1}) t.add_link(t.rank_vertex(r), u, {0, 0}, topo::LinkKind::network);
  t.add_link(u, v, {0, beta}, topo::LinkKind::network);
  t.add_link(v, t.rank_vertex(2), {0, 0}, topo::LinkKind::network);
  t.add_link(v, w, {0, 4 * beta}, topo::LinkKind::network);
  t.add_link(w, t.rank_vertex(3), {0, 0}, topo::LinkKind::network);
  // Rank 1 reaches rank 3 only via v -> w; rank 0 reaches 2 directly after v.
  sim::SimOptions o;
  o.bytes = 1 << 20;
  const double sb = o.bytes * beta;
  const auto mm = sim::simulate(messages(4, {{0, 2}, {1, 3}}), t, o);
  CHECK(mm.rank_end[2] == doctest::Approx(sb * 4 / 3).epsilon(1e-12));
  CHECK(mm.rank_end[3] == doctest::Approx(4 * sb).epsilon(1e-12));
  o.sharing = sim::Sharing::equal;
  const auto eq = sim::simulate(messages(4, {{0, 2}, {1, 3}}), t, o);
  CHECK(eq.rank_end[2] == doctest::Approx(2 * sb).epsilon(1e-12));
  CHECK(eq.rank_end[3] == doctest::Approx(4 * sb).epsilon(1e-12));
}

TEST_CASE("a slow host NIC slows exactly the messages that cross it") {
  const LinkCost intra = LinkCost::from_bandwidth(1e-6, 400e9);
  const double inter_alpha = 5e-6, bw = 50e9;
  // Two ranks per host; host 2 has a NIC four times slower.
  const topo::Topology t = topo::per_host_bandwidth(2, intra, inter_alpha, {bw, bw, bw / 4, bw});
  sim::SimOptions o;
  o.bytes = 1 << 22;
  const double s = static_cast<double>(o.bytes);
  // 0 -> 2 crosses hosts 0 -> 1 only; 4 -> 6 and 5 -> 1 both leave the slow host 2. No two
  // messages share any other NIC.
  const auto r = sim::simulate(messages(8, {{0, 2}, {4, 6}, {5, 1}}), t, o);
  CHECK(r.rank_end[2] == exact(inter_alpha + s / bw));
  // Ranks 4 and 5 share host 2's uplink (bw/4): each gets bw/8.
  CHECK(r.rank_end[6] == doctest::Approx(inter_alpha + 8 * s / bw).epsilon(1e-12));
  CHECK(r.rank_end[1] == doctest::Approx(inter_alpha + 8 * s / bw).epsilon(1e-12));
  // Alone, a message from the slow host takes 4x; intra-host traffic never sees the NIC.
  const auto alone = sim::simulate(messages(8, {{4, 6}, {0, 1}}), t, o);
  CHECK(alone.rank_end[6] == exact(inter_alpha + 4 * s / bw));
  CHECK(alone.rank_end[1] == exact(intra.alpha + s * intra.beta));
}

TEST_CASE("one slow link in a ring paces every step of the ring") {
  const int n = 6;
  topo::Topology t = topo::full_mesh(n, LinkCost::from_bandwidth(kAlpha, kBw));
  const LinkCost slow = LinkCost::from_bandwidth(kAlpha, kBw / 3);
  t.set_link_cost(*t.find_link(t.rank_vertex(1), t.rank_vertex(2)), slow);
  sim::SimOptions o;
  o.bytes = static_cast<std::size_t>(n) << 20;
  const auto r = sim::simulate(make("ring", Collective::allreduce, n), t, o);
  const double step = slow.alpha + static_cast<double>(o.bytes) / n * slow.beta;
  CHECK(r.time == exact(2.0 * (n - 1) * step));
  // Every transfer on the critical path is the slow one.
  for (const auto& p : r.critical_path)
    if (p.kind == sim::PathItem::Kind::transfer) {
      CHECK(p.rank == 1);
      CHECK(p.peer == 2);
    }
}

TEST_CASE("single-port ranks serialize their sends; more ports overlap them") {
  const topo::Topology t = topo::full_mesh(4, LinkCost::from_bandwidth(kAlpha, kBw));
  const auto s = messages(4, {{0, 1}, {0, 2}, {0, 3}});
  sim::SimOptions o;
  o.bytes = 1 << 20;
  const double one = kAlpha + o.bytes * kBeta;
  CHECK(sim::simulate(s, t, o).time == exact(3 * one));
  o.ports = 0;  // unlimited
  CHECK(sim::simulate(s, t, o).time == exact(one));
  o.ports = 2;
  CHECK(sim::simulate(s, t, o).time == exact(2 * one));
}

TEST_CASE("per-message overhead: a lone message pays it at both ends, a rank's messages in turn") {
  topo::Topology t = topo::full_mesh(4, LinkCost::from_bandwidth(kAlpha, kBw), 0);
  const double o = 50e-6;
  sim::SimOptions so;
  so.bytes = 1 << 20;
  const double one = kAlpha + so.bytes * kBeta;
  const auto fan = messages(4, {{0, 1}, {0, 2}, {0, 3}});
  CHECK(sim::simulate(fan, t, so).time == exact(one));  // no overhead: unlimited ports overlap
  for (int r = 0; r < 4; ++r) t.set_overhead(r, o);
  CHECK(sim::simulate(messages(4, {{0, 1}}), t, so).time == exact(o + one + o));
  // Rank 0 hands its three messages over one after the other; each receiver pays its own o.
  CHECK(sim::simulate(fan, t, so).time == exact(3 * o + one + o));
  // A receiver with three incoming messages at once takes them in turn.
  CHECK(sim::simulate(messages(4, {{1, 0}, {2, 0}, {3, 0}}), t, so).time == exact(o + one + 3 * o));
  // A rank's sends and receives share its CPU: both directions of an exchange on each rank.
  CHECK(sim::simulate(messages(2, {{0, 1}, {1, 0}}), t, so).time == exact(o + one + o));
  // The same k small messages each way on every rank of a ring cost 2·k·o: what the profiler's
  // burst measures (profiler.hpp).
  std::vector<std::pair<int, int>> ring;
  const int k = 16;
  for (int i = 0; i < k; ++i)
    for (int r = 0; r < 4; ++r) ring.emplace_back(r, (r + 1) % 4);
  so.bytes = 8;
  const double t16 = sim::simulate(messages(4, ring), t, so).time;
  ring.resize(ring.size() / 2);
  const double t8 = sim::simulate(messages(4, ring), t, so).time;
  CHECK((t16 - t8) / (k / 2) / 2 == doctest::Approx(o).epsilon(1e-9));
  CHECK_THROWS_AS(t.set_overhead(0, -1e-6), Error);
}

TEST_CASE("profiled topology: a pair alone costs its fit; a rank's messages share its NIC") {
  // Three hosts: rank 0 and 1 fast (24 MB/s between them), rank 2 slow (6 MB/s to both).
  const double fast = 1.0 / 24e6, slow = 1.0 / 6e6, a = 1e-4;
  topo::Profile p;
  p.nranks = 3;
  p.pairs = {{0, 1, {a, fast, 0, 0, 6}, 3},
             {0, 2, {a, slow, 0, 0, 6}, 3},
             {1, 2, {2 * a, slow, 0, 0, 6}, 3}};
  const topo::Topology t = topo::topology_from_profile({{0, 1, 2}, {"h0", "h1", "h2"}}, p);
  for (int r = 0; r < 3; ++r) CHECK(t.graph()[t.rank_vertex(r)].ports == 0);
  sim::SimOptions o;
  o.bytes = 1 << 20;
  const double b = o.bytes;
  CHECK(sim::simulate(messages(3, {{1, 2}}), t, o).time == exact(2 * a + b * slow));
  CHECK(sim::simulate(messages(3, {{0, 1}}), t, o).time == exact(a + b * fast));
  // Rank 0 takes the slow rank's and the fast rank's message at once: the slow one at its own
  // rate, the fast one at what is left of rank 0's 24 MB/s (18 MB/s while both run).
  const double together = sim::simulate(messages(3, {{2, 0}, {1, 0}}), t, o).time;
  CHECK(together == doctest::Approx(a + b * slow).epsilon(1e-9));
  // Likewise its two sends: the slow peer's at 6 MB/s, the fast one's with the other 18.
  CHECK(sim::simulate(messages(3, {{0, 2}, {0, 1}}), t, o).time ==
        doctest::Approx(a + b * slow).epsilon(1e-9));
}

TEST_CASE("a late rank delays the ring by exactly its delay") {
  const int n = 8;
  const auto sc = make("ring", Collective::allreduce, n);
  const topo::Topology t = topo::full_mesh(n, LinkCost::from_bandwidth(kAlpha, kBw));
  sim::SimOptions o;
  o.bytes = static_cast<std::size_t>(n) << 20;
  const double base = sim::simulate(sc, t, o).time;
  o.start_time.assign(n, 0.0);
  o.start_time[3] = 1e-3;
  const auto r = sim::simulate(sc, t, o);
  CHECK(r.time == exact(base + 1e-3));
  CHECK(r.critical_path.front().rank == 3);  // the path starts at the straggler
  CHECK(r.critical_path.front().start == 1e-3);
}

TEST_CASE("reduction cost γ adds γ·s/n per reduce-scatter step of the ring") {
  const int n = 8;
  const auto sc = make("ring", Collective::allreduce, n);
  const topo::Topology t = topo::full_mesh(n, LinkCost::from_bandwidth(kAlpha, kBw));
  sim::SimOptions o;
  o.bytes = static_cast<std::size_t>(n) << 20;
  o.gamma = 1.0 / 100e9;
  const double chunk = static_cast<double>(o.bytes) / n;
  const auto r = sim::simulate(sc, t, o);
  const double expect = 2.0 * (n - 1) * (kAlpha + chunk * kBeta) + (n - 1) * chunk * o.gamma;
  CHECK(r.time == exact(expect));
  const auto locals = std::count_if(r.critical_path.begin(), r.critical_path.end(),
                                    [](auto& p) { return p.kind == sim::PathItem::Kind::local; });
  CHECK(locals == n - 1);
}

TEST_CASE("two-level machine: inter-host hops cost more than intra-host ones") {
  topo::Hierarchy h;
  h.intra = LinkCost::from_bandwidth(1e-6, 450e9);
  h.inter = LinkCost::from_bandwidth(5e-6, 50e9);
  const topo::Topology t = topo::two_level(4, 4, h);
  const auto sc = make("ring", Collective::allreduce, 16);
  sim::SimOptions o;
  o.bytes = 16 << 20;
  const auto r = sim::simulate(sc, t, o);
  // The ring crosses a host boundary every 4 ranks; those hops (one flow per NIC) pace each step.
  const double step = h.inter.alpha + static_cast<double>(o.bytes) / 16 * h.inter.beta;
  CHECK(r.time == exact(2.0 * 15 * step));
}

TEST_CASE("1024-rank ring runs without recording the critical path") {
  const int n = 1024;
  const auto sc = make("ring", Collective::allreduce, n);
  const topo::Topology t = topo::full_mesh(n, LinkCost::from_bandwidth(kAlpha, kBw));
  sim::SimOptions o;
  o.bytes = std::size_t{1} << 30;
  o.critical_path = false;
  const auto r = sim::Simulator(t).run(sc, o);
  const double s = static_cast<double>(o.bytes);
  CHECK(r.time ==
        doctest::Approx(2.0 * (n - 1) * kAlpha + 2.0 * (n - 1) / n * s * kBeta).epsilon(1e-12));
  CHECK(r.critical_path.empty());
  CHECK(r.rate_updates == 0);  // a full mesh with single-port ranks never shares a link
}

TEST_CASE("malformed schedules are reported, not simulated") {
  const topo::Topology t = topo::full_mesh(3, LinkCost::from_bandwidth(kAlpha, kBw));
  sim::SimOptions o;
  o.bytes = 1024;
  // A send without a receive.
  sched::Schedule s = messages(3, {{0, 1}});
  s.programs[1] = sched::Program{};
  sched::ProgramBuilder(s.programs[1]).end_step();
  CHECK_THROWS_AS((void)sim::simulate(s, t, o), Error);
  // A receive nobody sends: deadlock.
  sched::Schedule d = messages(3, {{0, 1}});
  sched::ProgramBuilder(d.programs[2]).recv(0, sched::scratch(0)).end_step();
  CHECK_THROWS_AS((void)sim::simulate(d, t, o), Error);
  // Too few topology ranks.
  CHECK_THROWS_AS((void)sim::simulate(messages(4, {{0, 3}}), t, o), Error);
}
