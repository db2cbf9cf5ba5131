// The cost model of algo::Auto's last source: an α-β-γ estimate of a candidate's schedule, so that
// a call with no override, table entry or online result still gets a reasoned choice.
//
// Per rank, each step costs  step_overhead + (alpha if it moves data) + max(bytes sent, bytes
// received) * beta + bytes reduced * gamma,  the call costs the slowest rank's sum plus
// call_overhead. It ignores waiting for peers and link sharing within a host (the simulator,
// lib/sim, models those; a Selector takes any Predictor in its Config). On a communicator that
// spans hosts (Workload::hosts) a step's transfers between hosts cost inter_alpha, and each host
// link carries the bytes all its ranks send across it in that step at inter_beta (and the call
// takes at least the busiest link's bytes over all steps at inter_beta, since ranks' steps overlap
// in time): what makes the hierarchical policies (docs/hierarchical.md) win there, and what the
// model ranks them by. The
// network's three numbers are settings (CCLX_NET_LATENCY, CCLX_NET_BANDWIDTH, CCLX_NET_LINKS:
// model_params_from_env()). Native is modelled as
// the MPI library choosing well among the textbook algorithms we can generate for the collective
// (binomial/recursive doubling for short, RHD/ring for long messages), with native_overhead
// instead of call_overhead: our engine's per-call and per-step costs are what make native win
// small messages.
//
// Native is modelled as the algorithm MPICH's defaults pick (native_algorithm(): recursive doubling
// or binomial trees for short messages, reduce-scatter + allgather or rings for long ones) at
// native_overhead per call and beta * native_beta_scale per byte: MPICH's large-message paths copy
// more than our engine (measured 1.5-2.3x slower than ring from 32 KiB on 2 ranks,
// docs/results.md). Both are fitted constants; tables and online tuning replace the model where
// they have data.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cclx/schedule/generate.hpp"
#include "cclx/tune/candidate.hpp"

namespace cclx::tune {

/// One call as the tuner sees it (MPI's "workload" in AutoCCL's terms, without the communicator).
struct Workload {
  sched::Collective collective = sched::Collective::allreduce;  ///< the collective called
  int nranks = 1;                                               ///< the communicator's size
  int root = 0;  ///< the root of a rooted collective; 0 for the others
  /// Whether the call runs in place; algo::Auto leaves it false (for a rooted collective it is a
  /// per-rank choice, so no part of the decision).
  bool in_place = false;
  std::size_t bytes = 0;      ///< the whole partition (ScheduleRequest::bytes)
  std::size_t elem_size = 1;  ///< sizeof the element type
  bool commutative = true;    ///< the op's (true for data movement)
  /// False where the ranks share no size: a one-shot alltoallv, whose ranks each know only their
  /// own counts. `bytes` is then 0, and the decision must hold for every size (Selector).
  bool sized = true;
  /// The call places blocks at displacements (cclx::Displs), which native alone serves. Given on
  /// every rank or on none, as the v-collective's form (detail/auto_dispatch.hpp).
  bool displs = false;
  /// The call must combine in the canonical order (reproducible mode, an order-sensitive op and
  /// more than two ranks: cclx::needs_canonical_order()): only algorithms that declare it for the
  /// collective and rank count serve it.
  bool reproducible = false;
  /// The communicator's host id per rank (Communicator::host_ids(); equal ids share a host), or
  /// empty: every rank its own host, as far as the model knows. On a map with several hosts, one
  /// of them holding several ranks, the model charges transfers between hosts at ModelParams'
  /// inter-host rates and ranks the hierarchical policies too. Not owned: the communicator keeps
  /// its map.
  std::span<const int> hosts{};

  /// The schedule request of every rank (only_rank -1) for this workload: collective, nranks,
  /// root, in_place, bytes and hosts.
  [[nodiscard]] sched::ScheduleRequest request() const;
  /// Whether the host map has more than one host and a host with more than one rank: where a
  /// hierarchical schedule differs from a flat one.
  [[nodiscard]] bool multi_host() const;
  /// Equal in every field, the host maps by content: one decision serves both (AutoState keys its
  /// decisions by workload).
  friend bool operator==(const Workload& a, const Workload& b) {
    return a.collective == b.collective && a.nranks == b.nranks && a.root == b.root &&
           a.in_place == b.in_place && a.bytes == b.bytes && a.elem_size == b.elem_size &&
           a.commutative == b.commutative && a.sized == b.sized && a.displs == b.displs &&
           a.reproducible == b.reproducible && std::ranges::equal(a.hosts, b.hosts);
  }
};

/// The α-β model's machine parameters: times in seconds (beta and gamma per byte) and one factor.
/// Defaults measured on the development machine (2 ranks, shared memory, MPICH 4.0.2 over UCX;
/// docs/tuning.md).
struct ModelParams {
  double alpha = 0.35e-6;           ///< latency of a step that moves data
  double beta = 1.0 / 6.0e9;        ///< per byte of the larger of a step's sent and received bytes
  double gamma = 1.0 / 4.0e9;       ///< per byte reduced
  double call_overhead = 0.45e-6;   ///< the engine's software cost per call
  double step_overhead = 0.05e-6;   ///< the engine's software cost per step (not charged to native)
  double native_overhead = 0.2e-6;  ///< the MPI library's cost per call, in place of call_overhead
  double native_beta_scale = 1.8;   ///< native's factor on beta (MPI copies more on large messages)
  /// Latency of a step whose transfers cross hosts (a workload with a host map); an assumed
  /// cluster network, not measured here: CCLX_NET_LATENCY sets it, tables and online tuning
  /// replace the model where they have data.
  double inter_alpha = 5.0e-6;
  /// Per byte through one host link in one direction, shared by the ranks that cross on it (one
  /// 100 Gb/s NIC per host; CCLX_NET_BANDWIDTH).
  double inter_beta = 1.0 / 12.5e9;
  /// Links (NICs) per host: a rank crosses on link (its index among its host's ranks) mod
  /// inter_links, as on a rail-optimized cluster (CCLX_NET_LINKS).
  int inter_links = 1;
};

/// ModelParams{} with the inter-host network of the settings CCLX_NET_LATENCY (inter_alpha),
/// CCLX_NET_BANDWIDTH (1 / inter_beta) and CCLX_NET_LINKS (inter_links); throws a bad value's
/// cclx::Error.
[[nodiscard]] ModelParams model_params_from_env();

/// The registered algorithm whose schedule stands for the MPI library's own choice on `w`.
[[nodiscard]] std::string native_algorithm(const Workload& w);

/// Estimated seconds of `s` for a partition of `bytes` in elements of `elem_size`. With a host map
/// (`hosts`, a host id per rank; empty: none) a step's transfers between hosts cost inter_alpha,
/// and their bytes pass the rank's host link: a step takes at least the bytes all ranks on that
/// link send (or receive) across it that step, times inter_beta, and the call at least the bytes
/// of the busiest link over all steps, times inter_beta.
[[nodiscard]] double estimate(const sched::Schedule& s, std::size_t bytes, std::size_t elem_size,
                              const ModelParams& m, double per_call_overhead,
                              std::span<const int> hosts = {});

/// Up to this many ranks the model estimates every rank's program; above it, on a communicator
/// without a host map, those of representative_ranks() only.
inline constexpr int kAllRanksUpTo = 64;

/// The ranks whose slowest is the slowest of every rank of a flat schedule, for the model to
/// estimate on `nranks` ranks and `root` (0 for unrooted collectives): every rank up to
/// kAllRanksUpTo; above it, at most a few hundred ranks placed where the schedules' roles change
/// (the first and last ranks, around powers of two, the ranks a non-power-of-two count folds away
/// and the middle, from rank 0 and from the root) and every nranks/32-th rank. Checked against all
/// ranks for every registered flat algorithm (tests/unit/test_tune_model_ranks.cpp): the model's
/// time and memory then grow with one program, not with every rank's (a flat ring on 4096 ranks
/// holds 33 million steps).
[[nodiscard]] std::vector<int> representative_ranks(int nranks, int root);

/// A predictor: seconds for a candidate on a workload, or a negative value when it cannot serve it.
using Predictor = std::function<double(const Candidate&, const Workload&)>;

/// The α-β-γ predictor over `m` (schedules generated by name; native as described above).
[[nodiscard]] Predictor alpha_beta_model(const ModelParams& m = {});

/// Whether candidate `c` can run `w` by what it declares: native always; a scheduled algorithm
/// when it serves the collective, keeps rank order for a non-commutative op and takes no
/// displacements (its generator may still refuse the request: generates()).
[[nodiscard]] bool can_serve(const Candidate& c, const Workload& w, std::string* why = nullptr);

/// can_serve(), and a scheduled algorithm's generator accepts the request (a rank count, a host
/// map, a parameter): asked for rank 0's program alone, which costs little on any number of ranks.
[[nodiscard]] bool generates(const Candidate& c, const Workload& w, std::string* why = nullptr);

/// The smallest segment of a hierarchical policy's pipeline that the model prices and the online
/// tuner tries: below it the segments' added steps cost more latency than their overlap saves.
inline constexpr std::size_t min_pipeline_segment = std::size_t{64} << 10;

/// The segment counts of a hierarchical policy's pipeline for a message of `bytes`: 1, then 2, 4
/// and 8 while a segment holds at least min_pipeline_segment bytes. The model prices those above 1;
/// the online tuner's descent walks them all.
[[nodiscard]] std::vector<long long> pipeline_grid(std::size_t bytes);

/// The candidates the model ranks for `w`: native and every registered algorithm that can serve it
/// with default parameters, except those that need knowledge the tuner does not have (StragglAR
/// needs the straggler's rank: it is chosen only by override, table or StragglerAware), and the
/// hierarchical policies unless `w` spans several hosts (Workload::multi_host()); where they
/// serve `w`, also each hierarchical policy with its pipeline of 2, 4 and 8 segments of at least
/// min_pipeline_segment bytes (docs/hierarchical.md).
[[nodiscard]] std::vector<Candidate> model_candidates(const Workload& w);

}  // namespace cclx::tune
