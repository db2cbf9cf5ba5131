// Relay schedules (relay/schedules.hpp): phase 1 followed by phase 2 is the whole collective over
// all ranks, and in phase 1 the inactive ranks touch Scratch only (verify_phases). Every active
// subset for n <= 8, random subsets up to n = 32; trees from par_trees with 1..4 trees.
#include <doctest/doctest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "active_sets.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/schedule/verifier.hpp"

using namespace cclx::sched;
using cclx::test::show;
using cclx::test::subset;

namespace {

// Host layouts: one rank per host, or hosts of two ranks.
std::vector<int> hosts(int n, int per_host) {
  std::vector<int> h(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) h[static_cast<std::size_t>(r)] = r / per_host;
  return h;
}

// Proves both phases for one case; `count` elements of one byte (bytes == count).
void prove(Collective c, int n, int root, int trees, int per_host, bool in_place,
           const std::vector<bool>& active, std::size_t count, std::size_t chunk) {
  const int rooted_at = c == Collective::allreduce ? -1 : root;
  const TreeSet ts = par_trees(hosts(n, per_host), {}, trees, 2, true, rooted_at, chunk);
  ScheduleRequest req;
  req.collective = c;
  req.nranks = n;
  req.root = root;
  req.in_place = in_place && c != Collective::bcast;
  req.bytes = count;
  const RelayPlan plan = relay_schedules(ts, req, active);
  const VerifyReport rep = verify_phases(plan.phase1, plan.phase2, active, count);
  INFO(to_string(c), " n=", n, " root=", root, " trees=", trees, " per_host=", per_host,
       " in_place=", req.in_place, " active=", show(active), " count=", count);
  INFO((rep.errors.empty() ? std::string() : rep.errors.front()));
  CHECK(rep.ok);
}

}  // namespace

TEST_CASE("relay: every active subset, n <= 8") {
  for (int n = 1; n <= 8; ++n)
    for (std::uint64_t mask = 0; mask < (std::uint64_t{1} << n); ++mask) {
      // Cycle the tree count, host layout and in-place over the subsets.
      const int trees = 1 + static_cast<int>(mask % 4);
      const int per_host = 1 + static_cast<int>((mask / 4) % 2);
      const bool in_place = (mask / 8) % 2;
      const auto active = subset(n, mask);
      // 3 chunks per tree, blocks of uneven size.
      const std::size_t count = 3 * static_cast<std::size_t>(trees) * 5 + 2;
      for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast})
        for (int root : {0, n - 1, n / 2}) {
          prove(c, n, root, trees, per_host, in_place, active, count, 5);
          if (c == Collective::allreduce) break;
        }
    }
}

TEST_CASE("relay: random subsets up to n = 32") {
  cclx::test::Xorshift rng(0x9e3779b97f4a7c15ull);
  for (int n : {9, 11, 12, 16, 17, 23, 31, 32})
    for (int k = 0; k < 12; ++k) {
      const auto active = cclx::test::sweep_set(rng, n, k);
      const int trees = 1 + k % 4;
      const int root = rng.rank(n);
      for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast})
        prove(c, n, root, trees, 1 + k % 3, k % 2 == 1, active, 1000, 97);
    }
}

TEST_CASE("relay: all active is one phase, none active is all phase 2") {
  for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast})
    for (int n : {1, 2, 5, 8}) {
      const TreeSet ts =
          par_trees(hosts(n, 2), {}, 2, 2, true, c == Collective::allreduce ? -1 : 0, 64);
      ScheduleRequest req{c, n, 0, false, 1000};
      const auto all =
          relay_schedules(ts, req, std::vector<bool>(static_cast<std::size_t>(n), true));
      CHECK(all.phase2.num_rounds() == 0);
      CHECK(verify(all.phase1, 1000).ok);
      CHECK(all.phase1.programs == tree_schedule(ts, req).programs);
      const auto none =
          relay_schedules(ts, req, std::vector<bool>(static_cast<std::size_t>(n), false));
      CHECK(none.phase1.num_rounds() == 0);
      CHECK(none.phase2.programs == all.phase1.programs);
    }
}

TEST_CASE("relay: only_rank builds that rank's programs, the same as the whole schedule's") {
  const int n = 11;
  const TreeSet ts = par_trees(hosts(n, 3), {}, 3, 2, true, -1, 50);
  std::vector<bool> active(n, true);
  active[2] = active[7] = false;
  ScheduleRequest req{Collective::allreduce, n, 0, false, 1000};
  const auto whole = relay_schedules(ts, req, active);
  for (int r = 0; r < n; ++r) {
    req.only_rank = r;
    const auto one = relay_schedules(ts, req, active);
    CHECK(one.phase1.programs[static_cast<std::size_t>(r)] ==
          whole.phase1.programs[static_cast<std::size_t>(r)]);
    CHECK(one.phase2.programs[static_cast<std::size_t>(r)] ==
          whole.phase2.programs[static_cast<std::size_t>(r)]);
    for (int q = 0; q < n; ++q)
      if (q != r) CHECK(one.phase1.programs[static_cast<std::size_t>(q)].ops.empty());
  }
}

TEST_CASE("relay: an inactive rank with one child with data forwards without reducing") {
  // Chain 0 <- 1 <- 2 (one host of three ranks), rank 1 inactive.
  const TreeSet ts = par_trees({0, 0, 0}, {}, 1, 2, false, 0, 1 << 20);
  REQUIRE(ts.trees[0].parent == std::vector<int>{-1, 0, 1});
  ScheduleRequest req{Collective::reduce, 3, 0, false, 100};
  const auto plan = relay_schedules(ts, req, {true, false, true});
  for (const Op& op : plan.phase1.programs[1].ops) {
    CHECK(op.kind != OpKind::reduce);
    CHECK(op.kind != OpKind::copy);
    if (op.is_transfer())
      CHECK((op.kind == OpKind::send ? op.src.buf : op.dst.buf) == Buf::scratch);
  }
  // Phase 2: rank 1's data goes up, the root adds it to its phase-1 partial.
  CHECK(verify_phases(plan.phase1, plan.phase2, {true, false, true}, 100).ok);
}

TEST_CASE("relay: verify_phases rejects an inactive rank that reads its input in phase 1") {
  const TreeSet ts = par_trees({0, 1, 2, 3}, {}, 1, 2, false, -1, 1 << 20);
  ScheduleRequest req{Collective::allreduce, 4, 0, false, 100};
  const auto plan = relay_schedules(ts, req, {true, true, true, true});
  const auto rep = verify_phases(plan.phase1, plan.phase2, {true, true, false, true}, 100);
  CHECK_FALSE(rep.ok);
  REQUIRE_FALSE(rep.errors.empty());
  CHECK(rep.errors.front().find("rank 2") != std::string::npos);
  CHECK(rep.errors.front().find("touches a user buffer") != std::string::npos);
}

TEST_CASE("relay: bad requests throw cclx::Error") {
  const TreeSet ts = par_trees({0, 1, 2}, {}, 2, 2, true, -1, 64);
  ScheduleRequest req{Collective::reduce, 3, 1, false, 100};
  std::vector<bool> all(3, true);
  CHECK_THROWS_AS((void)relay_schedules(ts, req, all), cclx::Error);  // trees not rooted at 1
  req.collective = Collective::allgather;
  CHECK_THROWS_AS((void)relay_schedules(ts, req, all), cclx::Error);
  req.collective = Collective::allreduce;
  CHECK_THROWS_AS((void)relay_schedules(ts, req, {true, true}), cclx::Error);
  req.nranks = 4;
  CHECK_THROWS_AS((void)relay_schedules(ts, req, std::vector<bool>(4, true)), cclx::Error);
  TreeSet broken = ts;
  broken.trees[0].parent[1] = 1;
  CHECK_THROWS_AS(check_trees(broken), cclx::Error);
}

TEST_CASE("relay: fewer elements than blocks (empty blocks) and one-element counts") {
  // bytes decides the chunk count; a count of wide elements leaves blocks empty.
  const TreeSet ts = par_trees(hosts(6, 2), {}, 3, 2, true, -1, 8);
  for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{5}})
    for (Collective c : {Collective::allreduce, Collective::reduce, Collective::bcast}) {
      const TreeSet t =
          c == Collective::allreduce ? ts : par_trees(hosts(6, 2), {}, 3, 2, true, 4, 8);
      ScheduleRequest req{c, 6, 4, false, 200};
      for (std::uint64_t mask : {0u, 0b101101u, 0b111111u, 0b010000u}) {
        const auto active = subset(6, mask);
        const auto plan = relay_schedules(t, req, active);
        REQUIRE(plan.phase1.nblocks > count);
        const auto rep = verify_phases(plan.phase1, plan.phase2, active, count, 8);
        INFO(to_string(c), " count=", count, " active=", show(active));
        INFO((rep.errors.empty() ? std::string() : rep.errors.front()));
        CHECK(rep.ok);
      }
    }
}
