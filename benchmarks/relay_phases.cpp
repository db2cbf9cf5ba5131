// cclx-relay-phases: the adaptive runtime's schedules timed one by one against the simulator's
// prediction of each (docs/algorithms/adaptive.md, "Per-message cost"). For every tree shape
// given, the trees are synthesized relay-aware on --topology (as algo::Adaptive does), and three
// schedules are run as ordinary allreduces of --bytes of int32: the all-active tree schedule, and
// phase 1 and phase 2 of the relay plan without --late-rank (phase 2 alone reads whatever phase 1
// would have left in Scratch: the timing is real, the result is not checked). Ring is the
// reference. Reported per schedule: messages (sends over all ranks), the most messages one rank
// sends plus receives, the median over --reps of the slowest rank's time after a barrier, and the
// simulated time on the topology.
//
//   mpiexec -n 8 cclx-relay-phases --topology FILE [--bytes B] [--late-rank R] [--reps K]
//       [--shapes synth,c65536:t1,...]
// A shape is `synth` (the synthesis' own choice), fields joined by ':': cN chunk bytes, tN
// trees (max_trees), `subset-ALGO` (the subset plan whose phase 1 is ALGO, e.g. subset-ring,
// over the ranks but the late one: its phases only) or `owners` (the owner plan: its phases).
// Output: one JSON document on rank 0.
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/cclx.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/relay/synthesis.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cclx/tune/model.hpp"
#include "cli.hpp"
#include "fields.hpp"
#include "kit/timing.hpp"

namespace {

using cclx::sched::Collective;

// Runs one fixed schedule (the same on every rank) as an allreduce.
struct Fixed {
  static constexpr std::string_view name = "relay_phases_bench";
  static constexpr std::array collectives = {Collective::allreduce};
  static constexpr std::array<Collective, 0> keeps_rank_order = {};
  std::shared_ptr<const cclx::sched::Schedule> schedule;
  std::string id;
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest&) const {
    return *schedule;
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const {
    return "id=" + id;
  }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "cclx-relay-phases: %s\n", what.c_str());
  std::exit(2);
}

// Sends over all ranks, and the most sends + receives of one rank.
std::pair<std::size_t, std::size_t> messages(const cclx::sched::Schedule& s) {
  std::size_t all = 0, most = 0;
  for (const auto& p : s.programs) {
    std::size_t sends = 0, recvs = 0;
    for (const auto& op : p.ops) {
      sends += op.kind == cclx::sched::OpKind::send ? 1 : 0;
      recvs += op.kind == cclx::sched::OpKind::recv ? 1 : 0;
    }
    all += sends;
    most = std::max(most, sends + recvs);
  }
  return {all, most};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  std::string topology, shapes = "synth";
  std::size_t bytes = 4 << 20;
  int late = -1, reps = 5;
  {
    cclx::kit::App app("cclx-relay-phases",
                       "The adaptive runtime's schedules timed one by one against the "
                       "simulator's prediction of each (docs/algorithms/adaptive.md, "
                       "\"Per-message cost\"). Output: one JSON document on rank 0.");
    app.add_option("--topology", topology, "the machine's topology JSON")->required();
    app.add_option("--bytes", bytes, "message size (default 4M; cclx/byte_size.hpp)")
        ->transform(cclx::kit::ByteSize{});
    app.add_option("--late-rank", late, "the late rank (default: the last)");
    app.add_option("--reps", reps, "repetitions per schedule; the median is reported (default 5)")
        ->check(cclx::kit::Positive{});
    app.add_option("--shapes", shapes,
                   "tree shapes, comma-separated: `synth` (the synthesis' own choice), fields "
                   "joined by ':' (cN chunk bytes, tN trees), `subset-ALGO` or `owners` "
                   "(default synth)");
    if (const auto rc = cclx::kit::parse_mpi(app, argc, argv)) return *rc;
  }
  int status = 0;
  try {
    cclx::Communicator comm(MPI_COMM_WORLD);
    const int n = comm.size(), rank = comm.rank();
    if (late < 0) late = n - 1;
    if (late >= n) usage_error("--late-rank out of range");
    const cclx::topo::Topology t = cclx::topo::load_topology(topology);
    if (t.nranks() != n) usage_error("the topology's rank count is not the communicator's");
    const cclx::sim::Simulator sim(t);
    cclx::sim::SimOptions so;
    so.bytes = bytes;
    so.elem_size = sizeof(std::int32_t);
    so.gamma = cclx::tune::ModelParams{}.gamma;  // as the runtime's model
    so.critical_path = false;
    cclx::sched::ScheduleRequest req;
    req.collective = Collective::allreduce;
    req.nranks = n;
    req.bytes = bytes;
    std::vector<bool> active(static_cast<std::size_t>(n), true);
    active[static_cast<std::size_t>(late)] = false;

    const std::size_t count = bytes / sizeof(std::int32_t);
    std::vector<std::int32_t> in(count, rank), out(count);
    nlohmann::json rows = nlohmann::json::array();
    int id = 0;
    auto time_one = [&](const std::string& shape, const std::string& what, const std::string& trees,
                        cclx::sched::Schedule s) {
      const auto [all, most] = messages(s);
      const std::size_t rounds = s.num_rounds();
      const double predicted = sim.run(s, so).time;
      const Fixed policy{std::make_shared<const cclx::sched::Schedule>(std::move(s)),
                         std::to_string(id++)};
      comm.allreduce(in, out, cclx::sum, policy);  // warm-up
      std::vector<double> times;
      for (int r = 0; r < reps; ++r)
        times.push_back(cclx::kit::slowest_call(
            MPI_COMM_WORLD, [&] { comm.allreduce(in, out, cclx::sum, policy); }));
      const double measured = cclx::kit::median(times);
      rows.push_back({{"shape", shape},
                      {"schedule", what},
                      {"trees", trees},
                      {"messages", all},
                      {"most_per_rank", most},
                      {"rounds", rounds},
                      {"measured_s", measured},
                      {"min_s", *std::min_element(times.begin(), times.end())},
                      {"predicted_s", predicted}});
      if (rank == 0)
        std::fprintf(stderr,
                     "%-14s %-7s msgs %5zu (rank max %4zu) rounds %4zu: measured %.4f s, sim %.4f "
                     "s\n",
                     shape.c_str(), what.c_str(), all, most, rounds, measured, predicted);
    };
    time_one("ring", "full", "", cclx::algo::generate_by_name("ring", req));
    for (const auto& shape : split(shapes, ',')) {
      const bool owners = shape == "owners";
      if (owners || shape.rfind("subset-", 0) == 0) {  // phase 1 over the active ranks only
        auto plan = owners ? cclx::sched::owner_relay_schedules(req, active)
                           : cclx::sched::subset_relay_schedules(shape.substr(7), req, active);
        const std::string desc = "chunks=" + std::to_string(plan.phase2.nblocks);
        time_one(shape, "phase1", desc, std::move(plan.phase1));
        time_one(shape, "phase2", desc, std::move(plan.phase2));
        continue;
      }
      cclx::sched::SynthesisOptions o;
      o.relay = true;
      if (shape != "synth")
        for (const auto& f : split(shape, ':'))
          if (!set_shape_field(o, f))
            usage_error("bad shape field '" + f + "' (cN chunk bytes, tN trees)");
      const auto ts = cclx::sched::synthesize_trees(t, Collective::allreduce, bytes, 0, o);
      const std::string desc = ts.describe();
      time_one(shape, "full", desc, cclx::sched::tree_schedule(ts, req));
      auto plan = cclx::sched::relay_schedules(ts, req, active);
      time_one(shape, "phase1", desc, std::move(plan.phase1));
      time_one(shape, "phase2", desc, std::move(plan.phase2));
    }
    if (rank == 0)
      std::printf("%s\n", nlohmann::json{{"n", n},
                                         {"bytes", bytes},
                                         {"late_rank", late},
                                         {"topology", topology},
                                         {"reps", reps},
                                         {"rows", rows}}
                              .dump(1)
                              .c_str());
  } catch (const cclx::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
