// Subset relay plans (relay/schedules.hpp, subset_relay_schedules): phase 1 a library schedule over
// the active ranks, phase 2 the late ranks folded in along one chain. verify_phases proves the
// result over all ranks and that inactive ranks touch nothing in phase 1: every active subset for
// n <= 8 (ring, and RHD on a few), random subsets beyond; and the simulator's view of a late rank
// with nothing to relay. The owner plans (owner_relay_schedules) and the plan list the same way.
#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "active_sets.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/relay/simulate.hpp"
#include "cclx/schedule/verifier.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"

using namespace cclx::sched;
using cclx::test::show;
using cclx::test::subset;

namespace {

// Checks that verify_phases proves `plan` (`count` elements of `elem` bytes), naming it by `what`.
RelayPlan proved(RelayPlan plan, std::string_view what, const std::vector<bool>& active,
                 std::size_t count, std::size_t elem = 1) {
  const VerifyReport rep = verify_phases(plan.phase1, plan.phase2, active, count, elem);
  INFO(what, " n=", active.size(), " in_place=", plan.phase1.in_place, " active=", show(active),
       " count=", count);
  INFO((rep.errors.empty() ? std::string() : rep.errors.front()));
  CHECK(rep.ok);
  return plan;
}

// Proves one plan; `count` elements of one byte, 10-byte segments (a few chunks per block).
RelayPlan prove(std::string_view algo, int n, bool in_place, const std::vector<bool>& active,
                std::size_t count) {
  ScheduleRequest req{Collective::allreduce, n, 0, in_place, count};
  return proved(subset_relay_schedules(algo, req, active, 10), algo, active, count);
}

// The uniform testbed's shape: 8 hosts at 23.9 MB/s, α 150 µs, NICs shared.
cclx::topo::Topology uniform_testbed() {
  auto t = cclx::topo::per_host_bandwidth(1, cclx::topo::LinkCost::from_bandwidth(0, 1e15), 150e-6,
                                          std::vector(8, 23.9e6));
  for (int r = 0; r < 8; ++r) t.set_ports(r, 0);
  return t;
}

}  // namespace

TEST_CASE("relay subset: every active subset, n <= 8") {
  for (int n = 1; n <= 8; ++n)
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << n); ++mask) {
      const auto active = subset(n, mask);
      const bool in_place = mask % 2 == 1;
      const auto plan = prove("ring", n, in_place, active, 37 + mask % 5);
      if (mask % 7 == 0) prove("rhd", n, !in_place, active, 61);
      // Inactive ranks have nothing to do in phase 1.
      for (int r = 0; r < n; ++r)
        if (!active[static_cast<std::size_t>(r)])
          CHECK(plan.phase1.programs[static_cast<std::size_t>(r)].ops.empty());
    }
}

TEST_CASE("relay subset: random subsets up to n = 32, empty blocks") {
  cclx::test::Xorshift rng(0x9e3779b97f4a7c15ull);
  for (int n : {9, 12, 17, 31, 32})
    for (int k = 0; k < 6; ++k) {
      const auto active = cclx::test::sweep_set(rng, n, k);
      prove(k % 3 == 2 ? "rhd" : "ring", n, k % 2 == 1, active, 1000);
    }
  // Fewer elements than blocks: 5 elements of 8 bytes in bytes / 10 blocks.
  for (std::uint64_t mask : {0u, 0b101101u, 0b111111u, 0b010000u}) {
    const auto active = subset(6, mask);
    ScheduleRequest req{Collective::allreduce, 6, 0, false, 200};
    const auto plan = subset_relay_schedules("ring", req, active, 10);
    REQUIRE(plan.phase1.nblocks > 5);
    CHECK(verify_phases(plan.phase1, plan.phase2, active, 5, 8).ok);
  }
}

TEST_CASE("relay subset: partition, only_rank and the chain") {
  const int n = 8;
  std::vector<bool> active(n, true);
  active[7] = false;
  // 4 MiB in 64 KiB segments: 64 chunks, rounded up to a multiple of the ring's 7 blocks.
  ScheduleRequest req{Collective::allreduce, n, 0, false, std::size_t{4} << 20};
  const auto whole = subset_relay_schedules("ring", req, active);
  CHECK(whole.phase1.nblocks == 70);
  CHECK(whole.phase2.nblocks == 70);
  CHECK(whole.phase1.scratch_copies == whole.phase2.scratch_copies);
  // Phase 2 with one late rank: 70 chunks through a chain of 8, then back to the late rank.
  CHECK(whole.phase2.num_rounds() == 70 + 8 - 1);
  for (const Op& op : whole.phase2.programs[7].ops)
    if (op.is_transfer()) CHECK(op.peer == (op.kind == OpKind::send ? 0 : 6));
  for (int r = 0; r < n; ++r) {
    req.only_rank = r;
    const auto one = subset_relay_schedules("ring", req, active);
    CHECK(one.phase1.programs[static_cast<std::size_t>(r)] ==
          whole.phase1.programs[static_cast<std::size_t>(r)]);
    CHECK(one.phase2.programs[static_cast<std::size_t>(r)] ==
          whole.phase2.programs[static_cast<std::size_t>(r)]);
    for (int q = 0; q < n; ++q)
      if (q != r) CHECK(one.phase2.programs[static_cast<std::size_t>(q)].ops.empty());
  }
  // The cap on chunks.
  req.only_rank = -1;
  req.bytes = std::size_t{1} << 30;
  CHECK(subset_relay_schedules("ring", req, active).phase1.nblocks <= kMaxSubsetChunks + 6);
}

TEST_CASE("relay subset: bad requests throw cclx::Error") {
  ScheduleRequest req{Collective::reduce, 3, 0, false, 100};
  CHECK_THROWS_AS((void)subset_relay_schedules("ring", req, {true, false, true}), cclx::Error);
  req.collective = Collective::allreduce;
  CHECK_THROWS_AS((void)subset_relay_schedules("ring", req, {true, false}), cclx::Error);
  CHECK_THROWS_AS((void)subset_relay_schedules("no_such", req, {true, false, true}), cclx::Error);
  req.only_rank = 3;
  CHECK_THROWS_AS((void)subset_relay_schedules("ring", req, {true, false, true}), cclx::Error);
}

TEST_CASE("relay subset: simulate_relay with an empty phase 1 on the late rank") {
  // Rank 7 late.
  const auto t = uniform_testbed();
  const std::size_t bytes = 4 << 20;
  std::vector<bool> active(8, true);
  active[7] = false;
  const auto plan = subset_relay_schedules(
      "ring", ScheduleRequest{Collective::allreduce, 8, 0, false, bytes}, active);
  cclx::sim::SimOptions o;
  o.bytes = bytes;
  o.critical_path = false;
  const cclx::sim::Simulator sim(t);
  const auto now = cclx::sim::simulate_relay(sim, plan, active, o);
  CHECK(now.phase1.rank_end[7] == 0);  // nothing to relay
  // Phase 1 a ring over 7 ranks: 2 · 6/7 · s/B; phase 2 one pass of s plus the chain's fill.
  const double pass = static_cast<double>(bytes) / 23.9e6;
  CHECK(now.phase1_end == doctest::Approx(2.0 * 6 / 7 * pass).epsilon(0.05));
  CHECK(now.time - now.phase1_end < 1.25 * pass);
  // Rank 7's data ready at 1 s: phase 2 starts there, after phase 1 ended.
  o.start_time.assign(8, 0.0);
  o.start_time[7] = 1.0;
  const auto late = cclx::sim::simulate_relay(sim, plan, active, o);
  CHECK(late.phase1_end == doctest::Approx(now.phase1_end));
  CHECK(late.time > 1.0 + pass);
  CHECK(late.time < 1.0 + 1.25 * pass);
}

// ---- owner plans (owner_relay_schedules) ----

namespace {

RelayPlan prove_owners(int n, bool in_place, const std::vector<bool>& active, std::size_t count,
                       std::size_t elem = 1) {
  ScheduleRequest req{Collective::allreduce, n, 0, in_place, count * elem};
  return proved(owner_relay_schedules(req, active, 10), "owners", active, count, elem);
}

}  // namespace

TEST_CASE("relay owners: every active subset with an active rank, n <= 8") {
  for (int n = 1; n <= 8; ++n)
    for (std::uint64_t mask = 1; mask < (std::uint64_t{1} << n); ++mask) {
      const auto active = subset(n, mask);
      const auto plan = prove_owners(n, mask % 2 == 0, active, 37 + mask % 5);
      for (int r = 0; r < n; ++r)
        if (!active[static_cast<std::size_t>(r)])
          CHECK(plan.phase1.programs[static_cast<std::size_t>(r)].ops.empty());
      // Scratch: one landing copy per late rank up to kOwnerLandings.
      const auto late = static_cast<long long>(n - std::popcount(mask));
      CHECK(plan.phase2.scratch_copies == std::max<long long>(1, std::min(late, kOwnerLandings)));
    }
}

TEST_CASE("relay owners: random subsets up to n = 32, many late ranks, empty blocks") {
  cclx::test::Xorshift rng(0x2545f4914f6cdd1dull);
  for (int n : {9, 12, 17, 31, 32})
    for (int k = 0; k < 6; ++k) {
      // k = 0: n - 1 late ranks, landing in groups of 4.
      const auto active = cclx::test::sweep_set(rng, n, k, /*keep_one=*/true);
      prove_owners(n, k % 2 == 1, active, 1000);
    }
  // Fewer elements than blocks (5 elements of 8 bytes), in place or not.
  for (std::uint64_t mask : {0b000001u, 0b101101u, 0b111111u, 0b010000u})
    for (bool in_place : {false, true}) prove_owners(6, in_place, subset(6, mask), 5, 8);
}

TEST_CASE("relay owners: the partition, the fan-out and only_rank") {
  const int n = 8;
  std::vector<bool> active(n, true);
  active[7] = false;
  // 4 MiB in 16 KiB segments (kOwnerSegmentBytes): 256 blocks, rounded up to a multiple of the 7
  // owners.
  ScheduleRequest req{Collective::allreduce, n, 0, false, std::size_t{4} << 20};
  const auto whole = owner_relay_schedules(req, active);
  CHECK(whole.phase1.nblocks == 259);
  CHECK(whole.phase1.num_rounds() == 6);  // the ring's reduce-scatter over 7 ranks
  // Phase 2: 37 rounds of one step each, then the last fan-out.
  CHECK(whole.phase2.num_rounds() == 38);
  std::size_t sent = 0, received = 0;
  for (const Op& op : whole.phase2.programs[7].ops) {
    if (op.kind == OpKind::send) sent += op.src.count;
    if (op.kind == OpKind::recv) received += op.dst.count;
  }
  CHECK(sent == 259);  // the late rank's data leaves it once
  CHECK(received == 259);
  for (int r = 0; r < n; ++r) {
    req.only_rank = r;
    const auto one = owner_relay_schedules(req, active);
    CHECK(one.phase1.programs[static_cast<std::size_t>(r)] ==
          whole.phase1.programs[static_cast<std::size_t>(r)]);
    CHECK(one.phase2.programs[static_cast<std::size_t>(r)] ==
          whole.phase2.programs[static_cast<std::size_t>(r)]);
  }
  // Bad requests.
  req.only_rank = -1;
  CHECK_THROWS_AS((void)owner_relay_schedules(req, std::vector<bool>(8, false)), cclx::Error);
  CHECK_THROWS_AS((void)owner_relay_schedules(req, {true, false}), cclx::Error);
  req.collective = Collective::reduce;
  CHECK_THROWS_AS((void)owner_relay_schedules(req, active), cclx::Error);
}

TEST_CASE("relay plans: the list and its names") {
  CHECK(partial_relay_plans(Collective::allreduce) == 4);
  CHECK(partial_relay_plans(Collective::bcast) == 1);
  CHECK(partial_relay_plan_name(Collective::allreduce, 0) == "trees");
  CHECK(partial_relay_plan_name(Collective::allreduce, 1) == "subset-ring");
  CHECK(partial_relay_plan_name(Collective::allreduce, 3) == "owners");
  CHECK(partial_relay_plan_index(Collective::allreduce, "owners") == 3);
  CHECK_THROWS_AS((void)partial_relay_plan_name(Collective::reduce, 1), cclx::Error);
  CHECK_THROWS_AS((void)partial_relay_plan_index(Collective::allreduce, "chain"), cclx::Error);
}

TEST_CASE("relay owners: simulated phases on the uniform testbed, rank 7 late") {
  const auto t = uniform_testbed();
  const std::size_t bytes = 4 << 20;
  std::vector<bool> active(8, true);
  active[7] = false;
  const ScheduleRequest req{Collective::allreduce, 8, 0, false, bytes};
  cclx::sim::SimOptions o;
  o.bytes = bytes;
  o.critical_path = false;
  const cclx::sim::Simulator sim(t);
  const auto owners = cclx::sim::simulate_relay(sim, owner_relay_schedules(req, active), active, o);
  const auto chain =
      cclx::sim::simulate_relay(sim, subset_relay_schedules("ring", req, active), active, o);
  const double pass = static_cast<double>(bytes) / 23.9e6;
  // Phase 1 a reduce-scatter over 7 ranks: 6/7 of a pass; phase 2 about one pass.
  CHECK(owners.phase1_end == doctest::Approx(6.0 / 7 * pass).epsilon(0.05));
  CHECK(owners.time - owners.phase1_end < 1.25 * pass);
  CHECK(owners.time < chain.time);
}
