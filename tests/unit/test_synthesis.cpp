// Tree synthesis (relay/synthesis.hpp): every synthesized schedule passes the verifier, on the
// heterogeneous topologies of docs/algorithms/adaptive.md, n = 1..16, each collective, several
// sizes; synthesis is deterministic and never worse in simulation than its par-trees start.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/relay/simulate.hpp"
#include "cclx/relay/synthesis.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/verifier.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/topology/egress.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cclx/tune/model.hpp"
#include "sweep_limit.hpp"

using namespace cclx;
using sched::Collective;
using topo::LinkCost;

namespace {

// The shapes of the comparison: a full mesh with one slow rank's links, two link classes (half
// the hosts at a quarter of the rate), and a two-level machine (hosts of two ranks).
topo::Topology make(int kind, int n) {
  const LinkCost fast = LinkCost::from_bandwidth(5e-6, 12.5e9);
  switch (kind) {
    case 0: {  // one slow host
      std::vector<double> bw(static_cast<std::size_t>(n), 12.5e9);
      bw.back() = 12.5e9 / 4;
      return topo::per_host_bandwidth(1, LinkCost::from_bandwidth(1e-6, 100e9), 5e-6, bw);
    }
    case 1: {  // two classes of hosts
      std::vector<double> bw(static_cast<std::size_t>(n), 12.5e9);
      for (int h = 0; h < n; h += 2) bw[static_cast<std::size_t>(h)] = 12.5e9 / 4;
      return topo::per_host_bandwidth(1, LinkCost::from_bandwidth(1e-6, 100e9), 5e-6, bw);
    }
    case 2: {  // two-level: hosts of two ranks (the last host may hold one)
      std::vector<int> host(static_cast<std::size_t>(n));
      std::vector<std::string> names;
      for (int r = 0; r < n; ++r) host[static_cast<std::size_t>(r)] = r / 2;
      for (int h = 0; h <= (n - 1) / 2; ++h) names.push_back("h" + std::to_string(h));
      topo::Hierarchy hi;
      hi.intra = LinkCost::from_bandwidth(1e-6, 100e9);
      hi.inter = fast;
      return topo::hierarchical(host, names, hi);
    }
    default:
      return topo::full_mesh(n, fast);
  }
}

}  // namespace

TEST_CASE("synthesis: every synthesized schedule verifies, n = 1..16") {
  for (int kind = 0; kind < 4; ++kind)
    for (int n = 1; n <= std::min(16, cclx::test::sweep_max_n()); ++n) {
      const auto t = make(kind, n);
      for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast})
        for (std::size_t bytes : {std::size_t{1000}, std::size_t{1} << 20, std::size_t{48} << 20}) {
          const int root = c == Collective::allreduce ? 0 : n / 3;
          sched::SynthesisOptions o;
          // The search on a few sizes (it simulates); par-trees on the rest.
          o.search = n % 5 == 0 || n == 16;
          const auto ts = sched::synthesize_trees(t, c, bytes, root, o);
          sched::ScheduleRequest req{c, n, root, false, bytes};
          const auto s = sched::tree_schedule(ts, req);
          const auto rep = sched::verify(s, bytes);
          INFO("topology ", kind, " n=", n, " ", sched::to_string(c), " bytes=", bytes, " ",
               ts.describe());
          INFO((rep.errors.empty() ? std::string() : rep.errors.front()));
          CHECK(rep.ok);
          if (c != Collective::allreduce)
            for (const auto& tree : ts.trees) CHECK(tree.root == root);
        }
    }
}

TEST_CASE("synthesis: deterministic, and the search never loses to its par-trees start") {
  for (int kind = 0; kind < 4; ++kind) {
    const auto t = make(kind, 12);
    for (Collective c : {Collective::allreduce, Collective::bcast}) {
      const std::size_t bytes = 16 << 20;
      sched::SynthesisOptions heuristic;
      heuristic.search = false;
      const auto a = sched::synthesize_trees(t, c, bytes, 0);
      const auto b = sched::synthesize_trees(t, c, bytes, 0);
      CHECK(a.describe() == b.describe());
      const auto start = sched::synthesize_trees(t, c, bytes, 0, heuristic);
      sched::ScheduleRequest req{c, 12, 0, false, bytes};
      sim::SimOptions so;
      so.bytes = bytes;
      const double found = sim::simulate(sched::tree_schedule(a, req), t, so).time;
      const double par = sim::simulate(sched::tree_schedule(start, req), t, so).time;
      CHECK(found <= par);
    }
  }
}

// algo::Adaptive's model: a call every rank joined runs the fastest in simulation of the
// library's schedules and both tree sets (no relay, no phase 2; predictions within 3% are ties,
// which go to the earlier candidate, ring first), a partial one the cheapest of its plans (plan 0
// the relay-aware trees). On the testbed's uniform links and on its two link classes (hosts 4-7
// at a quarter) that is ring (RHD predicted 0.4% and 0.1% faster: a tie); with one slow host the
// trees win; both phases of a partial set still prove the whole allreduce. On uniform links a
// late rank is best left out of phase 1: the subset plan over a ring (plan 1) wins.
TEST_CASE("relay model: the fastest full schedule for full calls, relay trees for partial ones") {
  const int n = 8;
  const std::size_t bytes = 4 << 20;
  for (const int slow : {0, 1, 4}) {  // hosts 7 .. 7 - slow + 1 at a quarter of the rate
    CAPTURE(slow);
    std::vector<double> bw(n, 23.9e6);
    for (int h = n - slow; h < n; ++h) bw[static_cast<std::size_t>(h)] = 23.9e6 / 4;
    const auto t = std::make_shared<const topo::Topology>(
        topo::per_host_bandwidth(1, LinkCost::from_bandwidth(0, 1e15), 150e-6, bw));
    algo::Adaptive a;
    a.topology = t;
    const sched::ScheduleRequest req{Collective::allreduce, n, 0, false, bytes};
    const auto model = algo::relay_model(a, req, 1);
    const std::vector<bool> all(n, true);
    std::vector<bool> partial = all;
    partial[3] = false;

    sched::SynthesisOptions o;
    const auto full_trees = sched::synthesize_trees(*t, req.collective, bytes, 0, o);
    o.relay = true;
    const auto relay_trees = sched::synthesize_trees(*t, req.collective, bytes, 0, o);
    sim::SimOptions so;
    so.bytes = bytes;
    so.gamma = tune::ModelParams{}.gamma;
    so.critical_path = false;
    const double trees =
        std::min(sim::simulate(sched::tree_schedule(full_trees, req), *t, so).time,
                 sim::simulate(sched::tree_schedule(relay_trees, req), *t, so).time);
    const double ring = sim::simulate(cclx::algo::generate_by_name("ring", req), *t, so).time;
    const auto p = model->phases(all, -1, 0);
    CHECK(p.phase2->num_rounds() == 0);
    CHECK(sched::verify(*p.phase1, bytes).ok);
    CHECK(model->cost(all) <= ring);
    CHECK(model->cost(all) * (1 - 0.03) <= trees);
    if (slow != 1) {  // ring ties RHD (within 0.4%) and beats the trees
      CHECK(p.phase1->algorithm == "ring");
    } else {
      CHECK(trees < ring);
      CHECK(model->cost(all) == doctest::Approx(trees).epsilon(1e-9));
    }

    const auto q = model->phases(partial, -1, 0);  // plan 0: the relay-aware trees
    CHECK(q.phase1->programs == sched::relay_schedules(relay_trees, req, partial).phase1.programs);
    const auto report = sched::verify_phases(*q.phase1, *q.phase2, partial, bytes);
    CHECK(report.ok);
    const auto choice = model->choose(partial);
    CHECK(choice.total() > 0);
    const auto c = model->phases(partial, -1, choice.plan);
    CHECK(sched::verify_phases(*c.phase1, *c.phase2, partial, bytes).ok);
    CHECK_THROWS_AS((void)model->phases(partial, -1, 99), Error);
    // Every plan serves one late rank; on uniform links the owner plan is cheapest (phase 1 a
    // reduce-scatter over 7 ranks, phase 2 about one pass of the data).
    CHECK(model->choices(partial).size() == 4);
    if (slow == 0)
      CHECK(choice.plan == sched::partial_relay_plan_index(Collective::allreduce, "owners"));
  }
}

TEST_CASE(
    "relay model: a tuning table near the size picks the full schedule (measured beats modelled)") {
  // The testbed's links (150 µs, 23.9 MB/s) at 256 KiB: the simulator puts RHD 6% ahead of ring,
  // the testbed measures RHD 33% slower (docs/results-testbed.md, "Mid sizes").
  const int n = 8;
  const std::size_t bytes = 256 << 10;
  algo::Adaptive a;
  a.topology = std::make_shared<const topo::Topology>(
      topo::full_mesh(n, LinkCost::from_bandwidth(150e-6, 23.9e6)));
  const sched::ScheduleRequest req{Collective::allreduce, n, 0, false, bytes};
  const std::vector<bool> all(n, true);
  const auto full_schedule = [&](const algo::Adaptive& p) {
    return algo::relay_model(p, req, 1)->phases(all, -1, 0).phase1->algorithm;
  };
  REQUIRE(full_schedule(a) == "rhd");
  auto table_at = [&](std::size_t at) {
    tune::TableEntry e;
    e.collective = Collective::allreduce;
    e.nranks = n;
    e.bytes = at;
    e.times_us = {{"native", 18000}, {"ring", 19240}, {"rhd", 20490}, {"ring(segment=64K)", 100}};
    tune::TuningTable t;
    t.record(e);
    return std::make_shared<const tune::TuningTable>(t);
  };
  // Native and parameterized candidates are not the runtime's to run; ring is the fastest of
  // the library's schedules measured.
  a.table = table_at(bytes);
  CHECK(full_schedule(a) == "ring");
  a.table = table_at(2 * bytes);  // within a factor of 2
  CHECK(full_schedule(a) == "ring");
  a.table = table_at(4 * bytes);  // too far: the simulator decides
  CHECK(full_schedule(a) == "rhd");
  // Another communicator size does not count: at 4 ranks the simulator decides, with or
  // without the 8-rank table.
  const sched::ScheduleRequest req4{Collective::allreduce, 4, 0, false, bytes};
  algo::Adaptive a4;
  a4.topology = std::make_shared<const topo::Topology>(
      topo::full_mesh(4, LinkCost::from_bandwidth(150e-6, 23.9e6)));
  const auto full4 = [&](const algo::Adaptive& p) {
    return algo::relay_model(p, req4, 1)
        ->phases(std::vector<bool>(4, true), -1, 0)
        .phase1->algorithm;
  };
  const std::string unmeasured = full4(a4);
  a4.table = table_at(bytes);
  CHECK(full4(a4) == unmeasured);
  // The table ranks the library's schedules only: with one host at a quarter of the rate the
  // synthesized trees, far ahead in simulation, still win over the table's ring.
  std::vector<double> bw(n, 23.9e6);
  bw.back() = 23.9e6 / 4;
  algo::Adaptive slow;
  slow.topology = std::make_shared<const topo::Topology>(
      topo::per_host_bandwidth(1, LinkCost::from_bandwidth(0, 1e15), 150e-6, bw));
  const std::string trees = full_schedule(slow);
  REQUIRE(trees != "ring");
  REQUIRE(trees != "rhd");
  slow.table = table_at(bytes);
  CHECK(full_schedule(slow) == trees);
}

namespace {

// Messages (sends over all ranks) of a schedule.
std::size_t sends(const sched::Schedule& s) {
  std::size_t k = 0;
  for (const auto& p : s.programs)
    for (const auto& op : p.ops) k += op.kind == sched::OpKind::send ? 1 : 0;
  return k;
}

// What the adaptive runtime pays to proceed without rank `late` (RelayModel::cost): both phases.
double relay_cost(const topo::Topology& t, const sched::TreeSet& ts, std::size_t bytes, int late) {
  const int n = t.nranks();
  const sched::ScheduleRequest req{Collective::allreduce, n, 0, false, bytes};
  std::vector<bool> active(static_cast<std::size_t>(n), true);
  active[static_cast<std::size_t>(late)] = false;
  sim::SimOptions so;
  so.bytes = bytes;
  so.critical_path = false;
  return sim::simulate_relay(sim::Simulator(t), sched::relay_schedules(ts, req, active), active, so)
      .time;
}

}  // namespace

TEST_CASE("synthesis: relay trees on the profiled testbed are no worse than a pipelined chain") {
  // The uniform 8-host testbed as cclx-topo profiled it (the topology file below): on it, descents
  // from par-trees alone end in 4 bushy trees of 16 KiB chunks, 0.77 s to proceed without rank 7,
  // where one chain of 64 KiB chunks takes 0.58 s (docs/algorithms/adaptive.md, "Search starts").
  topo::Topology t = topo::load_topology(
      CCLX_SOURCE_DIR "/benchmarks/results/adaptive-testbed/after-fixes/topo-uniform8.json");
  const std::size_t bytes = 4 << 20;
  for (const double o : {0.0, 7e-6}) {  // 7 µs: the overhead the profiler measured there
    CAPTURE(o);
    for (int r = 0; r < t.nranks(); ++r) t.set_overhead(r, o);
    sched::SynthesisOptions so;
    so.relay = true;
    const auto synth = sched::synthesize_trees(t, Collective::allreduce, bytes, 0, so);
    so.max_trees = 1;
    so.chunk_bytes = 64 << 10;
    const auto chain = sched::synthesize_trees(t, Collective::allreduce, bytes, 0, so);
    // Within 3%: the search scores the mean phase 2 over four late ranks, not rank 7's alone.
    CHECK(relay_cost(t, synth, bytes, 7) <= relay_cost(t, chain, bytes, 7) * 1.03);
  }
}

TEST_CASE("synthesis: a large per-message overhead buys fewer, larger messages") {
  // The uniform testbed's built shape (8 hosts at 23.9 MB/s, α 150 µs, NICs shared), without
  // and with 1 ms of overhead per message: as costly as moving 24 KB.
  topo::Topology t = topo::per_host_bandwidth(1, LinkCost::from_bandwidth(0, 1e15), 150e-6,
                                              std::vector(8, 23.9e6));
  for (int r = 0; r < 8; ++r) t.set_ports(r, 0);
  const std::size_t bytes = 4 << 20;
  const sched::ScheduleRequest req{Collective::allreduce, 8, 0, false, bytes};
  sched::SynthesisOptions so;
  so.relay = true;
  const auto cheap = sched::synthesize_trees(t, Collective::allreduce, bytes, 0, so);
  topo::Topology u = t;
  for (int r = 0; r < 8; ++r) u.set_overhead(r, 1e-3);
  const auto costly = sched::synthesize_trees(u, Collective::allreduce, bytes, 0, so);
  MESSAGE("no overhead: " << cheap.describe() << "; 1 ms: " << costly.describe());
  CHECK(sends(sched::tree_schedule(costly, req)) < sends(sched::tree_schedule(cheap, req)));
  // The synthesis saw the cost: on the costly machine its trees beat the cheap machine's.
  CHECK(relay_cost(u, costly, bytes, 7) < relay_cost(u, cheap, bytes, 7));
}

TEST_CASE("synthesis: the search stays within its budget (n = 16, 64 MiB)") {
  // The budget is work (simulated transfers), not time: what the search simulated is checked
  // against it, whatever the machine's load.
  const auto t = make(2, 16);
  for (const bool relay : {false, true}) {
    for (const std::size_t budget : {std::size_t{20000}, std::size_t{150000}}) {
      sched::SynthesisOptions o;
      o.relay = relay;
      o.max_transfers = budget;
      sched::SynthesisWork w;
      (void)sched::synthesize_trees(t, Collective::allreduce, std::size_t{64} << 20, 0, o, &w);
      CAPTURE(relay);
      CAPTURE(budget);
      MESSAGE("synthesis n=16 allreduce 64 MiB: " << w.simulator_runs << " runs, " << w.transfers
                                                  << " transfers, " << w.budgeted << " charged");
      CHECK(w.simulator_runs > 1);  // it searched
      CHECK(w.budgeted <= budget);
      CHECK(w.transfers <= w.budgeted);
    }
  }
}

TEST_CASE("synthesis: bad requests throw cclx::Error") {
  const auto t = make(3, 4);
  CHECK_THROWS_AS((void)sched::synthesize_trees(t, Collective::allgather, 100, 0), Error);
  CHECK_THROWS_AS((void)sched::synthesize_trees(t, Collective::reduce, 100, 4), Error);
}

TEST_CASE("egress bandwidth: the maximum flow from a rank to the others") {
  // Full mesh: n - 1 links out, each at 1/β.
  const auto mesh = topo::full_mesh(5, LinkCost::from_bandwidth(1e-6, 1e9));
  CHECK(topo::egress_bandwidth(mesh, 2) == doctest::Approx(4e9).epsilon(1e-6));
  // One NIC per host: its uplink is the cut, not the host's rank count.
  const topo::Topology hosts =
      topo::per_host_bandwidth(1, LinkCost::from_bandwidth(0, 1e15), 150e-6, {23.9e6, 23.9e6, 6e6});
  CHECK(topo::egress_bandwidth(hosts, 0) == doctest::Approx(23.9e6).epsilon(1e-6));
  CHECK(topo::egress_bandwidth(hosts, 2) == doctest::Approx(6e6).epsilon(1e-6));
  // Links without a bandwidth limit, and a single rank.
  CHECK(std::isinf(topo::egress_bandwidth(topo::full_mesh(3, LinkCost{1e-6, 0}), 0)));
  CHECK(topo::egress_bandwidth(topo::full_mesh(1, LinkCost{1e-6, 1e-9}), 0) == 0);
}

// RelayModel::cost_floor, which lets the runtime skip pricing a new set of ready ranks while it
// waits, must never exceed the cost it stands for: checked over every proper active set.
TEST_CASE("relay model: the cost floor is below the cost of every active set") {
  const int n = 8;
  const std::size_t bytes = 4 << 20;
  std::vector<std::pair<std::string, std::shared_ptr<const topo::Topology>>> shapes;
  {
    std::vector<double> bw(n, 23.9e6);
    auto uniform = topo::per_host_bandwidth(1, LinkCost::from_bandwidth(0, 1e15), 150e-6, bw);
    for (int r = 0; r < n; ++r) uniform.set_ports(r, 0);
    shapes.emplace_back("uniform", std::make_shared<const topo::Topology>(uniform));
    for (int h = 4; h < n; ++h) bw[static_cast<std::size_t>(h)] = 23.9e6 / 4;
    shapes.emplace_back("two classes",
                        std::make_shared<const topo::Topology>(topo::per_host_bandwidth(
                            1, LinkCost::from_bandwidth(0, 1e15), 150e-6, bw)));
    shapes.emplace_back("mesh", std::make_shared<const topo::Topology>(
                                    topo::full_mesh(n, LinkCost::from_bandwidth(50e-6, 1e9))));
  }
  for (const auto& [shape_name, t] : shapes) {
    const std::string& name = shape_name;  // for CAPTURE: clang 14 cannot capture a binding
    for (const Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast}) {
      CAPTURE(name);
      CAPTURE(sched::to_string(c));
      algo::Adaptive a;
      a.topology = t;
      const sched::ScheduleRequest req{c, n, 2, false, bytes};
      const auto model = algo::relay_model(a, req, 4);
      double tightest = 0;  // the largest floor / cost over the sets with one late rank
      for (unsigned mask = 1; mask + 1 < (1u << n); ++mask) {
        std::vector<bool> active(n);
        for (int r = 0; r < n; ++r) active[static_cast<std::size_t>(r)] = (mask >> r & 1) != 0;
        const double floor = model->cost_floor(active), cost = model->cost(active);
        CHECK(floor <= cost);
        if (std::popcount(mask) == n - 1) tightest = std::max(tightest, floor / cost);
      }
      CHECK(model->cost_floor(std::vector<bool>(n, true)) == 0);
      if (c == Collective::bcast) {
        CHECK(tightest == 0);  // no floor: a late rank may get its data while relaying
      } else {
        MESSAGE(name << " " << sched::to_string(c) << ": floor / cost up to " << tightest);
        // Hosts behind one NIC each (the testbed): the floor is a good part of the cost, far
        // above the milliseconds by which jitter-free ranks arrive. On the mesh the flow bound
        // counts all 7 links at once while the rank has one port: loose (0.02-0.04), still > 0.
        CHECK(tightest > (name == "mesh" ? 0.01 : 0.2));
      }
    }
  }
}
