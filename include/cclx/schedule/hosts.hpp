// The rank -> host map of a hierarchical schedule (algo/hierarchical.hpp): which ranks share a
// host. A request carries it as one host id per rank (ScheduleRequest::hosts); HostMap groups the
// ranks by host in a canonical form, so that two labelings of the same grouping give the same
// schedule and the same cache key.
#pragma once

#include <span>
#include <string>
#include <vector>

namespace cclx::sched {

/// The ranks grouped by host: hosts in the order of their lowest rank, each host's ranks
/// ascending. Its local rank 0 (the host's lowest rank) is the host's leader.
struct HostMap {
  std::vector<std::vector<int>> hosts;  ///< hosts[j]: the ranks of host j, ascending
  std::vector<int> host_of;             ///< host_of[r]: the host of rank r
  std::vector<int> local_of;            ///< local_of[r]: r's position among its host's ranks

  /// The number of hosts.
  [[nodiscard]] int num_hosts() const { return static_cast<int>(hosts.size()); }
  /// The most ranks on one host.
  [[nodiscard]] int max_ranks_per_host() const;
};

/// The map of `ids` (a host id per rank, any integers; equal ids share a host) for `nranks` ranks;
/// empty `ids`: every rank its own host. Throws cclx::Error when a non-empty `ids` does not hold
/// exactly `nranks` entries.
[[nodiscard]] HostMap host_map(std::span<const int> ids, int nranks);

/// The canonical labels of `ids`: each rank's host numbered in the order of first appearance
/// ("0,0,1,0,2"), what a cache key and CCLX_VALIDATE compare; empty for empty `ids`.
[[nodiscard]] std::string host_labels(std::span<const int> ids);

}  // namespace cclx::sched
