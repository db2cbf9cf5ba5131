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
  for (auto& round : interference_free_rounds(n)) {
    // Pairs between hosts not yet placed, in order; each pass takes those whose hosts are free.
    std::vector<std::pair<int, int>> left, within;
    for (const auto& p : round)
      (host_of_rank[static_cast<std::size_t>(p.first)] ==
               host_of_rank[static_cast<std::size_t>(p.second)]
           ? within
           : left)
          .push_back(p);
    bool first = true;
    while (first || !left.empty()) {
      std::vector<std::pair<int, int>> pairs = first ? within : std::vector<std::pair<int, int>>{};
      std::vector<int> busy;  // hosts with a pair between hosts in this round
      std::vector<std::pair<int, int>> later;
      for (const auto& p : left) {
        const int ha = host_of_rank[static_cast<std::size_t>(p.first)];
        const int hb = host_of_rank[static_cast<std::size_t>(p.second)];
        if (std::find(busy.begin(), busy.end(), ha) != busy.end() ||
            std::find(busy.begin(), busy.end(), hb) != busy.end()) {
          later.push_back(p);
          continue;
        }
        busy.push_back(ha);
        busy.push_back(hb);
        pairs.push_back(p);
      }
      std::sort(pairs.begin(), pairs.end());
      if (!pairs.empty()) out.push_back(std::move(pairs));
      left = std::move(later);
      first = false;
    }
  }
  return out;
}

}  // namespace cclx::topo
