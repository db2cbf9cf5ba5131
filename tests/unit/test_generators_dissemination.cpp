// The dissemination barrier's shape, and the verifier's causal postcondition of a barrier: a
// schedule in which some rank can finish before another has entered is rejected.
#include <doctest/doctest.h>

#include <string>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "support.hpp"

using namespace cclx::sched;
using cclx::test::ceil_log2;

namespace {

// A barrier schedule whose rank r runs `body(r, builder)`.
template <class Body>
Schedule barrier_schedule(int n, Body body) {
  Schedule s;
  s.algorithm = "hand";
  s.collective = Collective::barrier;
  s.nranks = n;
  s.programs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    body(r, b);
  }
  return s;
}

std::string errors(const VerifyReport& rep) {
  std::string s;
  for (const auto& e : rep.errors) s += e + "\n";
  return s;
}

}  // namespace

TEST_CASE("dissemination: ceil(log2 n) rounds of one empty message per rank, every n") {
  for (int n = 1; n <= 70; ++n) {
    CAPTURE(n);
    const auto s = dissemination({Collective::barrier, n});
    CHECK(s.collective == Collective::barrier);
    CHECK(s.num_rounds() == static_cast<std::size_t>(ceil_log2(n)));
    const auto rep = verify(s, 0);
    CHECK_MESSAGE(rep.ok, errors(rep));
    for (int r = 0; r < n; ++r) {
      CHECK(rep.messages_sent[static_cast<std::size_t>(r)] ==
            static_cast<std::size_t>(ceil_log2(n)));
      CHECK(rep.bytes_sent[static_cast<std::size_t>(r)] == 0u);
      // Round k: to r + 2^k, from r - 2^k.
      const auto& p = s.programs[static_cast<std::size_t>(r)];
      for (std::size_t k = 0; k < p.num_steps(); ++k) {
        REQUIRE(p.step_size(k) == 2u);
        const int d = 1 << k;
        CHECK(p.step_data(k)[0] == Op{OpKind::send, (r + d) % n, {}, token(), {}});
        CHECK(p.step_data(k)[1] == Op{OpKind::recv, (r - d % n + n) % n, token(), {}, {}});
      }
    }
  }
}

TEST_CASE("dissemination: serves barrier only; data generators do not serve barrier") {
  CHECK_THROWS_AS(dissemination({Collective::allreduce, 4}), cclx::Error);
  CHECK_THROWS_AS(dissemination({Collective::barrier, 0}), cclx::Error);
  for (const auto& g : cclx::algo::generators()) {
    if (g.name == "dissemination") continue;
    CAPTURE(g.name);
    CHECK_THROWS_AS(g.generate({Collective::barrier, 4}, {}), cclx::Error);
  }
}

TEST_CASE("verifier: a barrier missing one dissemination round is rejected (n = 5)") {
  // Rounds at distances 1 and 2 only: rank r has heard from r, r-1, r-2, r-3, never from r-4.
  const auto s = barrier_schedule(5, [](int r, ProgramBuilder& b) {
    for (int d : {1, 2}) b.send((r + d) % 5, token()).recv((r - d + 5) % 5, token()).end_step();
  });
  const auto rep = verify(s, 0);
  CHECK_FALSE(rep.ok);
  // Every rank misses exactly the rank four behind it.
  for (int r = 0; r < 5; ++r) {
    const std::string want = "postcondition: rank " + std::to_string(r) +
                             " finishes without having heard, directly or through others, from "
                             "ranks {" +
                             std::to_string((r + 1) % 5) + "}";
    CHECK_MESSAGE(errors(rep).find(want) != std::string::npos, errors(rep));
  }
  // The same rounds in another order are fine (knowledge still spreads: 1 + 2 + 4 >= 5)...
  const auto reordered = barrier_schedule(5, [](int r, ProgramBuilder& b) {
    for (int d : {4, 1, 2}) b.send((r + d) % 5, token()).recv((r - d + 5) % 5, token()).end_step();
  });
  CHECK(verify(reordered, 0).ok);
}

TEST_CASE("verifier: barriers that do not wait for everyone are rejected") {
  // A broadcast from rank 0: nobody waits for ranks 1..3 (rank 0 waits for no one at all).
  const auto bcast = barrier_schedule(4, [](int r, ProgramBuilder& b) {
    if (r == 0)
      b.send(1, token()).send(2, token()).send(3, token());
    else
      b.recv(0, token());
    b.end_step();
  });
  auto rep = verify(bcast, 0);
  CHECK_FALSE(rep.ok);
  CHECK(errors(rep).find("rank 0 finishes without having heard, directly or through others, "
                         "from ranks {1-3}") != std::string::npos);
  // Gather to rank 0 and release from it in the same step: the release does not depend on the
  // arrivals (a send reads the state from before its step).
  const auto same_step = barrier_schedule(3, [](int r, ProgramBuilder& b) {
    if (r == 0)
      b.recv(1, token()).recv(2, token()).send(1, token()).send(2, token());
    else
      b.send(0, token()).recv(0, token());
    b.end_step();
  });
  rep = verify(same_step, 0);
  CHECK_FALSE(rep.ok);
  CHECK(errors(rep).find("rank 1 finishes without having heard, directly or through others, "
                         "from ranks {2}") != std::string::npos);
  // The same in two steps is a correct (if slower) barrier.
  const auto two_steps = barrier_schedule(3, [](int r, ProgramBuilder& b) {
    if (r == 0) {
      b.recv(1, token()).recv(2, token()).end_step();
      b.send(1, token()).send(2, token()).end_step();
    } else {
      b.send(0, token()).end_step();
      b.recv(0, token()).end_step();
    }
  });
  rep = verify(two_steps, 0);
  CHECK_MESSAGE(rep.ok, errors(rep));
  // n = 1 needs no message; n = 2 with no messages does not synchronize.
  CHECK(verify(barrier_schedule(1, [](int, ProgramBuilder& b) { b.end_step(); }), 0).ok);
  CHECK_FALSE(verify(barrier_schedule(2, [](int, ProgramBuilder& b) { b.end_step(); }), 0).ok);
}

TEST_CASE("verifier: a barrier's unmatched empty message is reported like any other") {
  const auto s = barrier_schedule(2, [](int r, ProgramBuilder& b) {
    if (r == 0) b.send(1, token()).recv(1, token());
    b.end_step();
  });
  const auto rep = verify(s, 0);
  CHECK_FALSE(rep.ok);
  CHECK(errors(rep).find("no matching receive on rank 1") != std::string::npos);
}
