// α-β simulator: executes a cclx Schedule (the same object the MPI engine runs) over a Topology and
// predicts when every rank finishes.
//
// Cost of one message of s bytes from rank a to rank b over route P (routes.hpp):
//   it starts when a and b have both reached the step that holds it and a has a free send port and
//   b a free receive port (ports per rank from the topology, 1 by default: single-port);
//   it then spends alpha_P = Σ_{l∈P} α_l in flight without using bandwidth,
//   then moves its s bytes as a fluid flow whose rate is the max-min fair share of every link of
//   P (capacity 1/β_l), recomputed whenever a flow starts or ends on a link it shares.
//   Alone on its links it takes s·beta_P with beta_P = max_{l∈P} β_l: alpha_P + s·beta_P in all.
// Per-message overhead (LogP's o, Vertex::overhead, 0 by default): a message also costs its
//   sender o_a of CPU before it leaves and its receiver o_b after its data is in; each rank's
//   overheads run one at a time (first come, first served), so a rank with many messages pays
//   their count times o even where the network would carry them at once. A lone message costs
//   o_a + alpha_P + s·beta_P + o_b. The overheads do not delay the rank's local ops.
// Steps: a rank runs its steps in order, independently of the others; its step ends when all its
// transfers (as sender and as receiver) and local ops are done. A rank's sends within one step
// wait for its send port in program order (likewise receives), so with one port they serialize.
// Local ops run one at a time in program order, each as soon as the receives of the step it reads
// (and the sends of the step that read what it overwrites) are done; a reduce costs gamma·bytes,
// a copy copy_gamma·bytes (both 0 by default).
// The first event of rank r is its start time (0 by default): a late rank models a straggler.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cclx/schedule/schedule.hpp"
#include "cclx/topology/routes.hpp"
#include "cclx/topology/topology.hpp"

namespace cclx::sim {

/// How flows on a shared link divide its bandwidth (SimOptions::sharing).
enum class Sharing : std::uint8_t {
  max_min,  ///< progressive filling: max-min fair rates
  equal,    ///< each flow gets min over its links of capacity / number of flows on the link
};

/// Options of the α-β simulator.
struct SimOptions {
  std::size_t bytes = 0;      ///< size of the collective's data (what the partition cuts)
  std::size_t elem_size = 1;  ///< blocks are cut at multiples of this (bytes / elem_size elements)
  double gamma = 0;           ///< seconds per byte of a reduce op's output
  double copy_gamma = 0;      ///< seconds per byte of a copy op
  std::vector<double> start_time;  ///< per rank; empty: every rank starts at 0
  int ports = -1;                  ///< >= 0: overrides every rank's port count (0 = unlimited)
  /// How flows on a shared link divide its bandwidth.
  Sharing sharing = Sharing::max_min;
  bool critical_path = true;  ///< record activities to report the critical path (memory: 40 B each)
};

/// One activity of the critical path: a rank's start, a message, or a local copy or reduce.
struct PathItem {
  /// What an activity is: a rank's start (at its start time), a message, or a local op.
  enum class Kind : std::uint8_t { start, transfer, local };
  /// What the activity is.
  Kind kind = Kind::start;
  int rank = -1;  ///< the rank; transfer: the sender
  int peer = -1;  ///< transfer: the receiver
  /// The step of the rank's program it belongs to (start: 0).
  std::uint32_t step = 0;
  /// When the activity began, in simulated seconds (a message: once both ranks and ports were
  /// ready, before overheads and latency).
  double start = 0, end = 0;  ///< when it ended (a message: its data delivered), in seconds
  std::size_t bytes = 0;      ///< a message's size, or the bytes a local op writes; start: 0
};

/// What the simulator predicts: every rank's finish time.
struct SimResult {
  double time = 0;               ///< when the last rank finished
  std::vector<double> rank_end;  ///< per rank
  /// The schedule's Schedule::prologue_steps.
  std::uint32_t prologue_steps = 0;
  /// When each rank left the prologue (entered step prologue_steps, or finished a shorter
  /// program); without a prologue, its start time.
  std::vector<double> rank_prologue_end;
  /// The latest rank_prologue_end over the ranks that have work in the prologue; 0 without one.
  double prologue_end = 0;
  /// The chain of activities that determined `time`, first to last: each item started when the one
  /// before it ended (a step boundary on one rank, a peer reaching the step, or a port freeing).
  std::vector<PathItem> critical_path;
  std::size_t rounds = 0;  ///< the schedule's Schedule::num_rounds()
  /// \var transfers
  /// Messages simulated.
  /// \var events
  /// Events the simulation processed, stale flow finishes included: a measure of its work.
  /// \var rate_updates
  /// Recomputations of the rates of flows that share links (one per instant at which such flows
  /// started or ended).
  std::uint64_t transfers = 0, events = 0, rate_updates = 0;
};

/// Holds the route table so that one topology serves many runs.
class Simulator {
 public:
  /// Builds the route table of `t` (topo::RouteTable); `t` must outlive the simulator.
  explicit Simulator(const topo::Topology& t);
  /// Schedule rank r runs on topology rank r; the topology needs at least s.nranks ranks and every
  /// program must be present. Throws cclx::Error on schedules whose sends and receives do not match
  /// (naming the rank and step).
  [[nodiscard]] SimResult run(const sched::Schedule& s, const SimOptions& o) const;
  /// The topology given at construction.
  [[nodiscard]] const topo::Topology& topology() const { return *t_; }

 private:
  const topo::Topology* t_;
  topo::RouteTable routes_;
};

/// One run on a Simulator built for it: Simulator(t).run(s, o).
[[nodiscard]] SimResult simulate(const sched::Schedule& s, const topo::Topology& t,
                                 const SimOptions& o);

}  // namespace cclx::sim
