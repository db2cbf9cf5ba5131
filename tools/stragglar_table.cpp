// cclx-stragglar-table: StragglAR's round counts against the lower bound and ring/RHD, as the
// markdown table of docs/algorithms/stragglar.md.
//   cclx-stragglar-table [--from N] [--to N] [--planner auto|greedy|mwm|pow2|sat] (default 2..256,
//   auto)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cclx/schedule/stragglar.hpp"
#include "cli.hpp"

namespace sr = cclx::sched::stragglar_rounds;

int main(int argc, char** argv) {
  int from = 2, to = 256;
  std::string planner = "auto";
  cclx::kit::App app("cclx-stragglar-table",
                     "StragglAR's round counts against the lower bound and ring/RHD, as the "
                     "markdown table of docs/algorithms/stragglar.md.");
  app.add_option("--from", from, "smallest rank count (default 2)");
  app.add_option("--to", to, "largest rank count (default 256)");
  app.add_option("--planner", planner, "auto, greedy, mwm, pow2 or sat (default auto)")
      ->check(CLI::IsMember({"auto", "greedy", "mwm", "pow2", "sat"}));
  if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
  if (from < 2 || to < from) {
    std::fprintf(stderr, "cclx-stragglar-table: --from %d --to %d: need 2 <= from <= to\n", from,
                 to);
    return 2;
  }
  // Rounds R after the prologue; each moves at most one chunk (s/(n-1)) per rank and direction,
  // so the straggler-critical part costs R/(n-1) * s per rank; ring and RHD send 2(n-1)/n * s.
  std::printf(
      "| n | rounds | lower bound | gap | slot bound | planner | StragglAR data/s |"
      " ring, RHD data/s | ratio |\n");
  std::printf("|---:|---:|---:|---:|---:|:---|---:|---:|---:|\n");
  int at_bound = 0, at_slots = 0, total = 0, worst = 0, worst_slots = 0, pow2_at_bound = 0,
      pow2_at_slots = 0;
  for (int n = from; n <= to; ++n) {
    const auto p = sr::plan_with(n, planner);
    sr::check_plan(p);
    const int r = static_cast<int>(p.rounds.size()), lb = sr::round_lower_bound(n),
              ls = sr::round_lower_bound_slots(n);
    const double sg = static_cast<double>(r) / (n - 1), ring = 2.0 * (n - 1) / n;
    std::printf("| %d | %d | %d | %d | %d | %s | %.3f | %.3f | %.2f |\n", n, r, lb, r - lb, ls,
                p.method.c_str(), sg, ring, ring / sg);
    ++total;
    at_bound += r == lb;
    at_slots += r == ls;
    const bool pow2 = (n & (n - 1)) == 0;
    pow2_at_bound += pow2 && r == lb;
    pow2_at_slots += pow2 && r == ls;
    worst = r - lb > worst ? r - lb : worst;
    worst_slots = r - ls > worst_slots ? r - ls : worst_slots;
  }
  std::printf(
      "\nAt the lower bound: %d of %d rank counts (%d powers of two, %d others); largest gap: %d "
      "rounds.\n",
      at_bound, total, pow2_at_bound, at_bound - pow2_at_bound, worst);
  std::printf(
      "At the slot bound: %d of %d rank counts (%d powers of two, %d others); largest gap to it: "
      "%d rounds.\n",
      at_slots, total, pow2_at_slots, at_slots - pow2_at_slots, worst_slots);
  return 0;
}
