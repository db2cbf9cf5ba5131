// Interference-free probe rounds: every round is a matching of the ranks (each rank in at most one
// pair), so a ping-pong in a round is the only traffic on both ranks' ports. Over all rounds each
// unordered pair meets exactly once: n - 1 rounds for even n, n for odd n (one rank idles per
// round). Built with the circle method, the matching form of AdapCC's "(h + i) mod N" rounds.
#pragma once

#include <utility>
#include <vector>

namespace cclx::topo {

/// rounds[i] = pairs (a, b) with a < b.
[[nodiscard]] std::vector<std::vector<std::pair<int, int>>> interference_free_rounds(int n);

}  // namespace cclx::topo
