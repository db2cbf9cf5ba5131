// The native margin (tune/margin.hpp): a tuning table or the online tuner leaves native only for a
// clear win, i.e. at least the margin in the medians and, where repetitions are recorded, faster
// in every repetition pair; table lookup boundaries and fallback with the margin applied;
// repetitions in the table format (round trip, merge, old tables without them, errors).
#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/tune/online.hpp"
#include "cclx/tune/selector.hpp"
#include "support.hpp"

using namespace cclx::tune;
using cclx::sched::Collective;
using cclx::test::contains;
using cclx::test::error_of;

namespace {
Workload allreduce(std::size_t bytes, bool commutative = true) {
  Workload w;
  w.collective = Collective::allreduce;
  w.nranks = 2;
  w.bytes = bytes;
  w.elem_size = 4;
  w.commutative = commutative;
  return w;
}
Selector with_table(const std::vector<TableEntry>& entries, double margin = kNativeMargin) {
  Selector::Config c;
  c.table = TuningTable{};
  for (const auto& e : entries) c.table->record(e);
  c.table_origin = "t.json";
  c.native_margin = margin;
  return Selector(c);
}
}  // namespace

TEST_CASE("tune margin: the rule at its boundaries") {
  CHECK(unclear_win(1.0, {}, 1.031, {}).empty());  // 3.1% faster: clear
  CHECK(contains(unclear_win(1.0, {}, 1.029, {}), "2.9% faster than native, under the 3% margin"));
  CHECK_FALSE(unclear_win(1.0, {}, 0.9, {}).empty());    // slower than native
  CHECK(unclear_win(1.0, {}, 1.029, {}, 0.02).empty());  // another margin
  const std::vector<double> native{1.5, 1.5, 1.5}, wins{1.0, 1.4, 1.0}, loses_one{1.0, 1.5, 1.0};
  CHECK(unclear_win(1.0, wins, 1.5, native).empty());
  CHECK(contains(unclear_win(1.0, loses_one, 1.5, native),
                 "not faster than native in repetition 2 of 3"));
  // Unequal counts (merged from different runs): the common prefix is compared.
  CHECK(unclear_win(1.0, std::vector<double>{1.0}, 1.5, native).empty());
}

TEST_CASE("tune margin: the sign test over repetition pairs") {
  // The fewest wins with P(X >= k) <= 1/32 for X ~ Binomial(m, 1/2), at most m.
  CHECK(required_wins(0) == 0);
  for (std::size_t m = 1; m <= 5; ++m) CHECK(required_wins(m) == m);  // every pair
  CHECK(required_wins(6) == 6);    // P(X >= 6) = 1/64, P(X >= 5) = 7/64
  CHECK(required_wins(9) == 8);    // 10/512 = 0.020; 46/512 = 0.090
  CHECK(required_wins(15) == 12);  // 576/32768 = 0.018; 1941/32768 = 0.059
  CHECK(required_wins(27) == 19);  // pooled launches: 3 x 9
  // Brute force: the defining property for every m up to 40.
  for (std::size_t m = 1; m <= 40; ++m) {
    const auto tail = [m](std::size_t k) {
      double t = 0, c = 1;  // C(m, 0)
      for (std::size_t i = 0; i <= m; ++i) {
        if (i >= k) t += c;
        c = c * static_cast<double>(m - i) / static_cast<double>(i + 1);
      }
      return t / std::ldexp(1.0, static_cast<int>(m));
    };
    const std::size_t k = required_wins(m);
    CAPTURE(m);
    CHECK((k == m || tail(k) <= kSignTestLevel));
    CHECK((k == 0 || tail(k - 1) > kSignTestLevel));
  }
  // 9 pairs: one loss passes, two do not; the message counts the wins.
  const std::vector<double> native(9, 1.5);
  std::vector<double> cand(9, 1.0);
  cand[3] = 1.6;
  CHECK(unclear_win(1.0, cand, 1.5, native).empty());
  cand[7] = 1.6;
  CHECK(contains(unclear_win(1.0, cand, 1.5, native),
                 "faster than native in 7 of 9 repetitions, under 8"));
  // Launch-level reversals (three launches of 5 pooled: wins in two, losses in one) fail.
  std::vector<double> flips(15, 1.0), nat(15, 1.5);
  for (std::size_t r = 10; r < 15; ++r) flips[r] = 2.0;
  CHECK(contains(unclear_win(1.0, flips, 1.5, nat), "10 of 15 repetitions, under 12"));
}

TEST_CASE("tune margin: a table keeps native unless a candidate clearly beats it") {
  SUBCASE("a win under the margin") {
    Selector s = with_table({{Collective::allreduce, 2, 64, {{"native", 1.0}, {"ring", 0.98}}}});
    const Decision& d = s.decide(allreduce(64));
    CHECK(d.source == Source::table);
    CHECK(d.choice.native());
    CHECK(contains(d.explanation, "native margin; ring 2.0% faster than native, under the 3%"));
    // With no margin the measured winner is taken.
    CHECK(with_table({{Collective::allreduce, 2, 64, {{"native", 1.0}, {"ring", 0.98}}}}, 0)
              .decide(allreduce(64))
              .choice.algorithm == "ring");
  }
  SUBCASE("a win that one repetition contradicts; the fastest clear winner instead") {
    TableEntry e{Collective::allreduce, 2, 1024, {{"native", 1.0}, {"ring", 0.8}, {"rhd", 0.9}}};
    e.reps_us = {
        {"native", {1.0, 0.9, 1.1}}, {"ring", {0.7, 0.8, 1.2}}, {"rhd", {0.9, 0.85, 0.95}}};
    Selector s = with_table({e});
    const Decision& d = s.decide(allreduce(1024));
    CHECK(d.choice.algorithm == "rhd");
    CHECK(contains(d.explanation, "ring not faster than native in repetition 3 of 3"));
    e.reps_us["rhd"] = {0.9, 0.95, 0.95};  // rhd loses repetition 2: native stays
    CHECK(with_table({e}).decide(allreduce(1024)).choice.native());
  }
  SUBCASE("a table without native has no reference: its fastest candidate") {
    Selector s = with_table({{Collective::allreduce, 2, 64, {{"rhd", 1.0}, {"ring", 0.99}}}});
    CHECK(s.decide(allreduce(64)).choice.algorithm == "ring");
  }
}

TEST_CASE("tune margin: lookup boundaries and fallback with the margin applied") {
  // At 8 B ring wins clearly; at 64 B only by 1%: the nearest entry on a log2(bytes + 1) scale
  // decides, the boundary between them is at sqrt(9 * 65) - 1 = 23.2 bytes.
  Selector s = with_table({{Collective::allreduce, 2, 8, {{"native", 2.0}, {"ring", 1.0}}},
                           {Collective::allreduce, 2, 64, {{"native", 1.0}, {"ring", 0.99}}}});
  CHECK(s.decide(allreduce(1)).choice.algorithm == "ring");
  CHECK(s.decide(allreduce(23)).choice.algorithm == "ring");
  CHECK(s.decide(allreduce(24)).choice.native());
  CHECK(s.decide(allreduce(1 << 30)).choice.native());
  CHECK(s.decide(allreduce(8)).exact);
  CHECK_FALSE(s.decide(allreduce(23)).exact);
  // A clear winner that cannot serve the call is skipped and explained; the next clear winner
  // serves, else native (never the model: the table has native).
  Selector t = with_table(
      {{Collective::allreduce, 2, 8, {{"native", 3.0}, {"ring", 1.0}, {"binomial_tree", 2.0}}},
       {Collective::allreduce, 2, 64, {{"native", 3.0}, {"ring", 1.0}, {"binomial_tree", 2.95}}}});
  const Decision& a = t.decide(allreduce(8, false));
  CHECK(a.choice.algorithm == "binomial_tree");  // keeps rank order
  CHECK(contains(a.explanation, "table chose ring but ring reorders contributions"));
  const Decision& b = t.decide(allreduce(64, false));
  CHECK(b.source == Source::table);
  CHECK(b.choice.native());  // binomial_tree is only 1.7% faster
  CHECK(contains(b.explanation, "binomial_tree 1.7% faster than native"));
}

TEST_CASE("tune margin: repetitions round-trip, merge, and old tables still load") {
  TuningTable t;
  TableEntry e{Collective::bcast, 2, 8, {{"native", 1.0}, {"ring(segment_bytes=16K)", 0.5}}};
  e.reps_us = {{"native", {1.0, 1.1}}, {"ring(segment_bytes=16K)", {0.5, 0.4}}};
  t.record(e);
  const TuningTable back = TuningTable::parse(t.dump());
  REQUIRE(back.entries().size() == 1);
  CHECK(back.entries()[0].reps_us == e.reps_us);
  CHECK(contains(t.dump(), "\"reps_us\""));
  // A candidate measured again without repetitions loses its old ones; others keep theirs.
  TuningTable later;
  later.record({Collective::bcast, 2, 8, {{"native", 0.9}}});
  t.merge(later);
  CHECK_FALSE(t.entries()[0].reps_us.contains("native"));
  CHECK(t.entries()[0].reps_us.contains("ring(segment_bytes=16K)"));
  // Pooling (separate launches of one measurement): repetitions of a candidate measured with them
  // in both tables are concatenated and its time becomes their median; a candidate without
  // repetitions on one side is replaced as by merge(); new entries are added.
  {
    TuningTable a, b;
    TableEntry ea{Collective::allreduce, 2, 64, {{"native", 2.0}, {"ring", 1.0}, {"rhd", 3.0}}};
    ea.reps_us = {{"native", {2.0, 2.1, 1.9}}, {"ring", {1.0, 0.9, 1.1}}};
    a.record(ea);
    TableEntry eb{Collective::allreduce, 2, 64, {{"native", 1.0}, {"ring", 3.0}, {"rhd", 4.0}}};
    eb.reps_us = {{"native", {1.0, 1.2, 0.8}}, {"ring", {3.0, 2.9, 3.1}}, {"rhd", {4.0, 4.0, 4.0}}};
    b.record(eb);
    b.record({Collective::bcast, 2, 8, {{"native", 0.5}}});
    a.pool(b);
    REQUIRE(a.entries().size() == 2);
    const TableEntry& p = a.entries()[0];
    CHECK(p.reps_us.at("native") == std::vector<double>{2.0, 2.1, 1.9, 1.0, 1.2, 0.8});
    CHECK(p.times_us.at("native") == doctest::Approx(1.55));  // (1.2 + 1.9) / 2
    CHECK(p.times_us.at("ring") == doctest::Approx(2.0));     // (1.1 + 2.9) / 2
    CHECK(p.times_us.at("rhd") == 4.0);  // no repetitions in `a`: b's measurement replaces it
    CHECK(p.reps_us.at("rhd").size() == 3);
  }
  // A version-1 table written before repetitions existed: loads, and dumps without them.
  const TuningTable old = TuningTable::parse(R"({"format":"cclx-tune-table","version":1,
      "entries":[{"collective":"allreduce","nranks":2,"bytes":8,"times_us":{"native":1,"ring":2}}]})");
  CHECK(old.entries()[0].reps_us.empty());
  CHECK_FALSE(contains(old.dump(), "reps_us"));

  const auto err = [](const char* reps) {
    return error_of([&] {
      (void)TuningTable::parse(std::string(R"({"format":"cclx-tune-table","version":1,"entries":[
          {"collective":"allreduce","nranks":2,"bytes":8,"times_us":{"native":1},"reps_us":)") +
                                   reps + "}]}",
                               "t.json");
    });
  };
  CHECK(contains(err(R"({"ring":[1]})"), "t.json: entries[0]: reps_us of 'ring' has no time"));
  CHECK(contains(err(R"({"native":[]})"), "non-empty list"));
  CHECK(contains(err(R"({"native":[1,-2]})"), "positive numbers"));
  CHECK(contains(err(R"({"rign":[1]})"), "entries[0]"));
}

TEST_CASE("tune margin: the online tuner keeps native when its best wins by less") {
  Workload w = allreduce(64);
  const auto converge = [&](double others) {
    OnlineTuner t(w, subspaces_for(w), alpha_beta_model());
    for (int i = 0; i < 200 && !t.converged(); ++i) t.observe(t.next().native() ? 1e-6 : others);
    REQUIRE(t.converged());
    return t;
  };
  const OnlineTuner close = converge(0.98e-6);  // everything else 2% faster
  CHECK(close.best().native());
  CHECK(close.best_score() == doctest::Approx(1e-6));
  CHECK_FALSE(converge(0.9e-6).best().native());  // 10% faster: leaves native
}
