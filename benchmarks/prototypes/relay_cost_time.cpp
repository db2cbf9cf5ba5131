// Times algo::relay_model()'s cost() (the ski-rental rule's buying cost, which rank 0's progress
// thread computes for each set of ready ranks it sees for the first time) over every proper,
// non-empty active set of a topology, for a 4 MiB float allreduce by default, and checks
// cost_floor() against it (docs/algorithms/adaptive-runtime.md: "microseconds to 17 ms on the
// testbed's profiles"). Kept for the record of that measurement; built as
// cclx-proto-relay-cost-time (ctest proto-relay-cost-time runs it on
// benchmarks/results/adaptive-testbed/topo-slow8.json):
//
//   build/benchmarks/cclx-proto-relay-cost-time TOPOLOGY.json [--bytes 4M]
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "cclx/relay/adaptive.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cli.hpp"

int main(int argc, char** argv) {
  std::string topology_file;
  std::size_t bytes = std::size_t{4} << 20;
  cclx::kit::App app("cclx-proto-relay-cost-time",
                     "Prototype: times algo::relay_model()'s cost() for a float allreduce over "
                     "every proper, non-empty active set of a topology's ranks, and checks that "
                     "cost_floor() never exceeds it (docs/algorithms/adaptive-runtime.md).");
  app.add_option("topology", topology_file, "topology JSON (cclx-topo's format)")
      ->required()
      ->check(CLI::ExistingFile);
  app.add_option("--bytes", bytes, "allreduce size (default 4M)")->transform(cclx::kit::ByteSize{});
  if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
  auto topo = std::make_shared<cclx::topo::Topology>(cclx::topo::load_topology(topology_file));
  if (topo->nranks() > 20) {  // 2^n sets
    std::fprintf(stderr, "cclx-proto-relay-cost-time: %d ranks are too many to try every set\n",
                 topo->nranks());
    return 2;
  }
  cclx::algo::Adaptive a;
  a.topology = topo;
  cclx::sched::ScheduleRequest req;
  req.collective = cclx::sched::Collective::allreduce;
  req.nranks = topo->nranks();
  req.bytes = bytes;
  auto t0 = std::chrono::steady_clock::now();
  auto m = cclx::algo::relay_model(a, req, 4);
  auto t1 = std::chrono::steady_clock::now();
  std::printf("init %.1f ms\n", std::chrono::duration<double, std::milli>(t1 - t0).count());
  const int n = req.nranks;
  double mx = 0, sum = 0, min_floor_ratio = 1;
  int cnt = 0, above = 0;
  for (int mask = 1; mask < (1 << n) - 1; ++mask) {
    std::vector<bool> act(n);
    for (int r = 0; r < n; ++r) act[r] = mask >> r & 1;
    auto s = std::chrono::steady_clock::now();
    double c = 0;
    try {
      c = m->cost(act);
    } catch (...) {
      continue;
    }
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - s).count();
    const double f = m->cost_floor(act);  // must never exceed the cost
    above += f > c ? 1 : 0;
    if (__builtin_popcount(mask) == n - 1) min_floor_ratio = std::min(min_floor_ratio, f / c);
    mx = std::max(mx, ms);
    sum += ms;
    ++cnt;
    if (__builtin_popcount(mask) == 1 || __builtin_popcount(mask) == n - 1)
      std::printf("set %02x cost %.3f s (floor %.3f s) computed in %.2f ms\n", mask, c, f, ms);
  }
  std::printf(
      "%d sets: mean %.2f ms, max %.2f ms; floor above cost in %d; one late: floor >= %.2f of "
      "cost\n",
      cnt, sum / cnt, mx, above, min_floor_ratio);
}
