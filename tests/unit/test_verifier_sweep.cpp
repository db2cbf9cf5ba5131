// Every registered generator, every collective it lists, n = 1..64, in and out of place, first and
// last root, several counts: the verifier must accept all of them. The v-collectives get random
// per-rank block sizes with zeros (alltoallv a random count matrix, symmetric in place), so a
// transfer whose two ends differ in size is caught. New generators are picked up through
// cclx::algo::generators() without touching this file.
#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/schedule/verifier.hpp"
#include "sweep_limit.hpp"

namespace {

using namespace cclx::sched;

// Requests a generator documents as unsupported (in generate.hpp or its own header). A generator
// that throws for anything not listed here fails the sweep: document the restriction, then add
// it here with the place it is documented.
struct DocumentedLimit {
  const char* algorithm;
  const char* documented_in;
  std::function<bool(const ScheduleRequest&)> unsupported;
};
// (None at present: rhd's out-of-place reduce_scatter for n > 2 became possible with
// Schedule::scratch_copies.)
const std::vector<DocumentedLimit> kDocumentedLimits = {};

const DocumentedLimit* documented_limit(const std::string& algo, const ScheduleRequest& req) {
  for (const auto& l : kDocumentedLimits)
    if (algo == l.algorithm && l.unsupported(req)) return &l;
  return nullptr;
}

bool rooted(Collective c) {
  return cclx::coll::visit(c, [](auto d) { return d.rooted; });
}

// Per-rank block sizes of a v-collective on n ranks, pattern k of v_patterns: all zero, small with
// about a third zeros, large-ish uneven with zeros, and (r * 7 + 3) % 5.
constexpr int v_patterns = 4;
BlockSizes v_sizes(Collective c, int n, int k, bool in_place, std::uint64_t seed) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(n * 131 + k);
  auto next = [&] {  // xorshift64*
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return (x * 0x2545f4914f6cdd1dull) >> 33;
  };
  auto value = [&](std::size_t i) -> std::size_t {
    switch (k) {
      case 0:
        return 0;
      case 1:
        return next() % 3 == 0 ? 0 : next() % 6;
      case 2:
        return next() % 4 == 0 ? 0 : next() % 1000;
      default:
        return (i * 7 + 3) % 5;
    }
  };
  const auto N = static_cast<std::size_t>(n);
  BlockSizes s;
  if (c == Collective::alltoallv) {
    // m[i][j]: elements rank i sends to rank j; in place the one buffer's layout is recvcounts,
    // which needs m symmetric.
    std::vector<std::vector<std::size_t>> m(N, std::vector<std::size_t>(N));
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) m[i][j] = in_place && j < i ? m[j][i] : value(i * N + j);
    s.in = m;
    s.out.assign(N, std::vector<std::size_t>(N));
    for (std::size_t i = 0; i < N; ++i)
      for (std::size_t j = 0; j < N; ++j) s.out[j][i] = m[i][j];
    return s;
  }
  std::vector<std::size_t> counts(N);
  for (std::size_t b = 0; b < N; ++b) counts[b] = value(b);
  s.in.assign(N, counts);
  s.out = s.in;
  return s;
}

std::string describe(const std::string& algo, const ScheduleRequest& req, std::size_t count) {
  return algo + " " + std::string(to_string(req.collective)) + " n=" + std::to_string(req.nranks) +
         (req.in_place ? " in-place" : "") +
         (rooted(req.collective) ? " root=" + std::to_string(req.root) : "") +
         " count=" + std::to_string(count);
}

}  // namespace

TEST_CASE("every registered generator verifies for n = 1..64") {
  REQUIRE_FALSE(cclx::algo::generators().empty());
  std::size_t verified = 0, skipped = 0;
  for (const auto& g : cclx::algo::generators()) {
    for (const Collective c : g.collectives) {
      for (int n = 1; n <= std::min(64, cclx::test::sweep_max_n()); ++n) {
        std::vector<int> roots{0};
        if (rooted(c) && n > 1) roots.push_back(n - 1);
        for (const bool in_place : {false, true}) {
          for (const int root : roots) {
            for (std::size_t per : {std::size_t{0}, std::size_t{1}, std::size_t(n - 1),
                                    std::size_t(n + 1), std::size_t{1000}}) {
              // Alltoall's count is the total over all peers: per-peer counts times n.
              const std::size_t count = c == Collective::alltoall ? per * std::size_t(n) : per;
              ScheduleRequest req{c, n, root, in_place, count * 4};
              const auto what = describe(g.name, req, count);
              Schedule s;
              try {
                s = g.generate(req, {});
              } catch (const cclx::Error& e) {
                if (documented_limit(g.name, req)) {
                  ++skipped;
                  continue;
                }
                FAIL_CHECK(what << ": generator threw an undocumented cclx::Error: "
                                << std::string(e.what()));
                continue;
              }
              CHECK_MESSAGE(s.collective == c, what);
              CHECK_MESSAGE(s.nranks == n, what);
              CHECK_MESSAGE(s.in_place == in_place, what);
              if (rooted(c)) CHECK_MESSAGE(s.root == root, what);
              if (cclx::coll::has_variable_counts(c)) {
                // The schedule does not depend on the counts: one per request, checked against
                // several block-size patterns (the `per` loop stands for the pattern here).
                if (per != 0) continue;
                for (int k = 0; k < v_patterns; ++k) {
                  const BlockSizes sizes = v_sizes(c, n, k, in_place, verified);
                  const auto rep = verify(s, sizes, 4);
                  std::string errors;
                  for (const auto& e : rep.errors) errors += "\n  " + e;
                  CHECK_MESSAGE(rep.ok, what << " block-size pattern " << k << errors);
                  ++verified;
                }
                continue;
              }
              const auto rep = verify(s, count, 4);
              std::string errors;
              for (const auto& e : rep.errors) errors += "\n  " + e;
              CHECK_MESSAGE(rep.ok, what << errors);
              ++verified;
            }
          }
        }
      }
    }
  }
  MESSAGE("verified " << verified << " schedules, skipped " << skipped
                      << " documented-unsupported requests");
}

TEST_CASE("single-rank generation matches the full schedule") {
  // Executors generate only their own rank's program (only_rank); it must be the same program.
  // Rooted collectives at the first, a middle and the last rank.
  for (const auto& g : cclx::algo::generators()) {
    for (const Collective c : g.collectives) {
      for (int n : {1, 2, 3, 5, 6, 8, 13}) {
        const std::set<int> roots = rooted(c) ? std::set<int>{0, n / 2, n - 1} : std::set<int>{0};
        for (const int root : roots)
          for (const bool in_place : {false, true}) {
            ScheduleRequest req{c, n, root, in_place, 4096};
            Schedule full;
            try {
              full = g.generate(req, {});
            } catch (const cclx::Error&) {
              continue;  // the sweep above judges whether that is documented
            }
            for (int r = 0; r < n; ++r) {
              auto one = req;
              one.only_rank = r;
              const auto s = g.generate(one, {});
              REQUIRE(s.programs.size() > static_cast<std::size_t>(r));
              CHECK_MESSAGE(s.programs[static_cast<std::size_t>(r)] ==
                                full.programs[static_cast<std::size_t>(r)],
                            describe(g.name, one, 1024) << " rank " << r);
              // The executor sizes Scratch from its own program, but the declared copies must not
              // depend on which rank asked.
              CHECK_MESSAGE(s.scratch_copies == full.scratch_copies, describe(g.name, one, 1024)
                                                                         << " rank " << r);
            }
            // A range of ranks (only_rank_end), as algo::Auto's model asks host by host: the
            // same programs in the range, none outside it.
            for (const std::pair<int, int> range :
                 {std::pair{0, (n + 1) / 2}, std::pair{n / 2, n}}) {
              auto some = req;
              some.only_rank = range.first;
              some.only_rank_end = range.second;
              const auto s = g.generate(some, {});
              for (int r = 0; r < n; ++r)
                CHECK_MESSAGE((some.wants(r) ? s.programs[static_cast<std::size_t>(r)] ==
                                                   full.programs[static_cast<std::size_t>(r)]
                                             : s.programs[static_cast<std::size_t>(r)].ops.empty()),
                              describe(g.name, some, 1024) << " ranks " << range.first << ".."
                                                           << range.second << ", rank " << r);
            }
          }
      }
    }
  }
}

TEST_CASE("every generator split into channels verifies; one channel is the unsplit schedule") {
  // channels.hpp: k parts of the partition run the algorithm's schedule side by side. Counts
  // below k * nblocks leave parts (or blocks of them) empty.
  std::size_t verified = 0;
  for (const auto& g : cclx::algo::generators()) {
    if (!g.takes("channels")) continue;
    for (const Collective c : g.collectives) {
      for (int n : {1, 2, 3, 4, 5, 6, 7, 8, 12, 16}) {
        for (const bool in_place : {false, true}) {
          ScheduleRequest req{c, n, rooted(c) ? n - 1 : 0, in_place, 4000};
          Schedule plain;
          try {
            plain = g.generate(req, {});
          } catch (const cclx::Error&) {
            continue;  // judged by the sweep above
          }
          const Schedule one = cclx::algo::generate_by_name(g.name, req, {{"channels", 1}});
          CHECK_MESSAGE((one.programs == plain.programs && one.nblocks == plain.nblocks &&
                         one.params == plain.params),
                        describe(g.name, req, 0));
          if (!cclx::sched::splits_into_channels(c)) {
            CHECK_THROWS_WITH_AS((void)cclx::algo::generate_by_name(g.name, req, {{"channels", 2}}),
                                 doctest::Contains("does not split into channels"), cclx::Error);
            continue;
          }
          for (const long long k : {2, 3, 5}) {
            const Schedule s = cclx::algo::generate_by_name(g.name, req, {{"channels", k}});
            CHECK(s.nblocks == plain.nblocks * static_cast<std::uint32_t>(k));
            for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(k - 1),
                                      std::size_t(n) * std::size_t(k) + 1, std::size_t{1000}}) {
              const auto rep = verify(s, count, 4);
              std::string errors;
              for (const auto& e : rep.errors) errors += "\n  " + e;
              CHECK_MESSAGE(rep.ok, describe(g.name, req, count) << " channels=" << k << errors);
              ++verified;
            }
            auto mine = req;  // what an executor generates: its own program only
            mine.only_rank = n - 1;
            CHECK(cclx::algo::generate_by_name(g.name, mine, {{"channels", k}})
                      .programs[static_cast<std::size_t>(n - 1)] ==
                  s.programs[static_cast<std::size_t>(n - 1)]);
          }
        }
      }
    }
  }
  CHECK(verified > 0);
  MESSAGE("verified " << verified << " channel-split schedules");
  const ScheduleRequest req{Collective::allreduce, 4, 0, false, 4000};
  for (const long long bad : {0LL, -1LL, max_channels + 1})
    CHECK_THROWS_WITH_AS((void)cclx::algo::generate_by_name("ring", req, {{"channels", bad}}),
                         doctest::Contains("ring: channels must be in [1, 64]"), cclx::Error);
}
