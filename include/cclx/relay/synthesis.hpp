// Tree synthesis on a Topology: par-trees (trees.hpp) from the topology's hosts and link costs,
// then a bounded search that uses the α-β simulator (sim/simulator.hpp) as its cost model.
// Compiled into cclx::topology (lib/relay/synthesis.cpp): it needs the simulator.
#pragma once

#include <cstddef>

#include "cclx/relay/trees.hpp"
#include "cclx/schedule/schedule.hpp"
#include "cclx/topology/topology.hpp"

namespace cclx::sched {

/// Options of the tree synthesis on a topology.
struct SynthesisOptions {
  /// Trees the search tries: 1..max_trees; 0 = par-trees' min(hosts, 4), and the search also
  /// tries one tree per host.
  int max_trees = 0;
  std::size_t chunk_bytes = 0;  ///< 0 = chosen by the search (4 MiB without search)
  bool search = true;           ///< false: par-trees only
  /// Score = all-active time + the mean phase-2 time of relay plans with one rank late (up to four
  /// ranks spread over the range, never the root), instead of the all-active time alone: trees
  /// for relay collectives (docs/algorithms/adaptive.md). A run then counts three times.
  bool relay = false;
  /// Work the search may spend, in simulated transfers (a run of the all-active schedule costs
  /// about (n - 1) * nblocks transfers, twice that for allreduce). A count, not a clock, so every
  /// rank computes the same trees; 150000 took about 50 ms on the development machine
  /// (docs/algorithms/adaptive.md).
  std::size_t max_transfers = 150000;
};

/// The work a synthesis did, for callers that check or report it.
struct SynthesisWork {
  std::size_t simulator_runs = 0;  ///< schedules the search simulated
  std::size_t transfers = 0;       ///< messages those runs simulated (SimResult::transfers)
  std::size_t budgeted = 0;        ///< what the search charged to SynthesisOptions::max_transfers
};

/// Trees for `c` in {allreduce, reduce, bcast} with `bytes` of data; reduce and bcast trees are
/// rooted at `root`. Deterministic: the same inputs give the same trees on every rank. Ranks with
/// host -1 count as hosts of their own. `work`, when given, receives what the search did.
[[nodiscard]] TreeSet synthesize_trees(const topo::Topology& t, Collective c, std::size_t bytes,
                                       int root, const SynthesisOptions& o = {},
                                       SynthesisWork* work = nullptr);

}  // namespace cclx::sched
