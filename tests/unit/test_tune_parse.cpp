// CCLX_ALGO overrides, candidates and tuning tables: parsing, errors naming the bad token, lookup
// boundaries.
#include <doctest/doctest.h>

#include <limits>
#include <string>

#include "cclx/error.hpp"
#include "cclx/tune/override.hpp"
#include "cclx/tune/table.hpp"
#include "support.hpp"

using namespace cclx::tune;
using cclx::sched::Collective;
using cclx::test::error_of;

TEST_CASE("tune: candidates parse, validate and print canonically") {
  CHECK(parse_candidate("native").native());
  const Candidate r = parse_candidate(" ring( segment_bytes = 256K ) ");
  CHECK(r.algorithm == "ring");
  CHECK(r.params.at("segment_bytes") == 262144);
  CHECK(to_string(r) == "ring(segment_bytes=256K)");
  const Candidate p = parse_candidate("pipelined_tree(fanout=3,segment_bytes=1M)");
  CHECK(to_string(p) == "pipelined_tree(fanout=3,segment_bytes=1M)");
  CHECK(parse_candidate(to_string(p)) == p);
  CHECK(error_of([] { (void)parse_candidate("rign"); }).find("unknown algorithm 'rign'") !=
        std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("ring(fanout=2)");
        }).find("'ring' has no parameter 'fanout'") != std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("native(segment_bytes=1)");
        }).find("'native' has no parameter") != std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("ring(segment_bytes=big)");
        }).find("'segment_bytes=big'") != std::string::npos);
  CHECK(error_of([] { (void)parse_candidate("ring(segment_bytes=1"); }).find("missing ')'") !=
        std::string::npos);
  // Negative parameters (StragglAR's straggler=-1: the last rank) print and parse back.
  const Candidate s = parse_candidate("stragglar(straggler=-1)");
  CHECK(s.params.at("straggler") == -1);
  CHECK(to_string(s) == "stragglar(straggler=-1)");
  CHECK(parse_candidate(to_string(s)) == s);
  CHECK(error_of([] {
          (void)parse_candidate("stragglar(straggler=-1x)");
        }).find("'straggler=-1x'") != std::string::npos);
  // channels (schedule/channels.hpp): every scheduled algorithm but barrier's takes it.
  const Candidate ch = parse_candidate("ring(segment_bytes=256K,channels=2)");
  CHECK(ch.params.at("channels") == 2);
  CHECK(parse_candidate(to_string(ch)) == ch);
  CHECK(parse_candidate("pipelined_tree(channels=4)").params.at("channels") == 4);
  CHECK(error_of([] { (void)parse_candidate("ring(channels=0)"); }).find("'channels=0'") !=
        std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("rhd(channels=65)");
        }).find("channels must be in [1, 64]") != std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("native(channels=2)");
        }).find("'native' has no parameter 'channels'") != std::string::npos);
  CHECK(error_of([] {
          (void)parse_candidate("dissemination(channels=2)");
        }).find("'dissemination' has no parameter 'channels'") != std::string::npos);
}

TEST_CASE("tune: CCLX_ALGO rules match half-open ranges, own section before '*'") {
  const Overrides o = Overrides::parse(
      "allreduce:0-8K=native,8K-inf=ring(segment_bytes=256K);bcast:*=pipelined_tree(fanout=2);"
      "*:0-1K=native");
  REQUIRE(o.rules().size() == 4);
  CHECK(o.find(Collective::allreduce, 0)->choice.native());
  CHECK(o.find(Collective::allreduce, 8191)->choice.native());
  CHECK(o.find(Collective::allreduce, 8192)->choice.algorithm == "ring");
  CHECK(o.find(Collective::allreduce, std::numeric_limits<std::size_t>::max() - 1)
            ->choice.algorithm == "ring");
  CHECK(o.find(Collective::bcast, 100)->choice.algorithm == "pipelined_tree");
  CHECK(o.find(Collective::allgather, 100)->choice.native());  // from '*'
  CHECK(o.find(Collective::allgather, 1024) == nullptr);       // nothing: next source decides
  CHECK(Overrides::parse("").empty());
  CHECK(Overrides::parse(" ; ").empty());
}

TEST_CASE("tune: CCLX_ALGO errors name the bad token") {
  const auto err = [](const char* s) { return error_of([&] { (void)Overrides::parse(s); }); };
  CHECK(err("allreduce").find("bad token 'allreduce'") != std::string::npos);
  CHECK(err("allredcue:*=ring").find("bad token 'allredcue'") != std::string::npos);
  CHECK(err("allreduce:0-8X=native").find("bad token '0-8X'") != std::string::npos);
  CHECK(err("allreduce:8K-0=native").find("empty size range") != std::string::npos);
  CHECK(err("allreduce:0-8K=rign").find("bad token 'rign'") != std::string::npos);
  CHECK(err("allreduce:0-8K").find("bad token '0-8K'") != std::string::npos);
  CHECK(err("alltoall:*=binomial_tree").find("does not serve alltoall") != std::string::npos);
  CHECK(err("bcast:").find("no rules") != std::string::npos);
  CHECK(err("allreduce:8K-inf=ring(segment_bytes=256K,channels=x)")
            .find("bad token 'ring(segment_bytes=256K,channels=x)'") != std::string::npos);
  CHECK(err("allgather:*=ring(channels=2)").find("allgather does not split into channels") !=
        std::string::npos);
  const Overrides o = Overrides::parse("allreduce:8K-inf=ring(segment_bytes=256K,channels=2)");
  CHECK(o.find(Collective::allreduce, 1 << 20)->choice.params.at("channels") == 2);
  CHECK(Overrides::parse("allgather:*=ring(channels=1)").rules().size() == 1);
}

TEST_CASE("tune: tables round-trip, merge and find the nearest measured size") {
  TuningTable t;
  t.machine = "test";
  TableEntry a{Collective::allreduce, 2, 8, {{"native", 0.8}, {"ring", 1.2}}};
  TableEntry b{Collective::allreduce, 2, 65536, {{"native", 30.0}, {"ring", 20.0}}};
  t.record(b);
  t.record(a);
  CHECK(t.entries().front().bytes == 8);  // kept sorted
  CHECK(t.nearest(Collective::allreduce, 2, 8)->best() == "native");
  CHECK(t.nearest(Collective::allreduce, 2, 700)->bytes == 8);  // log2: 9.5 vs 16
  CHECK(t.nearest(Collective::allreduce, 2, 1 << 20)->bytes == 65536);
  CHECK(t.nearest(Collective::allreduce, 3, 8) == nullptr);  // other sizes do not transfer
  CHECK(t.nearest(Collective::bcast, 2, 8) == nullptr);

  const TuningTable back = TuningTable::parse(t.dump());
  REQUIRE(back.entries().size() == 2);
  CHECK(back.machine == "test");
  CHECK(back.exact(Collective::allreduce, 2, 65536)->times_us.at("ring") == 20.0);

  TuningTable more;
  more.record({Collective::allreduce, 2, 65536, {{"rhd", 10.0}}});
  t.merge(more);
  CHECK(t.exact(Collective::allreduce, 2, 65536)->best() == "rhd");
  CHECK(t.exact(Collective::allreduce, 2, 65536)->times_us.size() == 3);
}

TEST_CASE("tune: malformed tables fail with the file and the field") {
  const auto err = [](const char* s) {
    return error_of([&] { (void)TuningTable::parse(s, "t.json"); });
  };
  CHECK(err("{").find("t.json: not JSON") != std::string::npos);
  CHECK(err(R"({"format":"x"})").find("not a cclx tuning table") != std::string::npos);
  CHECK(err(R"({"format":"cclx-tune-table","version":2,"entries":[]})").find("version") !=
        std::string::npos);
  CHECK(err(R"({"format":"cclx-tune-table","version":1,"entries":[{"collective":"allreduce",
        "nranks":2,"bytes":8,"times_us":{"rign":1}}]})")
            .find("entries[0]: ") != std::string::npos);
  CHECK(err(R"({"format":"cclx-tune-table","version":1,"entries":[{"collective":"allreduce",
        "nranks":2,"bytes":8,"times_us":{"ring":-1}}]})")
            .find("positive") != std::string::npos);
  CHECK(err(R"({"format":"cclx-tune-table","version":1,"entries":[{"nranks":2}]})")
            .find("entries[0]") != std::string::npos);
}
