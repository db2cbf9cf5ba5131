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

}  // namespace cclx::topo
