// StragglAR generation time without the schedule cache: the round plan alone (planned anew each
// time), and the schedule from n's plan, which the process plans and checks once (shared_plan):
// the programs of every rank, as the verifier/simulator ask for them, and one rank's view, what
// an executor asks for. A first schedule for an n costs the plan and its check besides.
//   cclx-bench-stragglar-gen --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "cclx/algo/policies.hpp"
#include "cclx/schedule/stragglar.hpp"

namespace {

namespace sched = cclx::sched;

void BM_plan(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  std::size_t rounds = 0;
  for (auto _ : state) {
    auto p = sched::stragglar_rounds::plan(n);
    rounds = p.rounds.size();
    benchmark::DoNotOptimize(p);
  }
  state.counters["rounds"] = static_cast<double>(rounds);
}

void BM_schedule(benchmark::State& state) {
  const int n = static_cast<int>(state.range(0));
  sched::ScheduleRequest req{sched::Collective::allreduce, n};
  req.only_rank = static_cast<int>(state.range(1));
  for (auto _ : state) {
    auto s = sched::stragglar(req, n - 1);
    benchmark::DoNotOptimize(s);
  }
}

void sizes(benchmark::internal::Benchmark* b, bool with_rank) {
  for (int n : {8, 12, 16, 64, 96, 128, 200, 255, 256, 1024}) {  // 12: a SAT-table plan
    if (with_rank) {
      b->Args({n, -1});
      b->Args({n, 0});
    } else {
      b->Arg(n);
    }
  }
  b->Unit(benchmark::kMillisecond);
}

}  // namespace

BENCHMARK(BM_plan)->Apply([](benchmark::internal::Benchmark* b) { sizes(b, false); });
BENCHMARK(BM_schedule)->Apply([](benchmark::internal::Benchmark* b) { sizes(b, true); });

BENCHMARK_MAIN();
