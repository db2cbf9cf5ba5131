#include <doctest/doctest.h>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"
#include "support.hpp"

using namespace cclx::sched;
using cclx::test::floor_log2;

TEST_CASE("rhd: powers of two meet the Rabenseifner cost") {
  for (int n = 2; n <= 256; n *= 2) {
    const int L = floor_log2(n);
    const std::size_t count = 64u * static_cast<std::size_t>(n);  // s = count bytes
    const auto a = recursive_halving_doubling({Collective::allreduce, n});
    CHECK(a.nblocks == static_cast<std::uint32_t>(n));
    CHECK(a.preserves_order);
    CHECK(a.num_rounds() == static_cast<std::size_t>(2 * L));
    auto rep = verify(a, count, 1);
    REQUIRE(rep.ok);
    for (auto b : rep.bytes_sent) CHECK(b == 2 * (count / n) * (n - 1));

    const auto g = recursive_halving_doubling({Collective::allgather, n});
    CHECK(g.num_rounds() == static_cast<std::size_t>(L));
    rep = verify(g, count, 1);
    REQUIRE(rep.ok);
    for (auto b : rep.bytes_sent) CHECK(b == (count / n) * (n - 1));

    const auto rs = recursive_halving_doubling({Collective::reduce_scatter, n, 0, true});
    CHECK_FALSE(rs.preserves_order);
    // Rank 1 moves its result into Out (user block 0) one local step after the last exchange.
    CHECK(rs.num_rounds() == static_cast<std::size_t>(L + 1));
    rep = verify(rs, count, 1);
    REQUIRE(rep.ok);
    CHECK(rep.rounds == static_cast<std::size_t>(L));
    for (auto b : rep.bytes_sent) CHECK(b == (count / n) * (n - 1));

    // Out of place: the same exchanges, partial sums in scratch (two copies from n = 8 on).
    const auto rso = recursive_halving_doubling({Collective::reduce_scatter, n});
    CHECK(rso.num_rounds() == static_cast<std::size_t>(L));
    CHECK(rso.scratch_copies == (n >= 8 ? 2u : 1u));
    rep = verify(rso, count, 1);
    REQUIRE(rep.ok);
    for (auto b : rep.bytes_sent) CHECK(b == (count / n) * (n - 1));

    // Reduce: halving, then a binomial gather onto the root. Each rank sends its halving share
    // plus what it holds when it drops out of the gather (at most half); the root only halves.
    for (int root : {0, n / 2 + 1, n - 1}) {
      if (root >= n) continue;
      const auto red = recursive_halving_doubling({Collective::reduce, n, root});
      CHECK(red.nblocks == static_cast<std::uint32_t>(n));
      CHECK(red.root == root);
      CHECK(red.preserves_order);
      CHECK(red.num_rounds() == static_cast<std::size_t>(2 * L));
      CHECK(red.scratch_copies == (n >= 4 ? 2u : 1u));
      rep = verify(red, count, 1);
      REQUIRE(rep.ok);
      std::size_t gathered = 0;
      for (int r = 0; r < n; ++r) {
        const auto b = rep.bytes_sent[static_cast<std::size_t>(r)];
        const std::size_t halving = (count / n) * (n - 1);
        if (r == root) {
          CHECK(b == halving);
        } else {
          CHECK(b > halving);
          CHECK(b <= halving + count / 2);
          gathered += b - halving;
        }
      }
      // Each gather step moves half the message in total (half the ranks drop out).
      CHECK(gathered == static_cast<std::size_t>(L) * count / 2);
    }

    const auto bc = recursive_halving_doubling({Collective::bcast, n, n - 1});
    CHECK(bc.num_rounds() == static_cast<std::size_t>(2 * L));
    rep = verify(bc, count, 1);
    REQUIRE(rep.ok);
    CHECK(rep.bytes_sent[static_cast<std::size_t>(n - 1)] == 2 * (count / n) * (n - 1));
  }
}

TEST_CASE("rhd: non-powers of two add a fold and an unfold step") {
  for (int n : {3, 5, 6, 7, 12, 13, 100}) {
    const int L = floor_log2(n);
    CHECK(recursive_halving_doubling({Collective::allreduce, n}).num_rounds() ==
          static_cast<std::size_t>(2 * L + 2));
    CHECK(recursive_halving_doubling({Collective::allgather, n}).num_rounds() ==
          static_cast<std::size_t>(L + 2));
    CHECK(recursive_halving_doubling({Collective::reduce_scatter, n, 0, true}).num_rounds() ==
          static_cast<std::size_t>(L + 2));
    CHECK(recursive_halving_doubling({Collective::reduce_scatter, n}).num_rounds() ==
          static_cast<std::size_t>(L + 2));
    CHECK(recursive_halving_doubling({Collective::reduce_scatter, n}).scratch_copies == 2);
    // Reduce: the fold, no unfold (the root's pair folds onto the root, odd or even).
    for (int root : {0, 1, n - 1}) {
      const auto red = recursive_halving_doubling({Collective::reduce, n, root});
      CHECK(red.num_rounds() == static_cast<std::size_t>(2 * L + 1));
      CHECK(red.preserves_order);
      CHECK(verify(red, 1000, 4).ok);
    }
    CHECK(recursive_halving_doubling({Collective::bcast, n, 1}).num_rounds() ==
          static_cast<std::size_t>(2 * L + 1));
    // allreduce: the paired ranks pay one extra message of the whole size.
    const int p = 1 << L;
    const std::size_t count = 64u * static_cast<std::size_t>(p);
    const auto rep = verify(recursive_halving_doubling({Collective::allreduce, n}), count, 1);
    REQUIRE(rep.ok);
    CHECK(rep.max_bytes_sent() == 2 * (count / p) * (p - 1) + count);
  }
}

TEST_CASE("rhd: errors") {
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::reduce, 8, 8}), cclx::Error);
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::alltoall, 8}), cclx::Error);
  CHECK_NOTHROW(recursive_halving_doubling({Collective::reduce_scatter, 3}));
  CHECK_NOTHROW(recursive_halving_doubling({Collective::reduce, 3, 2}));
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::bcast, 4, -1}), cclx::Error);
  CHECK_NOTHROW(recursive_halving_doubling({Collective::reduce_scatter, 2}));
  CHECK_THROWS_AS(
      (void)cclx::algo::generate_by_name("rhd", {Collective::allreduce, 4}, {{"fanout", 2}}),
      cclx::Error);
  // segment_bytes is RHD's engine setting: accepted by name, no effect on the schedule.
  CHECK(cclx::algo::generate_by_name("rhd", {Collective::allreduce, 4}, {{"segment_bytes", 1}})
            .programs == cclx::algo::generate_by_name("rhd", {Collective::allreduce, 4}).programs);
}

TEST_CASE("rhd: verified for all sizes, roots, counts, in place") {
  const auto n =
      cclx::test::sweep([](const ScheduleRequest& r) { return recursive_halving_doubling(r); },
                        {Collective::allreduce, Collective::reduce, Collective::reduce_scatter,
                         Collective::allgather, Collective::bcast});
  CHECK(n > (cclx::test::sweep_max_n() >= 64 ? 2000 : 1000));  // fewer under CCLX_TEST_SWEEP_MAX_N
  const auto m = cclx::test::sweep(
      [](const ScheduleRequest& r) { return cclx::algo::generate_by_name("rhd", r); },
      {Collective::allreduce, Collective::reduce, Collective::reduce_scatter,
       Collective::allgather},
      {1, 6, 8, 31});
  CHECK(m > 0);
}

TEST_CASE("rhd_elimination: the rhd schedule at powers of two") {
  for (int n = 1; n <= 64; n *= 2)
    for (const bool in_place : {false, true}) {
      const auto a = rhd_elimination({Collective::allreduce, n, 0, in_place});
      const auto b = recursive_halving_doubling({Collective::allreduce, n, 0, in_place});
      CHECK(a.programs == b.programs);
      CHECK(a.nblocks == b.nblocks);
      CHECK(a.preserves_order);
    }
}

TEST_CASE("rhd_elimination: half-message elimination steps instead of the fold's whole message") {
  for (int n : {3, 5, 6, 7, 12, 13, 24, 100}) {
    const int L = floor_log2(n);
    const int p = 1 << L, rem = n - p;
    const std::size_t count = 64u * static_cast<std::size_t>(p);  // bytes; blocks of 64
    const std::size_t rhd_share = 2 * (count / p) * (p - 1);      // 2(p-1)/p * s
    for (const bool in_place : {false, true}) {
      CAPTURE(n);
      CAPTURE(in_place);
      const auto s = rhd_elimination({Collective::allreduce, n, 0, in_place});
      CHECK(s.nblocks == static_cast<std::uint32_t>(p));
      CHECK(s.preserves_order);
      CHECK(s.num_rounds() == static_cast<std::size_t>(2 * L + 2));  // as the fold: 2 ceil(log2 n)
      const auto rep = verify(s, count, 1);
      REQUIRE(rep.ok);
      for (int r = 0; r < n; ++r) {
        const auto b = rep.bytes_sent[static_cast<std::size_t>(r)];
        if (r < 2 * rem && r % 2 == 1)
          CHECK(b == 3 * count / 2);  // partner: three half messages
        else if (r < 2 * rem)
          CHECK(b == rhd_share + count / 2);  // keeper: + the swap back
        else
          CHECK(b == rhd_share);
      }
      // The fold's busiest rank sends a whole message more than RHD's share, ours half a message.
      const auto fold =
          verify(recursive_halving_doubling({Collective::allreduce, n, 0, in_place}), count, 1);
      CHECK(fold.max_bytes_sent() == rhd_share + count);
      CHECK(rep.max_bytes_sent() == rhd_share + count / 2);
    }
  }
}

TEST_CASE("rhd_elimination: allreduce only; verified for all sizes, counts, in place") {
  CHECK_THROWS_AS(rhd_elimination({Collective::reduce, 6}), cclx::Error);
  CHECK_THROWS_AS(rhd_elimination({Collective::reduce_scatter, 6}), cclx::Error);
  const auto n = cclx::test::sweep([](const ScheduleRequest& r) { return rhd_elimination(r); },
                                   {Collective::allreduce});
  CHECK(n > 0);
}
