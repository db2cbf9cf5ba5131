// The model's representative ranks: on a flat schedule the slowest of them is the slowest of every
// rank, for every registered flat algorithm, collective, root and a spread of rank counts above
// kAllRanksUpTo; and the model, which generates a rank's program at a time and prices a pipeline
// from its segment, estimates what the whole schedule gives.
#include <doctest/doctest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/tune/model.hpp"

using namespace cclx::tune;
using cclx::sched::Collective;
using cclx::sched::Program;
using cclx::sched::Schedule;

namespace {

// `s` with only `ranks`' programs kept: its estimate is the slowest of theirs.
Schedule only(Schedule s, const std::vector<int>& ranks) {
  std::vector<Program> kept(s.programs.size());
  for (const int r : ranks)
    kept[static_cast<std::size_t>(r)] = s.programs[static_cast<std::size_t>(r)];
  s.programs = std::move(kept);
  return s;
}

}  // namespace

TEST_CASE(
    "tune model: representative ranks are every rank up to the limit, distinct and in range") {
  for (int n = 1; n <= kAllRanksUpTo; ++n)
    CHECK(representative_ranks(n, n - 1).size() == static_cast<std::size_t>(n));
  for (const int n : {65, 100, 1000, 4096, 100000}) {
    for (const int root : {0, n / 3, n - 1}) {
      const std::vector<int> r = representative_ranks(n, root);
      CAPTURE(n);
      CHECK(r.size() < 400);
      CHECK(std::is_sorted(r.begin(), r.end()));
      CHECK(std::adjacent_find(r.begin(), r.end()) == r.end());
      CHECK(r.front() >= 0);
      CHECK(r.back() < n);
      CHECK(std::find(r.begin(), r.end(), root) != r.end());
    }
  }
}

TEST_CASE(
    "tune model: the representative ranks' slowest is every rank's, for every flat algorithm") {
  const ModelParams m;
  int compared = 0;
  for (const auto& g : cclx::algo::generators()) {
    if (g.uses_hosts) continue;  // priced whole (model.cpp)
    for (const Collective c : g.collectives) {
      const bool rooted = cclx::coll::visit(c, [](auto d) { return decltype(d)::rooted; });
      for (const int n : {65, 67, 96, 100, 127, 129, 200, 257, 300}) {
        for (const int root :
             rooted ? std::vector<int>{0, 1, n / 2, n - 2, n - 1} : std::vector<int>{0}) {
          cclx::sched::ScheduleRequest req;
          req.collective = c;
          req.nranks = n;
          req.root = root;
          Schedule s;
          try {
            s = cclx::algo::generate_by_name(g.name, req);
          } catch (const cclx::Error&) {
            continue;  // a rank count or collective it refuses
          }
          const std::vector<int> ranks = representative_ranks(n, root);
          const Schedule kept = only(s, ranks);
          // An uneven partition (blocks of two sizes) and a large one.
          for (const std::size_t bytes :
               {std::size_t{4} * (3 * static_cast<std::size_t>(n) + 1), std::size_t{1} << 24}) {
            CAPTURE(g.name);
            CAPTURE(to_string(c));
            CAPTURE(n);
            CAPTURE(root);
            CAPTURE(bytes);
            CHECK(estimate(kept, bytes, 4, m, 0) ==
                  doctest::Approx(estimate(s, bytes, 4, m, 0)).epsilon(1e-6));
            ++compared;
          }
        }
      }
    }
  }
  CHECK(compared > 500);
}

TEST_CASE(
    "tune model: estimated a rank's or a host's programs at a time, as the whole schedule is") {
  // Each way the model builds programs (model.cpp): the representative ranks without hosts; a
  // host's ranks at a time on hosts of consecutive ranks; the whole schedule on interleaved hosts,
  // or every rank's program twice where the whole is large (the ring on 700 interleaved ranks).
  const ModelParams m;
  enum class Map { none, consecutive, interleaved };
  for (const int n : {70, 300, 700}) {
    for (const Map map : {Map::none, Map::consecutive, Map::interleaved}) {
      std::vector<int> hosts(static_cast<std::size_t>(n));
      for (int r = 0; r < n; ++r)
        hosts[static_cast<std::size_t>(r)] =
            map == Map::consecutive ? r / 16 : (r % 5 == 4 ? r % 3 : r / 16);  // uneven hosts
      Workload w;
      w.nranks = n;
      w.bytes = std::size_t{3} << 20;
      w.elem_size = 4;
      if (map != Map::none) w.hosts = hosts;
      REQUIRE(w.multi_host() == (map != Map::none));
      for (const std::string name :
           {"ring", "rhd", "binomial_tree", "multilane_rhd", "leader_rhd"}) {
        const bool composed = name.find('_') != std::string::npos && name != "binomial_tree";
        if ((composed && map == Map::none) || (n == 700 && name != "ring")) continue;
        for (const long long pipeline : {1LL, 4LL}) {
          if (pipeline > 1 && !composed) continue;
          Candidate c{name, {}};
          if (pipeline > 1) c.params["pipeline"] = pipeline;
          CAPTURE(n);
          CAPTURE(static_cast<int>(map));
          CAPTURE(to_string(c));
          const Schedule whole = cclx::algo::generate_by_name(name, w.request(), c.params);
          const double expected =
              estimate(whole, w.bytes, w.elem_size, m, m.call_overhead, w.hosts);
          CHECK(alpha_beta_model(m)(c, w) == doctest::Approx(expected).epsilon(1e-12));
        }
      }
    }
  }
}

TEST_CASE("tune model: a pipeline is priced from its segment as the built pipeline is") {
  // The model asks a composition for one segment and its shape (ScheduleRequest::segment_only)
  // and prices the copies sched::pipeline() would make, without making them: the segment
  // pipelined is the generator's schedule, and its estimate is the built schedule's, on
  // partitions whose blocks are all one size (priced once per segment) and of two sizes.
  const ModelParams m;
  int compared = 0;
  for (const int n : {6, 13, 40, 100}) {
    for (const bool interleaved : {false, true}) {
      std::vector<int> hosts(static_cast<std::size_t>(n));
      for (int r = 0; r < n; ++r) hosts[static_cast<std::size_t>(r)] = interleaved ? r % 3 : r / 4;
      for (const std::string name : {"multilane_ring", "multilane_rhd", "leader_rhd",
                                     "leader_binomial_tree", "multilane_recursive_doubling"}) {
        for (const Collective c : {Collective::allreduce, Collective::bcast, Collective::reduce}) {
          for (const long long segments : {2LL, 3LL, 8LL}) {
            for (const std::size_t bytes : {std::size_t{1} << 22, std::size_t{4} * 1000003}) {
              Workload w;
              w.collective = c;
              w.nranks = n;
              w.root = n / 2;
              w.bytes = bytes;
              w.elem_size = 4;
              w.hosts = hosts;
              const Candidate cand{name, {{"pipeline", segments}}};
              if (!can_serve(cand, w)) continue;
              CAPTURE(n);
              CAPTURE(interleaved);
              CAPTURE(to_string(cand));
              CAPTURE(to_string(c));
              CAPTURE(bytes);
              Schedule built;
              try {
                built = cclx::algo::generate_by_name(name, w.request(), cand.params);
              } catch (const cclx::Error&) {
                continue;  // an Inter that refuses this host count or collective
              }
              cclx::sched::PipelineShape shape;
              cclx::sched::ScheduleRequest req = w.request();
              req.segment_only = &shape;
              Schedule segment = cclx::algo::generate_by_name(name, req, cand.params);
              CHECK(shape.segments == segments);
              const Schedule piped =
                  cclx::sched::pipeline(std::move(segment), shape.phase_bounds, shape.segments);
              CHECK(piped.nblocks == built.nblocks);
              CHECK(piped.programs == built.programs);
              CHECK(alpha_beta_model(m)(cand, w) ==
                    doctest::Approx(
                        estimate(built, w.bytes, w.elem_size, m, m.call_overhead, w.hosts))
                        .epsilon(1e-12));
              ++compared;
            }
          }
        }
      }
    }
  }
  CHECK(compared > 200);
}
