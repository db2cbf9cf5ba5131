#include <doctest/doctest.h>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "generator_sweep.hpp"

using namespace cclx::sched;

TEST_CASE("pipelined_tree: segments, params and step counts") {
  ScheduleRequest req{Collective::bcast, 8, 3, false, 10000};
  auto s = pipelined_tree(req, 1000, 2);
  CHECK(s.nblocks == 10);
  CHECK(s.params == "segments=10,fanout=2");
  req.bytes = 10001;
  CHECK(pipelined_tree(req, 1000, 2).nblocks == 11);
  req.bytes = 0;
  CHECK(pipelined_tree(req, 1000, 2).nblocks == 1);
  req.bytes = std::size_t{1} << 40;
  CHECK(pipelined_tree(req, 1000, 2).nblocks == 1024);

  // Chain bcast: depth n-1, so n-1 + S-1 steps; every inner rank forwards s bytes.
  for (int n : {2, 5, 16}) {
    ScheduleRequest b{Collective::bcast, n, 0, false, 8000};
    const auto c = pipelined_tree(b, 1000, 1);
    CHECK(c.num_rounds() == static_cast<std::size_t>(n - 1 + 8 - 1));
    const auto rep = verify(c, 8000, 1);
    REQUIRE(rep.ok);
    for (int r = 0; r < n - 1; ++r) CHECK(rep.bytes_sent[static_cast<std::size_t>(r)] == 8000);
    CHECK(rep.bytes_sent[static_cast<std::size_t>(n - 1)] == 0);
  }
  // Binary tree on 7 ranks: depth 2.
  ScheduleRequest b{Collective::bcast, 7, 2, false, 4000};
  const auto t = pipelined_tree(b, 1000, 2);
  CHECK(t.num_rounds() == 2 + 4 - 1);
  auto rep = verify(t, 4000, 1);
  REQUIRE(rep.ok);
  CHECK(rep.bytes_sent[2] == 2 * 4000);

  // Chain reduce to rank 0: n + S - 2 steps, one more for another root; order preserved.
  ScheduleRequest r{Collective::reduce, 6, 0, false, 5000};
  const auto red = pipelined_tree(r, 1000, 1);
  CHECK(red.preserves_order);
  CHECK(red.num_rounds() == 6 + 5 - 2);
  r.root = 4;
  CHECK(pipelined_tree(r, 1000, 1).num_rounds() == 6 + 5 - 1);
  rep = verify(red, 5000, 1);
  REQUIRE(rep.ok);
  for (int k = 1; k < 6; ++k) CHECK(rep.bytes_sent[static_cast<std::size_t>(k)] == 5000);

  // Reduce on a binary tree of 7 ranks rooted at 0 (0 -> {1, 4}, 1 -> {2, 3}, 4 -> {5, 6}):
  // children deliver a segment in consecutive steps, so the pipeline is H = 4 steps deep and
  // takes H + S - 1 steps, one more for another root. Ranks 1 and 4 hold partial sums without an
  // Out while a second child's segment lands: two scratch copies.
  for (int root : {0, 3, 6}) {
    ScheduleRequest tr{Collective::reduce, 7, root, false, 5000};
    const auto tree = pipelined_tree(tr, 1000, 2);
    CHECK(tree.params == "segments=5,fanout=2");
    CHECK(tree.preserves_order);
    CHECK(tree.scratch_copies == 2);
    CHECK(tree.num_rounds() == static_cast<std::size_t>(4 + 5 - 1 + (root != 0 ? 1 : 0)));
    rep = verify(tree, 5000, 1);
    REQUIRE(rep.ok);
    // Every rank sends s once, but for rank 0 when it is the root (another root also sends its
    // partial sum up before the result comes back from rank 0).
    for (int k = 0; k < 7; ++k)
      CHECK(rep.bytes_sent[static_cast<std::size_t>(k)] == (k == 0 && root == 0 ? 0u : 5000u));
  }
  // Three ranks: only the root has two children, one scratch copy suffices.
  ScheduleRequest small{Collective::reduce, 3, 0, true, 5000};
  CHECK(pipelined_tree(small, 1000, 2).scratch_copies == 1);
  small.root = 2;
  CHECK(pipelined_tree(small, 1000, 2).scratch_copies == 2);

  // Allreduce with a chain: reduce depth n-1, overlapped bcast depth n-1: 2(n-1) + S - 1 steps.
  ScheduleRequest a{Collective::allreduce, 6, 0, false, 5000};
  const auto ar = pipelined_tree(a, 1000, 1);
  CHECK(ar.preserves_order);
  CHECK(ar.num_rounds() == 2 * 5 + 5 - 1);
  rep = verify(ar, 5000, 1);
  REQUIRE(rep.ok);
  CHECK(rep.max_bytes_sent() == 2 * 5000);
}

TEST_CASE("pipelined_tree: only_rank yields the same reduce program and scratch_copies") {
  for (int fanout : {2, 3})
    for (int root : {0, 5, 12}) {
      const ScheduleRequest full_req{Collective::reduce, 13, root, false, 4000};
      const auto full = pipelined_tree(full_req, 1000, fanout);
      for (int r = 0; r < 13; ++r) {
        ScheduleRequest req = full_req;
        req.only_rank = r;
        const auto one = pipelined_tree(req, 1000, fanout);
        CHECK(one.programs[static_cast<std::size_t>(r)] ==
              full.programs[static_cast<std::size_t>(r)]);
        CHECK(one.scratch_copies == full.scratch_copies);
      }
    }
}

TEST_CASE("pipelined_tree: errors") {
  ScheduleRequest req{Collective::bcast, 8, 0, false, 1000};
  CHECK_THROWS_AS(pipelined_tree(req, 1000, 0), cclx::Error);
  CHECK_THROWS_AS(pipelined_tree(req, 0, 2), cclx::Error);
  req.collective = Collective::reduce;
  CHECK_NOTHROW(pipelined_tree(req, 1000, 2));
  CHECK_THROWS_AS(pipelined_tree(req, 1000, 0), cclx::Error);
  req.collective = Collective::allgather;
  CHECK_THROWS_AS(pipelined_tree(req, 1000, 1), cclx::Error);
  req.collective = Collective::bcast;
  CHECK_THROWS_AS((void)cclx::algo::generate_by_name("pipelined_tree", req, {{"fanout", 0}}),
                  cclx::Error);
  CHECK_THROWS_AS((void)cclx::algo::generate_by_name("pipelined_tree", req, {{"segment_bytes", 0}}),
                  cclx::Error);
  CHECK_THROWS_AS(
      (void)cclx::algo::generate_by_name("pipelined_tree", req, {{"segment_bytes", -5}}),
      cclx::Error);
  CHECK_THROWS_AS((void)cclx::algo::generate_by_name("pipelined_tree", req, {{"depth", 3}}),
                  cclx::Error);
  // Registry defaults, the same as algo::PipelinedTree{}: 1 MiB segments, fanout 2.
  req.bytes = 3u << 20;
  CHECK(cclx::algo::generate_by_name("pipelined_tree", req).params == "segments=3,fanout=2");
  req.collective = Collective::reduce;
  CHECK(cclx::algo::generate_by_name("pipelined_tree", req).params == "segments=3,fanout=2");
  CHECK(cclx::algo::generate_by_name("pipelined_tree", req, {{"fanout", 4}}).params ==
        "segments=3,fanout=4");
}

TEST_CASE("pipelined_tree: verified for all sizes, roots, counts, in place") {
  // 4-byte elements and 512-byte segments: counts up to 4097 give up to 33 segments.
  for (int fanout : {1, 2, 3}) {
    const auto n = cclx::test::sweep(
        [fanout](const ScheduleRequest& r) { return pipelined_tree(r, 512, fanout); },
        {Collective::allreduce, Collective::reduce, Collective::bcast});
    CHECK(n > 1000);
  }
  // Very small segments: more segments than elements (empty blocks), and a wide tree.
  const auto m = cclx::test::sweep([](const ScheduleRequest& r) { return pipelined_tree(r, 1, 7); },
                                   {Collective::allreduce, Collective::reduce, Collective::bcast},
                                   {1, 2, 9, 20});
  CHECK(m > 0);
  // Reduce with a wider tree through the registry.
  const auto k = cclx::test::sweep(
      [](const ScheduleRequest& r) {
        return cclx::algo::generate_by_name("pipelined_tree", r,
                                            {{"segment_bytes", 256}, {"fanout", 4}});
      },
      {Collective::reduce}, {1, 2, 5, 17, 64});
  CHECK(k > 0);
}
