// JSON round trips (exact, for every registered generator and for odd hand-built ops), the
// reader's errors on malformed input, and the text listing.
#include <doctest/doctest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/format.hpp"

namespace {

using namespace cclx::sched;

void check_same(const Schedule& a, const Schedule& b) {
  CHECK(a.algorithm == b.algorithm);
  CHECK(a.params == b.params);
  CHECK(a.collective == b.collective);
  CHECK(a.nranks == b.nranks);
  CHECK(a.root == b.root);
  CHECK(a.in_place == b.in_place);
  CHECK(a.nblocks == b.nblocks);
  CHECK(a.preserves_order == b.preserves_order);
  CHECK(a.prologue_steps == b.prologue_steps);
  CHECK(a.scratch_copies == b.scratch_copies);
  CHECK(a.programs == b.programs);
}

std::string reader_error(const std::string& json) {
  try {
    (void)schedule_from_json(json);
  } catch (const cclx::Error& e) {
    return e.what();
  }
  return "(no error)";
}

}  // namespace

TEST_CASE("JSON round trip is exact for every generator") {
  for (const auto& g : cclx::algo::generators())
    for (const Collective c : g.collectives)
      for (int n : {1, 2, 5, 8})
        for (const bool in_place : {false, true}) {
          const bool rooted = cclx::coll::visit(c, [](auto d) { return d.rooted; });
          ScheduleRequest req{c, n, rooted ? n - 1 : 0, in_place, 4096};
          Schedule s;
          try {
            s = g.generate(req, {});
          } catch (const cclx::Error&) {
            continue;  // the verifier sweep judges unsupported requests
          }
          INFO(g.name << " " << to_string(c) << " n=" << n);
          const auto text = to_json(s);
          check_same(schedule_from_json(text), s);
          CHECK(schedule_from_json(to_json(s, 2)).programs == s.programs);
          const auto j = nlohmann::json::parse(text);
          CHECK(j["rounds"] == s.num_rounds());
          CHECK(j["prologue_steps"] == s.prologue_steps);
          CHECK(j["rounds_after_prologue"] == s.num_rounds() - s.prologue_steps);
          CHECK(j["scratch_copies"] == s.scratch_copies);
          CHECK(j["programs"].size() == s.programs.size());
        }
}

TEST_CASE("JSON round trip keeps unusual fields and empty steps") {
  Schedule s;
  s.algorithm = "hand \"quoted\"";
  s.params = "segments=4";
  s.collective = Collective::bcast;
  s.nranks = 3;
  s.root = 2;
  s.nblocks = 7;
  s.preserves_order = true;
  s.prologue_steps = 1;
  s.programs.resize(3);
  ProgramBuilder(s.programs[0]).end_step().recv(2, out(0, 7)).end_step();
  ProgramBuilder(s.programs[2]).send(0, out(0, 7)).copy(scratch(1, 0), out(3)).end_step();
  // A field the op kind does not use, set anyway: still reproduced.
  s.programs[2].ops.push_back(Op{OpKind::copy, 5, out(1), out(2), scratch(4)});
  s.programs[2].step_begin.push_back(static_cast<std::uint32_t>(s.programs[2].ops.size()));
  check_same(schedule_from_json(to_json(s)), s);
}

TEST_CASE("JSON and text carry scratch_copies") {
  // A generated schedule with two copies (binomial reduce of 8 ranks onto rank 3).
  const auto s = cclx::algo::generate_by_name("binomial_tree", {Collective::reduce, 8, 3});
  REQUIRE(s.scratch_copies == 2);
  const auto text = to_json(s);
  CHECK(nlohmann::json::parse(text)["scratch_copies"] == 2);
  check_same(schedule_from_json(text), s);
  CHECK(to_text(s).find(" scratch_copies=2") != std::string::npos);
  // The default is not mentioned in the text header.
  CHECK(to_text(cclx::algo::generate_by_name("binomial_tree", {Collective::bcast, 8, 3}))
            .find("scratch_copies") == std::string::npos);

  // Files written before the field existed read as one copy.
  auto j = nlohmann::json::parse(text);
  j.erase("scratch_copies");
  CHECK(schedule_from_json(j.dump()).scratch_copies == 1);
  j["scratch_copies"] = 0;
  CHECK(reader_error(j.dump()).find("$.scratch_copies: 0 out of range") != std::string::npos);
  j["scratch_copies"] = "two";
  CHECK(reader_error(j.dump()).find("$.scratch_copies: expected an integer") != std::string::npos);
  j["scratch_copies"] = 3;
  CHECK(schedule_from_json(j.dump()).scratch_copies == 3);
}

TEST_CASE("JSON reader rejects malformed input with a clear message") {
  Schedule s;
  s.algorithm = "x";
  s.nranks = 2;
  s.programs.resize(2);
  ProgramBuilder(s.programs[0]).send(1, in(0)).end_step();
  ProgramBuilder(s.programs[1]).recv(0, scratch(0)).end_step();
  const auto good = nlohmann::json::parse(to_json(s));
  CHECK(schedule_from_json(good.dump()).programs == s.programs);

  CHECK(reader_error("{").find("schedule JSON: parse error") != std::string::npos);
  CHECK(reader_error("[]").find("$: expected an object") != std::string::npos);

  auto j = good;
  j.erase("nblocks");
  CHECK(reader_error(j.dump()).find("$: missing \"nblocks\"") != std::string::npos);

  j = good;
  j["collective"] = "allscatter";
  CHECK(reader_error(j.dump()).find("$.collective: unknown value 'allscatter'") !=
        std::string::npos);

  j = good;
  j["nranks"] = 0;
  CHECK(reader_error(j.dump()).find("$.nranks: 0 out of range") != std::string::npos);

  j = good;
  j["in_place"] = 1;
  CHECK(reader_error(j.dump()).find("$.in_place: expected true or false") != std::string::npos);

  j = good;
  j["programs"][1]["steps"][0][0]["op"] = "sendrecv";
  CHECK(reader_error(j.dump()).find("$.programs[1].steps[0][0].op: unknown value 'sendrecv'") !=
        std::string::npos);

  j = good;
  j["programs"][0]["steps"][0][0].erase("peer");
  CHECK(reader_error(j.dump()).find("$.programs[0].steps[0][0]: missing \"peer\"") !=
        std::string::npos);

  j = good;
  j["programs"][0]["steps"][0][0]["src"]["count"] = -1;
  CHECK(reader_error(j.dump()).find("$.programs[0].steps[0][0].src.count: -1 out of range") !=
        std::string::npos);

  j = good;
  j["programs"][0]["steps"][0][0]["src"]["first"] = "zero";
  CHECK(reader_error(j.dump()).find("src.first: expected an integer") != std::string::npos);

  j = good;
  j["programs"][1]["rank"] = 0;
  CHECK(reader_error(j.dump()).find("programs must be listed in rank order") != std::string::npos);

  j = good;
  j["programs"][0]["steps"] = "none";
  CHECK(reader_error(j.dump()).find("$.programs[0].steps: expected an array") != std::string::npos);

  j = good;
  j["rounds"] = 5;
  CHECK(reader_error(j.dump()).find("$.rounds: does not match") != std::string::npos);

  j = good;
  j["rounds_after_prologue"] = 99;
  CHECK(reader_error(j.dump()).find("$.rounds_after_prologue: does not match") !=
        std::string::npos);
}

TEST_CASE("text listing shows transfers with their landing regions and local actions") {
  const auto s = ring(ScheduleRequest{Collective::allreduce, 3});
  const auto text = to_text(s);
  CHECK(text.find("ring allreduce n=3 nblocks=3 rounds=4\n") == 0);
  // Out of place, partial sums land in the Out block they are added into; in place, in scratch.
  CHECK(text.find("round 0:\n  r0 -> r1  in[0] -> out[0]\n") != std::string::npos);
  CHECK(text.find("  r1: out[0] = out[0] (+) in[0]\n") != std::string::npos);
  const auto in_place = to_text(ring(ScheduleRequest{Collective::allreduce, 3, 0, true}));
  CHECK(in_place.find("round 0:\n  r0 -> r1  in[0] -> scratch[0]\n") != std::string::npos);
  CHECK(in_place.find("  r1: out[0] = scratch[0] (+) in[0]\n") != std::string::npos);
  CHECK(text.find("round 3:\n") != std::string::npos);
  // Allgather transfers land where they were read: no arrow.
  CHECK(text.find("round 2:\n  r0 -> r1  out[1]\n") != std::string::npos);

  Schedule bad;
  bad.nranks = 2;
  bad.programs.resize(2);
  ProgramBuilder(bad.programs[0]).send(1, in(0, 2)).end_step().end_step();
  const auto t = to_text(bad);
  CHECK(t.find("  r0 -> r1  in[0..2) -> (no receive)\n") != std::string::npos);
  CHECK(t.find("round 1:\n  (idle)\n") != std::string::npos);

  CHECK(to_string(Op{OpKind::reduce, -1, out(1), scratch(1), in(1)}) ==
        "out[1] = scratch[1] (+) in[1]");
  CHECK(to_string(scratch(2, 0)) == "scratch[2..2)");
}
