#include "cclx/topology/rounds.hpp"

#include <algorithm>

#include "cclx/error.hpp"

namespace cclx::topo {

std::vector<std::vector<std::pair<int, int>>> interference_free_rounds(int n) {
  if (n < 1) throw Error("interference_free_rounds: need at least one rank");
  // Circle method on m = n rounded up to even: position m-1 stays fixed, the others rotate; in
  // round i, i pairs with the fixed one and i+k with i-k. A pair with the phantom rank n (odd n) is
  // an idle slot.
  const int m = n + (n % 2);
  std::vector<std::vector<std::pair<int, int>>> rounds;
  for (int i = 0; i < m - 1; ++i) {
    std::vector<std::pair<int, int>> pairs;
    auto add = [&](int a, int b) {
      if (a < n && b < n) pairs.emplace_back(std::min(a, b), std::max(a, b));
    };
    add(i, m - 1);
    for (int k = 1; k < m / 2; ++k) add((i + k) % (m - 1), (i - k + (m - 1)) % (m - 1));
    std::sort(pairs.begin(), pairs.end());
    rounds.push_back(std::move(pairs));
  }
  return rounds;
}

std::vector<std::vector<std::pair<int, int>>> interference_free_rounds(
    const std::vector<int>& host_of_rank) {
  const int n = static_cast<int>(host_of_rank.size());
  std::vector<std::vector<std::pair<int, int>>> out;
  for (const auto& round : interference_free_rounds(n)) {
    // The round's pairs within hosts stay; of those between hosts each pass takes, in order, the
    // ones whose hosts have no pair between hosts yet, and leaves the rest to the next round.
    std::vector<std::pair<int, int>> pairs, left;
    for (const auto& p : round)
      (host_of_rank[static_cast<std::size_t>(p.first)] ==
               host_of_rank[static_cast<std::size_t>(p.second)]
           ? pairs
           : left)
          .push_back(p);
    do {
      std::vector<int> busy;
      std::vector<std::pair<int, int>> later;
      for (const auto& p : left) {
        const int ha = host_of_rank[static_cast<std::size_t>(p.first)];
        const int hb = host_of_rank[static_cast<std::size_t>(p.second)];
        if (std::find(busy.begin(), busy.end(), ha) != busy.end() ||
            std::find(busy.begin(), busy.end(), hb) != busy.end()) {
          later.push_back(p);
          continue;
        }
        busy.insert(busy.end(), {ha, hb});
        pairs.push_back(p);
      }
      std::sort(pairs.begin(), pairs.end());
      if (!pairs.empty()) out.push_back(std::move(pairs));
      pairs.clear();
      left = std::move(later);
    } while (!left.empty());
  }
  return out;
}

}  // namespace cclx::topo
