// Interference-free probe rounds: every round is a matching of the ranks (each rank in at most one
// pair), so a ping-pong in a round is the only traffic on both ranks' ports (and, given the ranks'
// hosts, on both hosts' links). Over all rounds each
// unordered pair meets exactly once: n - 1 rounds for even n, n for odd n (one rank idles per
// round). Built with the circle method, the matching form of AdapCC's "(h + i) mod N" rounds.
#pragma once

#include <utility>
#include <vector>

namespace cclx::topo {

/// rounds[i] = pairs (a, b) with a < b.
[[nodiscard]] std::vector<std::vector<std::pair<int, int>>> interference_free_rounds(int n);

/// The same over ranks on hosts (`host_of_rank`: a host id per rank): a round also holds at most
/// one pair between hosts per host, so a probe across hosts is the only traffic on its hosts'
/// links too (two probes through one NIC would each see half its rate). Each circle round is split
/// where its pairs between hosts share a host: its pairs within hosts and the first pairs between
/// hosts that fit stay, the others move to rounds of their own (greedily, in order).
[[nodiscard]] std::vector<std::vector<std::pair<int, int>>> interference_free_rounds(
    const std::vector<int>& host_of_rank);

}  // namespace cclx::topo
