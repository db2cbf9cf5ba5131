// Link profiler: measures α and β for every pair of ranks with ping-pongs in interference-free
// rounds (rounds.hpp), several message sizes, repeated, and fits them by least squares (fit.hpp).
//
// Time bound: what is left of the budget is split evenly over the remaining rounds. Each round
// first times a warm-up and one ping-pong of every size on every pair (the slowest pair, via
// MPI_Allreduce, sets the cost of a repetition), then runs as many more repetitions as fit its
// share, at most max_reps and at least min_reps when they fit. Only the calibration repetition
// itself can exceed the budget (very slow links or a huge max size: lower --max-bytes).
//
// Links per host (ProfileOptions::hosts given): a pair's probe shows one link's rate, not how many
// links a host has. So the j-th ranks of the first two hosts (j < k, the smaller host's rank
// count) each send links_bytes (at most the largest probe size) from the first host to the second,
// one pair alone and then all k at once; k times the lone flow's time over the k flows' time,
// rounded and clamped to [1, k], is the links the first host's ranks cross on (one shared NIC: the
// k flows take k times as long; a NIC per rank: as long as one). Medians of links_reps repetitions,
// after one warm-up of all k. It assumes the rest of the path (the switch, the second host's links)
// is not narrower.
//
// Per-message overhead (LogP's o; Vertex::overhead): the pairwise ping-pongs see one message at a
// time, but a collective's rank handles many at once, all ranks busy, and on an oversubscribed
// machine the ranks (and progress threads) share the cores. So after the pairs every rank at once
// posts `burst` tiny sends to the next rank and as many receives from the previous one (ring
// order) and waits for them; the slope of the slowest rank's time from burst / 4 to burst messages,
// halved (each rank handles one send and one receive per message index), is o. Median of
// `burst_reps` slopes; its cost is about 2.5 · burst_reps · burst · 2o, outside the budget.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <vector>

#include "cclx/topology/detect.hpp"
#include "cclx/topology/fit.hpp"

namespace cclx::topo {

/// What the link profiler measures and how often.
struct ProfileOptions {
  double budget_s = 2.0;  ///< seconds for the pairwise rounds; the overhead probe comes on top
  /// Message sizes in bytes: at least two, none above INT_MAX.
  std::vector<std::size_t> sizes = {8, 1 << 10, 16 << 10, 128 << 10, 1 << 20, 4 << 20};
  /// Repetitions per size and pair when the budget allows them (>= 1).
  int min_reps = 3;
  /// The most repetitions per size and pair (>= min_reps).
  int max_reps = 200;
  int burst = 256;  ///< messages per rank in the overhead probe; 0: no probe (overhead 0)
  /// Overhead slopes to take the median of (at least one is measured).
  int burst_reps = 5;
  /// A host id per rank (HostMap::host_of_rank), the same on every rank: probes between hosts
  /// then run one per host and round (rounds.hpp), so that none shares a host's link with
  /// another. Empty: rounds of ranks alone (each rank's port is its own).
  std::vector<int> hosts;
  /// Bytes each flow of the links probe sends (below); 0: no probe.
  std::size_t links_bytes = 1 << 20;
  /// Repetitions of the links probe, of which the medians count (at least one).
  int links_reps = 3;
};

/// The measured α-β cost between two ranks.
struct PairProfile {
  /// The lower rank of the pair, which starts the ping-pongs.
  int a = 0, b = 0;  ///< the higher rank (a < b)
  AlphaBetaFit fit;  ///< fitted to the median one-way time (round trip / 2) of each size
  int reps = 0;      ///< repetitions per size
};

/// Every measured pair's α-β cost.
struct Profile {
  int nranks = 0;         ///< ranks in the profiled communicator
  int rounds = 0;         ///< interference-free rounds run (rounds.hpp); 0 with one rank
  double elapsed_s = 0;   ///< slowest rank's wall time for the whole profile
  double overhead_s = 0;  ///< per-message overhead with every rank busy (same on all)
  /// Links (NICs) the first host's ranks cross on, by the links probe; 0: not measured (no
  /// hosts given, one host, or fewer than two ranks on one of the first two hosts). Same on all.
  int links_per_host = 0;
  std::vector<PairProfile> pairs;  ///< sorted by (a, b); complete on rank 0 only
};

/// Collective over `comm`.
[[nodiscard]] Profile profile_links(MPI_Comm comm, const ProfileOptions& opt = {});

/// Every measured pair as a duplex link with its fit: rank to rank within a host (intra_host);
/// across hosts between the two ranks' NIC vertices (direct), each rank linked to its own NIC at
/// its fastest profiled inter-host rate (α 0). Ranks get unlimited ports: the engine posts a step's
/// messages at once, and they share the rank's NIC. Alone, a message costs exactly its pair's fit.
/// Pairwise probes are interference-free by design, so they cannot reveal NICs shared by several
/// ranks of a host: each rank gets its own. Every rank gets the measured overhead_s; links keep
/// their fitted α (which holds the idle overheads of a ping-pong: a lone message is predicted up to
/// 2·overhead_s slow, never fast).
[[nodiscard]] Topology topology_from_profile(const HostMap& hosts, const Profile& p);

}  // namespace cclx::topo
