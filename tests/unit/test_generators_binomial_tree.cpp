#include <doctest/doctest.h>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"
#include "support.hpp"

using namespace cclx::sched;
using cclx::test::ceil_log2;

TEST_CASE("binomial_tree: step counts and bytes") {
  for (int n = 2; n <= 70; ++n) {
    const int L = ceil_log2(n);
    for (int root : {0, n / 2, n - 1}) {
      const auto b = binomial_tree({Collective::bcast, n, root});
      CHECK(b.nblocks == 1);
      CHECK(b.num_rounds() == static_cast<std::size_t>(L));
      const auto rep = verify(b, 1000, 1);
      REQUIRE(rep.ok);
      // Root 0 sends once per level; for a root in the smaller upper half, the lower half's
      // first rank is the busiest sender. No rank sends more than once per step.
      CHECK(rep.max_bytes_sent() <= 1000u * L);
      if (root == 0) CHECK(rep.bytes_sent[0] == 1000u * L);
    }
    for (int root : {0, n / 2, n - 1}) {
      // Reduce straight onto the root, in rank order: every non-root rank sends once.
      const auto red = binomial_tree({Collective::reduce, n, root});
      CHECK(red.preserves_order);
      CHECK(red.root == root);
      CHECK(red.num_rounds() == static_cast<std::size_t>(L));
      const auto rep = verify(red, 1000, 1);
      REQUIRE(rep.ok);
      for (int r = 0; r < n; ++r)
        CHECK(rep.bytes_sent[static_cast<std::size_t>(r)] == (r == root ? 0u : 1000u));
      // Two scratch copies only where a non-root rank receives twice, never from n = 8 on.
      CHECK(red.scratch_copies == (n >= 8 ? 2u : red.scratch_copies));
      if (n <= 3) CHECK(red.scratch_copies == 1);
    }
    const auto a = binomial_tree({Collective::allreduce, n});
    CHECK(a.scratch_copies == 1);
    CHECK(a.preserves_order);
    CHECK(a.num_rounds() == static_cast<std::size_t>(2 * L));
    const auto rep = verify(a, 1000, 1);
    REQUIRE(rep.ok);
    CHECK(rep.max_bytes_sent() == 1000u * L);
    for (int r = 1; r < n; ++r) CHECK(rep.bytes_sent[static_cast<std::size_t>(r)] <= 1000u * L);
  }
  CHECK(binomial_tree({Collective::allreduce, 1}).num_rounds() == 1);  // the copy
  CHECK(binomial_tree({Collective::allreduce, 1, 0, true}).num_rounds() == 0);
  CHECK(binomial_tree({Collective::bcast, 1}).num_rounds() == 0);
  CHECK(binomial_tree({Collective::reduce, 1}).num_rounds() == 1);
  CHECK(binomial_tree({Collective::reduce, 1, 0, true}).num_rounds() == 0);
}

TEST_CASE("binomial_tree: errors") {
  CHECK_THROWS_AS(binomial_tree({Collective::reduce, 8, 8}), cclx::Error);
  CHECK_THROWS_AS(binomial_tree({Collective::reduce, 8, -1}), cclx::Error);
  CHECK_THROWS_AS(binomial_tree({Collective::allgather, 8}), cclx::Error);
  CHECK_THROWS_AS(binomial_tree({Collective::bcast, 8, 8}), cclx::Error);
  CHECK_THROWS_AS(binomial_tree({Collective::bcast, 0}), cclx::Error);
  CHECK_THROWS_AS(
      (void)cclx::algo::generate_by_name("binomial_tree", {Collective::bcast, 4}, {{"fanout", 2}}),
      cclx::Error);
}

TEST_CASE("binomial_tree: verified for all sizes, roots, counts, in place") {
  const auto n = cclx::test::sweep([](const ScheduleRequest& r) { return binomial_tree(r); },
                                   {Collective::allreduce, Collective::reduce, Collective::bcast,
                                    Collective::gather, Collective::scatter});
  CHECK(n > 1000);
  // Through the registry as well.
  const auto m = cclx::test::sweep(
      [](const ScheduleRequest& r) { return cclx::algo::generate_by_name("binomial_tree", r); },
      {Collective::allreduce, Collective::reduce, Collective::gather, Collective::scatter},
      {1, 5, 16, 33});
  CHECK(m > 0);
}
