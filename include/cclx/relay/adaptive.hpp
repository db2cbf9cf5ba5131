// Adaptive: relay collectives after AdapCC (docs/algorithms/adaptive.md). Persistent only:
//
//   auto ar = comm.allreduce_init(grad, cclx::sum, cclx::algo::Adaptive{});
//   for (...) { compute(grad); ar.start(); ar.wait(); }
//
// Each start() is a "ready" notice. A coordinator (rank 0's progress thread) decides per call when
// to proceed and with which ranks (the ski-rental rule with costs from the α-β simulator on the
// topology); ranks that have not started yet relay the others' data on their progress thread
// (phase 1, scratch only), and phase 2 folds their data in once they start, so the result is the
// full collective. A rank that does not start within the fault time-out makes every other rank's
// wait() throw, naming it. Serves allreduce, reduce and bcast with commutative ops; needs
// MPI_THREAD_MULTIPLE, `#include <cclx/relay/adaptive.hpp>` and linking cclx::relay (the relay
// module: tree synthesis, the cost model on the simulator, the runtime).
#pragma once

#include <array>
#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "cclx/algo/algorithm.hpp"
#include "cclx/backend/backend.hpp"
#include "cclx/backend/mpi.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/persistent.hpp"
#include "cclx/relay/model.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/schedule.hpp"
#include "cclx/tune/table.hpp"

namespace cclx::topo {
class Topology;
}

namespace cclx::algo {

/// Policy: adaptive relay collectives over synthesized trees that wait for late ranks or proceed
/// without them (persistent only).
struct Adaptive {
  /// The policy's name, as messages about it show it (it is not in the registry).
  static constexpr std::string_view name = "adaptive";
  /// Marks it as a RelayAlgorithm: the relay runtime runs it, on persistent requests only.
  static constexpr bool relay = true;
  /// The collectives it serves, with commutative ops only.
  static constexpr std::array collectives = {sched::Collective::allreduce,
                                             sched::Collective::reduce, sched::Collective::bcast};
  /// None: reductions combine in tree order, not rank order.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};

  /// The machine the trees are synthesized on and the costs are simulated on, one rank vertex per
  /// rank of the communicator (e.g. topo::topology_from_profile of the profiler). Null: a full mesh
  /// with the cost model's measured α and β (tune::ModelParams), i.e. a homogeneous machine.
  std::shared_ptr<const topo::Topology> topology;
  int max_trees = 0;            ///< sched::SynthesisOptions; 0: the synthesis default
  std::size_t chunk_bytes = 0;  ///< 0: chosen by the synthesis
  /// Fault time-out: a rank that has not started T = clamp(fault_factor × S, fault_floor_s,
  /// fault_cap_s) seconds after the first rank of the call was ready is declared failed; S is the
  /// largest arrival spread (first to last ready notice) seen on this request, the current call
  /// included. CCLX_ADAPTIVE_FAULT="factor,floor,cap" overrides all three (read at init).
  double fault_factor = 5;
  double fault_floor_s = 10;  ///< the least fault time-out T, in seconds
  double fault_cap_s = 300;   ///< the greatest fault time-out T, in seconds
  /// Persistently late ranks (docs/algorithms/adaptive.md, "Persistently late ranks"): a rank late
  /// in each of the last predict_calls calls is predicted late again, and rank 0 proceeds at once
  /// when the model says that beats waiting for it; 0: the ski-rental rule alone.
  int predict_calls = 2;
  /// Measured times (cclx-tune's tables, docs/tuning.md) for the schedule a call runs when every
  /// rank is there: where the table has the collective at this communicator size and at a size
  /// within a factor of 2, the fastest of the library's candidates measured there (ring, RHD,
  /// pipelined or binomial tree) stands for the library instead of the one the simulator
  /// prefers; the synthesized trees still compete with it by the simulator. Null: the table of
  /// CCLX_TUNE_FILE, when it is set (read at init).
  std::shared_ptr<const tune::TuningTable> table;
};

/// The model of `a` for `req` (every rank's request, only_rank = -1) with elements of `elem_size`
/// bytes: trees synthesized once, schedules and costs per active set on demand (memoized).
/// Defined in cclx::relay (lib/relay/model.cpp).
[[nodiscard]] std::shared_ptr<const cclx::detail::RelayModel> relay_model(
    const Adaptive& a, const sched::ScheduleRequest& req, std::size_t elem_size);

/// A persistent relay request of `a` for `call` on `backend` (collective, after the Communicator's
/// checks): the model of relay_model(), then the relay runtime (lib/relay/runtime.cpp). The
/// Communicator finds it by argument-dependent lookup, so only a program that names algo::Adaptive
/// needs cclx::relay.
[[nodiscard]] std::unique_ptr<cclx::detail::PersistentOp> relay_init(
    MpiBackend& backend, const CollectiveCall& call, const Adaptive& a,
    std::shared_ptr<void> keepalive);

}  // namespace cclx::algo

namespace cclx {
static_assert(RelayBackend<MpiBackend, algo::Adaptive>);
}  // namespace cclx
