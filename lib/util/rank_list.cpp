#include <algorithm>
#include <string>
#include <vector>

#include "cclx/error.hpp"

namespace cclx {

std::string rank_list(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (ranks.empty()) return "no rank";
  std::string s = ranks.size() == 1 ? "rank " : "ranks ";
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (i > 0) s += ", ";
    s += std::to_string(ranks[i]);
    if (j > i) s += '-' + std::to_string(ranks[j]);
    i = j + 1;
  }
  return s;
}

}  // namespace cclx
