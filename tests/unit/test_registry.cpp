// Which collectives an algorithm serves, and where it keeps rank order, is declared once, by its
// policy (algo::Ring::collectives, ...). These tests hold everything else to it: the registry, the
// generators (they serve exactly that and set Schedule::preserves_order from it), and the README's
// algorithm table.
#include <doctest/doctest.h>

#include <algorithm>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/cclx.hpp"
#include "cclx/relay/adaptive.hpp"

namespace {

using cclx::sched::Collective;

template <class F>
void for_each_policy(F&& f) {
  namespace algo = cclx::algo;
  f("Native", algo::Native{});
  f("Ring", algo::Ring{});
  f("RecursiveHalvingDoubling", algo::RecursiveHalvingDoubling{});
  f("RhdElimination", algo::RhdElimination{});
  f("RecursiveDoubling", algo::RecursiveDoubling{});
  f("BinomialTree", algo::BinomialTree{});
  f("PipelinedTree", algo::PipelinedTree{});
  f("StragglAR", algo::StragglAR{});
  f("StragglerAware", algo::StragglerAware<>{});
  f("Dissemination", algo::Dissemination{});
  f("CanonicalHalving", algo::CanonicalHalving{});
  // The README row of a composed policy lists what it serves with the Inter that serves most.
  f("MultiLane", algo::MultiLane<algo::RecursiveHalvingDoubling>{});
  f("LeaderBased", algo::LeaderBased<algo::RecursiveHalvingDoubling>{});
  f("Auto", algo::Auto{});
  f("Adaptive", algo::Adaptive{});
}

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(' '), e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string{} : s.substr(b, e - b + 1);
}

std::vector<std::string> cells(const std::string& row) {
  std::vector<std::string> out;
  std::stringstream ss(row);
  std::string cell;
  std::getline(ss, cell, '|');  // before the first bar
  while (std::getline(ss, cell, '|')) out.push_back(trim(cell));
  return out;
}

// "allreduce, reduce" -> names; "all" -> every collective; "none" -> empty.
std::set<std::string> names(const std::string& cell) {
  std::set<std::string> out;
  if (cell == "none") return out;
  if (cell == "all") {
    for (Collective c : cclx::coll::all_collectives) out.emplace(cclx::sched::to_string(c));
    return out;
  }
  std::stringstream ss(cell);
  std::string item;
  while (std::getline(ss, item, ',')) out.insert(trim(item));
  return out;
}

template <class Array>
std::set<std::string> names_of(const Array& cs, bool reducing_only) {
  std::set<std::string> out;
  for (Collective c : cs)
    if (!reducing_only || cclx::coll::visit(c, [](auto d) { return d.reduces; }))
      out.emplace(cclx::sched::to_string(c));
  return out;
}

}  // namespace

TEST_CASE("registry: every generator serves exactly what its policy declares") {
  for (const auto& g : cclx::algo::generators())
    for (Collective c : cclx::coll::all_collectives)
      for (int n : {1, 2, 3, 4, 5, 7, 8, 9}) {
        cclx::sched::ScheduleRequest req;
        req.collective = c;
        req.nranks = n;
        const bool served =
            std::find(g.collectives.begin(), g.collectives.end(), c) != g.collectives.end();
        CAPTURE(g.name);
        CAPTURE(cclx::sched::to_string(c));
        CAPTURE(n);
        if (!served) {
          CHECK_THROWS_AS((void)cclx::algo::generate_by_name(g.name, req), cclx::Error);
          continue;
        }
        const auto s = cclx::algo::generate_by_name(g.name, req);
        CHECK(s.preserves_order == (n == 1 || cclx::algo::keeps_rank_order(g.name, c)));
      }
}

TEST_CASE("registry: the README's algorithm table states the policies' declarations") {
  std::ifstream readme(CCLX_SOURCE_DIR "/README.md");
  REQUIRE(readme.good());
  std::set<std::string> seen;
  std::string line;
  while (std::getline(readme, line)) {
    if (line.rfind("| `algo::", 0) != 0) continue;
    const auto row = cells(line);
    REQUIRE(row.size() >= 3);
    // "`algo::Ring{.segment_bytes}`" -> "Ring"
    std::string policy = row[0].substr(std::string("`algo::").size());
    policy = policy.substr(0, policy.find_first_of("{<`"));
    bool known = false;
    for_each_policy([&](std::string_view label, const auto& a) {
      using A = std::decay_t<decltype(a)>;
      if (label != policy) return;
      known = true;
      seen.insert(policy);
      CAPTURE(policy);
      CHECK(names(row[1]) == names_of(A::collectives, false));
      // The order column speaks of reductions only ("all" = every reducing collective).
      std::set<std::string> order;
      for (const auto& name : names(row[2]))
        if (cclx::coll::visit(cclx::sched::collective_from_string(name),
                              [](auto d) { return d.reduces; }))
          order.insert(name);
      CHECK(order == names_of(A::keeps_rank_order, true));
    });
    CHECK_MESSAGE(known, "README lists an unknown policy: " << policy);
  }
  for_each_policy([&](std::string_view label, const auto&) {
    CHECK_MESSAGE(seen.count(std::string(label)), "README's table misses " << label);
  });
}

TEST_CASE("registry: each policy's parameters: defaults in range, set by name, ranges enforced") {
  std::apply(
      [](auto... policies) {
        (
            [](auto policy) {
              using A = decltype(policy);
              CAPTURE(A::name);
              const auto& g = cclx::algo::generator(A::name);
              REQUIRE(g.params.size() == A::params().size());
              for (const auto& p : g.params) {
                CAPTURE(p.name);
                CHECK(p.min <= p.default_value);
                CHECK(p.default_value <= p.max);
                CHECK_FALSE(p.doc.empty());
                for (const long long v :
                     {p.min, p.max == cclx::algo::kUnbounded ? p.min + 7 : p.max}) {
                  const A a = cclx::algo::from_params<A>({{p.name, v}});
                  bool checked = false;
                  for (const auto& d : A::params())
                    if (d.name == p.name) {
                      CHECK(d.get(a) == v);
                      checked = true;
                    }
                  CHECK(checked);
                }
                CHECK_THROWS_WITH_AS((void)cclx::algo::from_params<A>({{p.name, p.min - 1}}),
                                     doctest::Contains((std::string(p.name) + " must be").c_str()),
                                     cclx::Error);
              }
              CHECK_THROWS_WITH_AS((void)cclx::algo::from_params<A>({{"no_such_parameter", 1}}),
                                   doctest::Contains("has no parameter 'no_such_parameter'"),
                                   cclx::Error);
            }(policies),
            ...);
      },
      cclx::algo::registry{});
}
