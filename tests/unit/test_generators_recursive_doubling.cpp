#include <doctest/doctest.h>

#include "cclx/algo/policies.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"
#include "support.hpp"

using namespace cclx::sched;
using cclx::test::floor_log2;

TEST_CASE("recursive_doubling: log2 n exchanges of the whole message at powers of two") {
  for (int n = 2; n <= 256; n *= 2) {
    const int L = floor_log2(n);
    const std::size_t count = 1000;  // bytes (elem 1)
    for (const bool in_place : {false, true}) {
      CAPTURE(n);
      CAPTURE(in_place);
      const auto s = recursive_doubling({Collective::allreduce, n, 0, in_place});
      CHECK(s.nblocks == 1u);
      CHECK(s.preserves_order);
      // n = 2 in place: the one exchange reads the user buffer, so the reduce into it is a local
      // step of its own.
      CHECK(s.num_rounds() == static_cast<std::size_t>(n == 2 && in_place ? 2 : L));
      const auto rep = verify(s, count, 1);
      REQUIRE(rep.ok);
      CHECK(rep.rounds == static_cast<std::size_t>(L));
      for (auto b : rep.bytes_sent) CHECK(b == static_cast<std::size_t>(L) * count);
      for (auto m : rep.messages_sent) CHECK(m == static_cast<std::size_t>(L));
    }
  }
}

TEST_CASE("recursive_doubling: non-powers of two fold and unfold (+2 rounds, +s on the pairs)") {
  for (int n : {3, 5, 6, 7, 12, 13, 24, 100}) {
    const int L = floor_log2(n);
    const int rem = n - (1 << L);
    const std::size_t count = 1000;
    for (const bool in_place : {false, true}) {
      CAPTURE(n);
      CAPTURE(in_place);
      const auto s = recursive_doubling({Collective::allreduce, n, 0, in_place});
      CHECK(s.num_rounds() == static_cast<std::size_t>(L + 2));
      const auto rep = verify(s, count, 1);
      REQUIRE(rep.ok);
      for (int r = 0; r < n; ++r) {
        const auto b = rep.bytes_sent[static_cast<std::size_t>(r)];
        if (r < 2 * rem && r % 2 == 1)
          CHECK(b == count);  // partner: hands its vector over, gets the result back
        else if (r < 2 * rem)
          CHECK(b == static_cast<std::size_t>(L + 1) * count);  // keeper: + the unfold
        else
          CHECK(b == static_cast<std::size_t>(L) * count);
      }
    }
  }
}

TEST_CASE("recursive_doubling: errors") {
  CHECK_THROWS_AS(recursive_doubling({Collective::reduce, 4}), cclx::Error);
  CHECK_THROWS_AS(recursive_doubling({Collective::allgather, 4}), cclx::Error);
  CHECK_THROWS_AS(recursive_doubling({Collective::barrier, 4}), cclx::Error);
  CHECK_THROWS_AS(recursive_doubling({Collective::allreduce, 0}), cclx::Error);
}

TEST_CASE("recursive_doubling: verified for all sizes, counts, in place") {
  const auto n = cclx::test::sweep([](const ScheduleRequest& r) { return recursive_doubling(r); },
                                   {Collective::allreduce});
  CHECK(n > 0);
}
