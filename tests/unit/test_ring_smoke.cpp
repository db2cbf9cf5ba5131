#include <doctest/doctest.h>

#include "cclx/algo/policies.hpp"

TEST_CASE("ring allreduce has 2(n-1) steps") {
  for (int n = 1; n <= 8; ++n) {
    cclx::sched::ScheduleRequest req{cclx::sched::Collective::allreduce, n};
    auto s = cclx::sched::ring(req);
    CHECK(s.num_rounds() == static_cast<std::size_t>(n == 1 ? 1 : 2 * (n - 1)));
  }
}
