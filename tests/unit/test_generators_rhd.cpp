#include <doctest/doctest.h>

#include "cclx/error.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"

using namespace cclx::sched;

namespace {
int floor_log2(int n) {
  int k = 0;
  while ((2 << k) <= n) ++k;
  return k;
}
}  // namespace

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
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::reduce, 8}), cclx::Error);
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::alltoall, 8}), cclx::Error);
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::reduce_scatter, 3}), cclx::Error);
  CHECK_THROWS_AS(recursive_halving_doubling({Collective::bcast, 4, -1}), cclx::Error);
  CHECK_NOTHROW(recursive_halving_doubling({Collective::reduce_scatter, 2}));
  CHECK_THROWS_AS(generate_by_name("rhd", {Collective::allreduce, 4}, {{"segment_bytes", 1}}),
                  cclx::Error);
}

TEST_CASE("rhd: verified for all sizes, roots, counts, in place") {
  const auto accept = [](const ScheduleRequest& r) {
    return r.collective != Collective::reduce_scatter || r.in_place || r.nranks <= 2;
  };
  const auto n = cclx::test::sweep(
      [](const ScheduleRequest& r) { return recursive_halving_doubling(r); },
      {Collective::allreduce, Collective::reduce_scatter, Collective::allgather, Collective::bcast},
      cclx::test::sweep_sizes(), accept);
  CHECK(n > 2000);
  const auto m =
      cclx::test::sweep([](const ScheduleRequest& r) { return generate_by_name("rhd", r); },
                        {Collective::allreduce, Collective::allgather}, {1, 6, 8, 31});
  CHECK(m > 0);
}
