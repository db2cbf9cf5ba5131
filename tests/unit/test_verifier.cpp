// Verifier on hand-built schedules: one good schedule per shape, and one bad schedule per error
// class, each checked for the message that names the problem.
#include <doctest/doctest.h>

#include <ctime>
#include <functional>
#include <string>

#include "cclx/algo/policies.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "support.hpp"

namespace {

using namespace cclx::sched;
using cclx::test::all_errors;

// A schedule whose rank r program is built by `body(r, builder)`.
Schedule make(Collective c, int n, std::uint32_t nblocks,
              const std::function<void(int, ProgramBuilder&)>& body, bool in_place = false) {
  Schedule s;
  s.algorithm = "hand";
  s.collective = c;
  s.nranks = n;
  s.nblocks = nblocks;
  s.in_place = in_place;
  s.programs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    body(r, b);
  }
  return s;
}

// Two-rank allreduce of one block: exchange inputs, each adds (rank-ordered when `ordered`).
Schedule exchange_allreduce(bool ordered) {
  return make(Collective::allreduce, 2, 1, [&](int r, ProgramBuilder& b) {
    const int peer = 1 - r;
    b.send(peer, in(0)).recv(peer, scratch(0));
    // Rank 0's own contribution goes left when ordered; rank 1 always puts the peer's left.
    if (r == 0 && ordered)
      b.reduce(out(0), in(0), scratch(0));
    else
      b.reduce(out(0), scratch(0), in(0));
    b.end_step();
  });
}

bool has_error(const VerifyReport& rep, const std::string& needle) {
  for (const auto& e : rep.errors)
    if (e.find(needle) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("verifier accepts a hand-built allreduce and reports its cost") {
  const auto s = exchange_allreduce(true);
  const auto rep = verify(s, 10, 4);
  INFO(all_errors(rep));
  CHECK(rep.ok);
  CHECK(rep.rounds == 1);
  CHECK(rep.bytes_sent == std::vector<std::size_t>{40, 40});
  CHECK(rep.messages_sent == std::vector<std::size_t>{1, 1});
  CHECK(rep.max_bytes_sent() == 40);
  // Empty blocks are not messages.
  const auto empty = verify(s, 0);
  CHECK(empty.ok);
  CHECK(empty.rounds == 1);
  CHECK(empty.messages_sent == std::vector<std::size_t>{0, 0});
}

TEST_CASE("verifier: unmatched send") {
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    if (r == 0) b.send(1, in(0));
    b.copy(out(0), in(0)).end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "rank 0 step 0 op 0 (send to 1 in[0]): no matching receive on rank 1"));
}

TEST_CASE("verifier: unmatched receive, also when the send is in another step") {
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    if (r == 1) b.recv(0, scratch(0));
    b.end_step();
    if (r == 0) b.send(1, in(0));
    b.end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "rank 1 step 0 op 0 (recv from 0 scratch[0]): no matching send"));
  CHECK(has_error(rep, "rank 0 step 1 op 0 (send to 1 in[0]): no matching receive"));
}

TEST_CASE("verifier: transfers of a pair match in program order") {
  // Rank 0 sends blocks 0 and 1 to root 1 in one step; the receives pair with them in order.
  const auto reduce = [](bool swapped) {
    auto s = make(Collective::reduce, 2, 2, [&](int r, ProgramBuilder& b) {
      if (r == 0) b.send(1, in(0)).send(1, in(1));
      if (r == 1) {
        b.recv(0, scratch(swapped ? 1 : 0)).recv(0, scratch(swapped ? 0 : 1));
        b.reduce(out(0), scratch(0), in(0)).reduce(out(1), scratch(1), in(1));
      }
      b.end_step();
    });
    s.root = 1;
    return s;
  };
  const auto rep = verify(reduce(false), 6);
  INFO(all_errors(rep));
  CHECK(rep.ok);
  CHECK(has_error(verify(reduce(true), 6), "combines different blocks (1 and 0)"));
}

TEST_CASE("verifier: size mismatch") {
  // count 3 in 2 blocks: block 0 has 2 elements, block 1 has 1.
  const auto s = make(Collective::allreduce, 2, 2, [](int r, ProgramBuilder& b) {
    if (r == 0) b.send(1, in(0));
    if (r == 1) b.recv(0, scratch(1));
    b.end_step();
  });
  const auto rep = verify(s, 3, 8);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "receives 8 bytes but rank 0 op 0 sends 16"));
}

TEST_CASE("verifier: sending undefined data") {
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    if (r == 0) b.send(1, scratch(0));
    if (r == 1) b.recv(0, scratch(0));
    b.end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "rank 0 step 0 op 0 (send to 1 scratch[0]): sends undefined data"));
}

TEST_CASE("verifier: reducing or copying undefined data") {
  const auto s = make(Collective::allreduce, 1, 2, [](int, ProgramBuilder& b) {
    b.reduce(out(0), in(0), scratch(0)).copy(out(1), scratch(1)).end_step();
  });
  const auto rep = verify(s, 4);
  CHECK(has_error(rep, "op 0 (out[0] = in[0] (+) scratch[0]): reduces undefined data"));
  CHECK(has_error(rep, "op 1 (out[1] = scratch[1]): copies undefined data"));
}

TEST_CASE("verifier: double counting") {
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    const int peer = 1 - r;
    b.send(peer, in(0)).recv(peer, scratch(0)).reduce(out(0), scratch(0), in(0)).end_step();
    // Adding the own input again counts it twice.
    b.reduce(out(0), out(0), in(0)).end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep,
                  "rank 0 step 1 op 0 (out[0] = out[0] (+) in[0]): counts contributions "
                  "twice: {0-1} (+) {0}"));
}

TEST_CASE("verifier: combining different blocks") {
  const auto s = make(Collective::allreduce, 2, 2, [](int r, ProgramBuilder& b) {
    const int peer = 1 - r;
    b.send(peer, in(0)).recv(peer, scratch(0)).reduce(out(0), scratch(0), in(1)).end_step();
  });
  CHECK(has_error(verify(s, 4), "combines different blocks (0 and 1)"));
}

TEST_CASE("verifier: write to In out of place") {
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    const int peer = 1 - r;
    b.send(peer, in(0)).recv(peer, scratch(0)).end_step();
    b.reduce(in(0), scratch(0), in(0)).end_step();
    b.copy(out(0), in(0)).end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep,
                  "rank 0 step 1 op 0 (in[0] = scratch[0] (+) in[0]): destination in[0] "
                  "writes In in an out-of-place schedule"));
  // The same program is correct in place, where In is Out.
  auto inplace = s;
  inplace.in_place = true;
  const auto rep2 = verify(inplace, 4);
  INFO(all_errors(rep2));
  CHECK(rep2.ok);
}

TEST_CASE("verifier: regions outside their windows and bad peers") {
  const auto s = make(Collective::reduce, 2, 2, [](int r, ProgramBuilder& b) {
    if (r == 1) b.copy(out(0), in(0)).send(1, in(0)).copy(scratch(1, 2), in(0, 2));
    if (r == 0) b.send(7, in(2));
    b.end_step();
  });
  const auto rep = verify(s, 4);
  CHECK(has_error(rep, "rank 1 step 0 op 0 (out[0] = in[0]): destination out[0] rank has no Out"));
  CHECK(has_error(rep, "rank 1 step 0 op 1 (send to 1 in[0]): invalid peer 1"));
  CHECK(has_error(rep,
                  "rank 1 step 0 op 2 (scratch[1..3) = in[0..2)): destination scratch[1..3) "
                  "outside scratch [0..2)"));
  CHECK(has_error(rep, "rank 0 step 0 op 0 (send to 7 in[2]): invalid peer 7"));
}

TEST_CASE("verifier: in-place clobber") {
  // Rank 0 receives its result block into Out[1] in step 0, but In[1] (the same storage in
  // place) still had to be sent in step 1. Out of place the program is a correct alltoall.
  const auto s = make(Collective::alltoall, 2, 2, [](int r, ProgramBuilder& b) {
    if (r == 0) b.recv(1, out(1));
    if (r == 1) b.send(0, in(0));
    b.end_step();
    if (r == 0) b.send(1, in(1));
    if (r == 1) b.recv(0, out(0));
    b.end_step();
  });
  auto out_of_place = s;
  const auto copy_own = [](Schedule& x) {
    for (int r = 0; r < 2; ++r) {
      ProgramBuilder b(x.programs[static_cast<std::size_t>(r)]);
      b.copy(out(static_cast<std::uint32_t>(r)), in(static_cast<std::uint32_t>(r))).end_step();
    }
  };
  copy_own(out_of_place);
  const auto good = verify(out_of_place, 4);
  INFO(all_errors(good));
  CHECK(good.ok);

  auto in_place = s;
  in_place.in_place = true;
  const auto rep = verify(in_place, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "postcondition: rank 1 out[0] holds block 0 from {1}, expected block 1"));
}

TEST_CASE("verifier: in-place reduce_scatter result aliases In block 0") {
  // Out[r] is user block 0, so a rank that writes its result before reducing In[0] loses In[0].
  const auto s = make(
      Collective::reduce_scatter, 2, 2,
      [](int r, ProgramBuilder& b) {
        const auto me = static_cast<std::uint32_t>(r), other = 1 - me;
        b.send(1 - r, in(other)).recv(1 - r, scratch(me)).end_step();
        b.reduce(out(me), scratch(me), in(me)).end_step();
      },
      true);
  const auto rep = verify(s, 4);
  // Rank 0's Out is In[0] itself (fine); rank 1 sent In[0] in step 0 before clobbering it.
  INFO(all_errors(rep));
  CHECK(rep.ok);

  // Writing the result first and sending In[0] afterwards sends the clobbered block.
  const auto bad = make(
      Collective::reduce_scatter, 2, 2,
      [](int r, ProgramBuilder& b) {
        const auto me = static_cast<std::uint32_t>(r), other = 1 - me;
        b.copy(out(me), in(me)).end_step();
        b.send(1 - r, in(other)).recv(1 - r, scratch(me)).end_step();
        b.reduce(out(me), scratch(me), out(me)).end_step();
      },
      true);
  const auto rep2 = verify(bad, 4);
  CHECK_FALSE(rep2.ok);
  CHECK(has_error(rep2,
                  "rank 0 step 2 op 0 (out[0] = scratch[0] (+) out[0]): combines different "
                  "blocks (1 and 0)"));
}

TEST_CASE("verifier: hazards within a step") {
  SUBCASE("receive lands on data a send of the step reads") {
    const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
      b.copy(out(0), in(0)).end_step();
      b.send(1 - r, out(0)).recv(1 - r, out(0)).end_step();
    });
    CHECK(has_error(verify(s, 4),
                    "rank 0 step 1 op 1 (recv from 1 out[0]): lands on data a send "
                    "of the same step reads"));
  }
  SUBCASE("two receives land on the same block") {
    const auto s = make(Collective::allreduce, 3, 1, [](int r, ProgramBuilder& b) {
      if (r == 0) b.recv(1, scratch(0)).recv(2, scratch(0));
      if (r != 0) b.send(0, in(0));
      b.end_step();
    });
    CHECK(has_error(verify(s, 4),
                    "rank 0 step 0 op 1 (recv from 2 scratch[0]): lands on the "
                    "same block as receive op 0"));
  }
  SUBCASE("a local action writes what a send of the step reads") {
    const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
      b.copy(out(0), in(0)).end_step();
      b.send(1 - r, out(0)).recv(1 - r, scratch(0)).reduce(out(0), scratch(0), in(0)).end_step();
    });
    CHECK(has_error(verify(s, 4),
                    "rank 0 step 1 op 2 (out[0] = scratch[0] (+) in[0]): writes "
                    "data a send of the same step reads"));
  }
  SUBCASE("a local action overwrites a landing region") {
    const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
      b.send(1 - r, in(0)).recv(1 - r, scratch(0)).copy(scratch(0), in(0)).end_step();
    });
    CHECK(has_error(verify(s, 4),
                    "rank 0 step 0 op 2 (scratch[0] = in[0]): writes data receive "
                    "op 1 of the same step lands on"));
  }
  SUBCASE("consuming a receive in place is legal") {
    const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
      b.send(1 - r, in(0))
          .recv(1 - r, scratch(0))
          .reduce(scratch(0), scratch(0), in(0))
          .copy(out(0), scratch(0))
          .end_step();
    });
    const auto rep = verify(s, 4);
    INFO(all_errors(rep));
    CHECK(rep.ok);
  }
}

TEST_CASE("verifier: postcondition failure") {
  // Only rank 0 completes the sum.
  const auto s = make(Collective::allreduce, 2, 1, [](int r, ProgramBuilder& b) {
    if (r == 1) b.send(0, in(0)).copy(out(0), in(0));
    if (r == 0) b.recv(1, scratch(0)).reduce(out(0), in(0), scratch(0));
    b.end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(rep.errors.size() == 1);
  CHECK(has_error(rep,
                  "postcondition: rank 1 out[0] holds block 0 from {1}, expected block 0 "
                  "from all ranks"));
  CHECK_THROWS_AS(verify_or_throw(s, 4), cclx::Error);
  CHECK_NOTHROW(verify_or_throw(exchange_allreduce(false), 4));
}

TEST_CASE("verifier: rank-order violation") {
  auto unordered = exchange_allreduce(false);
  CHECK(verify(unordered, 4).ok);  // fine for commutative operations
  unordered.preserves_order = true;
  const auto rep = verify(unordered, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep,
                  "rank 0 step 0 op 2 (out[0] = scratch[0] (+) in[0]): breaks rank order: "
                  "{1} (+) {0}"));
  auto ordered = exchange_allreduce(true);
  ordered.preserves_order = true;
  CHECK(verify(ordered, 4).ok);
}

TEST_CASE("verifier: bcast and reduce shapes") {
  // Root 1 of 3 sends everything to both others.
  const auto bcast = make(Collective::bcast, 3, 2, [](int r, ProgramBuilder& b) {
    if (r == 1) b.send(0, out(0, 2)).send(2, out(0, 2));
    if (r != 1) b.recv(1, out(0, 2));
    b.end_step();
  });
  auto bc = bcast;
  bc.root = 1;
  CHECK(verify(bc, 5).ok);
  CHECK(has_error(verify(bcast, 5), "sends undefined data"));  // root 0 does not hold the data

  // Reduce to root 2: non-roots have no Out; in place, the root's In is its Out.
  for (bool ip : {false, true}) {
    auto red = make(
        Collective::reduce, 3, 1,
        [&](int r, ProgramBuilder& b) {
          if (r == 0) b.send(1, in(0));
          if (r == 1) b.recv(0, scratch(0)).reduce(scratch(0), scratch(0), in(0));
          b.end_step();
          if (r == 1) b.send(2, scratch(0));
          if (r == 2) b.recv(1, scratch(0)).reduce(out(0), scratch(0), in(0));
          b.end_step();
        },
        ip);
    red.root = 2;
    const auto rep = verify(red, 7);
    INFO(all_errors(rep));
    CHECK(rep.ok);
  }
}

TEST_CASE("verifier: scratch copies") {
  // Reduce of 3 ranks onto rank 0 over 2 uneven blocks (count 5: 3 + 2 elements). Rank 1 has no
  // Out and keeps rank 2's message in scratch copy 1 (blocks 2..4) while its sum goes to copy 0.
  auto build = [](Region land) {
    auto s = make(Collective::reduce, 3, 2, [land](int r, ProgramBuilder& b) {
      if (r == 2) b.send(1, in(0, 2));
      if (r == 1) b.recv(2, land).reduce(scratch(0, 2), in(0, 2), land);
      b.end_step();
      if (r == 1) b.send(0, scratch(0, 2));
      if (r == 0) b.recv(1, scratch(0, 2)).reduce(out(0, 2), in(0, 2), scratch(0, 2));
      b.end_step();
    });
    s.scratch_copies = 2;
    return s;
  };
  const auto good = build(scratch(2, 2));
  auto rep = verify(good, 5, 4);
  INFO(all_errors(rep));
  CHECK(rep.ok);
  CHECK(rep.bytes_sent == std::vector<std::size_t>{0, 20, 20});

  // Copy 1's blocks have the sizes of the partition's: block 2 is block 0 (3 elements).
  auto sized = make(Collective::reduce, 2, 2, [](int r, ProgramBuilder& b) {
    if (r == 1) b.send(0, in(0)).send(0, in(1));
    if (r == 0) b.recv(1, scratch(2)).recv(1, scratch(3));
    b.end_step();
    if (r == 0) b.reduce(out(0, 2), in(0, 2), scratch(2, 2));
    b.end_step();
  });
  sized.scratch_copies = 2;
  rep = verify(sized, 5, 4);
  INFO(all_errors(rep));
  CHECK(rep.ok);
  CHECK(rep.bytes_sent == std::vector<std::size_t>{0, 20});
  // A message of block 1 (2 elements) does not fit copy 1's block 0 (3 elements).
  auto mismatched = sized;
  mismatched.programs[1].ops[0].src = in(1);
  mismatched.programs[1].ops[1].src = in(0);
  rep = verify(mismatched, 5, 4);
  CHECK(has_error(rep,
                  "rank 0 step 0 op 0 (recv from 1 scratch[2]): receives 12 bytes but rank 1 "
                  "op 0 sends 8 (in[1])"));

  // One copy declared: copy 1 is outside Scratch.
  auto one = good;
  one.scratch_copies = 1;
  rep = verify(one, 5, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep,
                  "rank 1 step 0 op 0 (recv from 2 scratch[2..4)): destination "
                  "scratch[2..4) outside scratch [0..2)"));
  // Beyond the last copy.
  auto beyond = build(scratch(4, 2));
  rep = verify(beyond, 5, 4);
  CHECK(has_error(rep, "destination scratch[4..6) outside scratch [0..4) (2 copies of 2 blocks)"));
  // A region straddling two copies.
  auto straddle = build(scratch(1, 2));
  rep = verify(straddle, 5, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep,
                  "rank 1 step 0 op 0 (recv from 2 scratch[1..3)): destination "
                  "scratch[1..3) straddles scratch copies 0 and 1"));
  // Empty regions at a copy boundary are fine.
  auto empty = good;
  empty.programs[0].ops.push_back(Op{OpKind::copy, -1, scratch(2, 0), scratch(2, 0), {}});
  empty.programs[0].step_begin.back() = static_cast<std::uint32_t>(empty.programs[0].ops.size());
  rep = verify(empty, 5, 4);
  INFO(all_errors(rep));
  CHECK(rep.ok);
  // No copies at all.
  auto none = good;
  none.scratch_copies = 0;
  rep = verify(none, 5, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "scratch_copies must be >= 1"));
  auto huge = good;
  huge.scratch_copies = 0xffffffffu;
  CHECK(has_error(verify(huge, 5, 4), "too large to verify"));
}

TEST_CASE("verifier: malformed schedules are rejected before execution") {
  auto s = exchange_allreduce(true);
  s.programs.pop_back();
  CHECK(has_error(verify(s, 4), "schedule holds 1 programs for 2 ranks"));

  auto t = exchange_allreduce(true);
  t.programs[0].ops.push_back(Op{});  // an op after the last end_step()
  CHECK(has_error(verify(t, 4), "rank 0: malformed program"));

  auto a = make(Collective::alltoall, 2, 2, [](int, ProgramBuilder&) {});
  CHECK(has_error(verify(a, 3), "alltoall needs a count divisible by nblocks"));
}

TEST_CASE("verifier: error list is capped") {
  const auto s = make(Collective::allreduce, 64, 1, [](int r, ProgramBuilder& b) {
    b.send((r + 1) % 64, scratch(0)).end_step();
  });
  const auto rep = verify(s, 4);
  CHECK_FALSE(rep.ok);
  CHECK(rep.errors.size() <= 21);
  CHECK(rep.errors.back().find("more errors") != std::string::npos);
}

TEST_CASE("verifier: large schedules are fast") {
  // Processor time, not wall time: another process on the machine cannot move it much. The limits
  // catch a complexity regression (a quadratic pass would take minutes), not a slow machine.
  auto cpu_seconds = [] { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; };
  ScheduleRequest req{Collective::allreduce, 256};
  const auto s = ring(req);
  REQUIRE(s.num_rounds() == 510);
  const double t0 = cpu_seconds();
  const auto rep = verify(s, 1 << 20, 4);
  const double sec = cpu_seconds() - t0;
  MESSAGE("ring allreduce n=256: verified in " << sec << " s of processor time");
  CHECK(rep.ok);
  CHECK(rep.rounds == 510);
  CHECK(sec < 5.0);

  req.nranks = 1024;
  const auto big = ring(req);
  const double t1 = cpu_seconds();
  const auto rep2 = verify(big, 1 << 20, 4);
  const double sec2 = cpu_seconds() - t1;
  MESSAGE("ring allreduce n=1024: verified in " << sec2 << " s of processor time");
  CHECK(rep2.ok);
  CHECK(sec2 < 60.0);
}

TEST_CASE("verifier: one_sender_per_receiver is checked; ring claims it except for alltoall") {
  for (int n : {1, 2, 3, 5, 8}) {
    for (Collective c : {Collective::allreduce, Collective::reduce_scatter, Collective::allgather,
                         Collective::alltoall}) {
      const auto s = ring(ScheduleRequest{c, n});
      CHECK(s.one_sender_per_receiver == (c != Collective::alltoall));
      const auto rep = verify(s, 40 * static_cast<std::size_t>(n), 4);  // alltoall: n | count
      INFO(all_errors(rep));
      CHECK(rep.ok);
    }
  }
  // RHD at n = 4 receives from two partners: claiming one sender must fail.
  auto rhd = recursive_halving_doubling(ScheduleRequest{Collective::allreduce, 4});
  CHECK(verify(rhd, 100, 4).ok);
  rhd.one_sender_per_receiver = true;
  const auto rep = verify(rhd, 100, 4);
  CHECK_FALSE(rep.ok);
  CHECK(has_error(rep, "but the schedule claims one_sender_per_receiver"));
}

TEST_CASE("verifier: per-rank block sizes of the v-collectives") {
  // The ring's alltoall schedule serves alltoallv: with consistent counts (rank i sends m[i][j] to
  // rank j, which expects exactly that) it verifies, with zero-size blocks too.
  ScheduleRequest req{Collective::alltoallv, 3, 0, false, 0};
  const Schedule s = ring(req);
  const std::vector<std::vector<std::size_t>> m = {{2, 0, 5}, {1, 3, 0}, {0, 4, 6}};
  BlockSizes ok{m, {{2, 1, 0}, {0, 3, 4}, {5, 0, 6}}};
  const auto good = verify(s, ok, 4);
  CHECK_MESSAGE(good.ok, all_errors(good));
  CHECK(good.bytes_sent[0] == (0 + 5) * 4u);

  // Rank 2 expects 3 elements from rank 0, which sends 5: the receive is reported.
  BlockSizes bad = ok;
  bad.out[2][0] = 3;
  const auto rep = verify(s, bad, 4);
  CHECK_FALSE(rep.ok);
  CHECK_MESSAGE(
      has_error(
          rep,
          "rank 2 step 1 op 1 (recv from 0 out[0]): receives 12 bytes but rank 0 op 0 sends 20"),
      all_errors(rep));

  // A rank's own block differs between sendcounts and recvcounts: its copy is reported.
  BlockSizes self = ok;
  self.in[1][1] = 2;
  const auto rep2 = verify(s, self, 4);
  CHECK_MESSAGE(has_error(rep2,
                          "rank 1 step 0 op 0 (out[1] = in[1]): operands and "
                          "destination differ in size"),
                all_errors(rep2));

  // The tables must have n rows of nblocks entries.
  BlockSizes short_table = ok;
  short_table.in.pop_back();
  CHECK(has_error(verify(s, short_table, 4), "block sizes: expected 3 rows of 3 entries"));

  // One counts array for all ranks (allgatherv): a schedule that receives a block into another
  // block's place moves the wrong number of bytes.
  const Schedule wrong = make(Collective::allgatherv, 2, 2, [](int r, ProgramBuilder& b) {
    const auto self = static_cast<std::uint32_t>(r);
    b.send(1 - r, in(self)).recv(1 - r, out(self)).end_step();
  });
  const BlockSizes counts{{{1, 2}, {1, 2}}, {{1, 2}, {1, 2}}};
  const auto rep3 = verify(wrong, counts, 4);
  CHECK_MESSAGE(has_error(rep3, "receives 8 bytes but rank 0 op 0 sends 4"), all_errors(rep3));
}
