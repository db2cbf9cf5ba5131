// The canonical reduction order (schedule/canonical_order.hpp) and the verifier's check of a
// schedule's canonical_order claim: the reduction tree of every element, not only its set of
// contributions.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>

#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/canonical_order.hpp"
#include "cclx/schedule/format.hpp"
#include "cclx/schedule/verifier.hpp"
#include "support.hpp"
#include "sweep_limit.hpp"

using namespace cclx::sched;
using cclx::test::all_errors;
using cclx::test::contains;

namespace {

// A reduce to rank 0 of one block: every other rank sends its input at step 0 (rank j's lands in
// Scratch copy j), and rank 0 combines them at step 1 by `combine(lo, hi, builder)`, which leaves
// the reduction of ranks [lo, hi) in loc(lo, hi).
Region loc(int lo, int hi, int n) {
  if (lo == 0) return hi == 1 && n > 1 ? in(0) : out(0);
  return scratch(static_cast<std::uint32_t>(lo));
}

// Ranks [lo, hi) combined in the canonical order.
void combine_canonical(int lo, int hi, int n, ProgramBuilder& b) {
  if (hi - lo == 1) {
    if (n == 1) b.copy(out(0), in(0));
    return;
  }
  const int m = canonical_split(lo, hi);
  combine_canonical(lo, m, n, b);
  combine_canonical(m, hi, n, b);
  b.reduce(loc(lo, hi, n), loc(lo, m, n), loc(m, hi, n));
}

Schedule gather_reduce(int n, bool canonical, bool claim) {
  Schedule s;
  s.algorithm = canonical ? "gather-canonical" : "gather-chain";
  s.collective = Collective::reduce;
  s.nranks = n;
  s.nblocks = 1;
  s.scratch_copies = static_cast<std::uint32_t>(n);
  s.canonical_order = claim;
  s.programs.resize(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    if (r > 0) {
      b.send(0, in(0)).end_step();
      continue;
    }
    for (int j = 1; j < n; ++j) b.recv(j, scratch(static_cast<std::uint32_t>(j)));
    if (n > 1) b.end_step();
    if (canonical) {
      combine_canonical(0, n, n, b);
    } else if (n == 1) {
      b.copy(out(0), in(0));
    } else {  // ((0+1)+2)+...: one chain, the same contributions
      b.reduce(out(0), in(0), scratch(1));
      for (int j = 2; j < n; ++j) b.reduce(out(0), out(0), scratch(static_cast<std::uint32_t>(j)));
    }
    b.end_step();
  }
  return s;
}

}  // namespace

TEST_CASE("canonical order: the power-of-two split, written out") {
  CHECK(canonical_expression(1) == "0");
  CHECK(canonical_expression(2) == "0+1");
  CHECK(canonical_expression(3) == "(0+1)+2");
  CHECK(canonical_expression(4) == "(0+1)+(2+3)");
  CHECK(canonical_expression(5) == "((0+1)+(2+3))+4");
  CHECK(canonical_expression(6) == "((0+1)+(2+3))+(4+5)");
  CHECK(canonical_expression(7) == "((0+1)+(2+3))+((4+5)+6)");
  CHECK(canonical_expression(8) == "((0+1)+(2+3))+((4+5)+(6+7))");
  CHECK(canonical_split(0, 2) == 1);
  CHECK(canonical_split(0, 9) == 8);
  CHECK(canonical_split(8, 16) == 12);
  CHECK(canonical_split(3, 6) == 5);
  CHECK_THROWS_AS((void)canonical_split(4, 5), cclx::Error);
  CHECK_THROWS_AS((void)canonical_expression(0), cclx::Error);
}

TEST_CASE("verifier: a schedule that claims canonical_order is checked tree by tree") {
  for (int n = 1; n <= 64; ++n) {
    CAPTURE(n);
    const auto rep = verify(gather_reduce(n, true, true), 10, 4);
    INFO(all_errors(rep));
    CHECK(rep.ok);
  }
  // The same contributions in a chain: right as a set, wrong as a tree from n = 4 on (up to n = 3
  // the chain is the canonical tree: 0+1, (0+1)+2).
  for (int n = 1; n <= 16; ++n) {
    CAPTURE(n);
    const auto claimed = verify(gather_reduce(n, false, true), 10, 4);
    CHECK(claimed.ok == (n <= 3));
    const auto unclaimed = verify(gather_reduce(n, false, false), 10, 4);
    INFO(all_errors(unclaimed));
    CHECK(unclaimed.ok);  // without the claim the order is not checked
  }
  const auto rep = verify(gather_reduce(4, false, true), 10, 4);
  INFO(all_errors(rep));
  REQUIRE(rep.errors.size() == 1);
  CHECK(contains(rep.errors[0],
                 "rank 0 out[0] is reduced as ((0+1)+2)+3, not in the canonical "
                 "order (0+1)+(2+3)"));
}

TEST_CASE("verifier: canonical_order survives the schedule's JSON form") {
  const Schedule s = gather_reduce(5, true, true);
  const Schedule back = schedule_from_json(to_json(s));
  CHECK(back.canonical_order);
  CHECK(verify(back, 10, 4).ok);
  CHECK_FALSE(schedule_from_json(to_json(gather_reduce(5, true, false))).canonical_order);
}

TEST_CASE(
    "canonical order: every algorithm that declares it keeps it, n = 1..64, every channel count") {
  int checked = 0;
  for (const auto& g : cclx::algo::generators()) {
    for (const Collective c : g.collectives) {
      const bool listed = std::find(g.canonical_order.begin(), g.canonical_order.end(), c) !=
                          g.canonical_order.end();
      for (int n = 1; n <= std::min(64, cclx::test::sweep_max_n()); ++n) {
        // Where the policy declares nothing, only that its schedules claim nothing either.
        if (!listed && n > 9) break;
        const bool declared = g.reduces_canonically(c, n);
        const int roots[] = {0, n / 2, n - 1};
        for (const int root : roots) {
          for (const bool in_place : {false, true}) {
            for (const long long channels : {1LL, 3LL}) {
              CAPTURE(g.name);
              const std::string coll(to_string(c));
              CAPTURE(coll);
              CAPTURE(n);
              CAPTURE(root);
              CAPTURE(in_place);
              CAPTURE(channels);
              ScheduleRequest req{c, n, root, in_place};
              req.bytes = 4000;
              Schedule s;
              try {
                s = cclx::algo::generate_by_name(g.name, req, {{"channels", channels}});
              } catch (const cclx::Error&) {
                continue;  // a rank count, root or placement the algorithm does not serve
              }
              CHECK(s.canonical_order == declared);  // the claim is the declaration
              if (!declared) continue;
              const auto rep = verify(s, 1000, 4);
              INFO(all_errors(rep));
              CHECK(rep.ok);
              ++checked;
            }
            if (!declared) break;
          }
          if (!declared) break;
        }
      }
    }
  }
  CHECK(checked > 0);
}
