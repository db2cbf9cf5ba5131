// Every registered algorithm can be built by name with every parameter it registers, and the
// built policy generates the same schedule as generation by name.
#include <doctest/doctest.h>

#include "cclx/algo/by_name.hpp"
#include "cclx/algo/registry.hpp"

using namespace cclx;

TEST_CASE("by name: every registry entry and parameter reaches its policy") {
  for (const auto& g : cclx::algo::generators()) {
    CAPTURE(g.name);
    tune::Candidate c{g.name, {}};
    for (const auto& p : g.params) c.params[p.name] = p.name == "straggler" ? 1 : 2;
    bool reached = false;
    algo::with_policy(c, [&](const auto& policy) {
      using A = std::decay_t<decltype(policy)>;
      reached = A::name == g.name;
      if constexpr (algo::ScheduledAlgorithm<A>) {
        sched::ScheduleRequest req{g.collectives.front(), 4};
        req.bytes = 1 << 20;
        CHECK(algo::generate(policy, req).programs ==
              cclx::algo::generate_by_name(g.name, req, c.params).programs);
        // segment_bytes shapes the schedule (its cache parameters) or the engine's segments.
        const std::string key = algo::cache_params(policy, req);
        if (c.params.count("segment_bytes"))
          CHECK((key.find("segment_bytes=2") != std::string::npos ||
                 algo::exec_options(policy).segment_bytes == 2));
        if (c.params.count("pipeline")) CHECK(key.find("pipeline=2") != std::string::npos);
      }
    });
    CHECK(reached);
  }
  bool native = false;
  algo::with_policy(tune::Candidate{}, [&](const auto& p) {
    native = std::is_same_v<std::decay_t<decltype(p)>, algo::Native>;
  });
  CHECK(native);
  CHECK_THROWS_AS((void)algo::from_params<algo::Ring>({{"fanout", 2}}), Error);
}
