#include "cclx/schedule/hosts.hpp"

#include <algorithm>
#include <cstddef>
#include <map>

#include "cclx/error.hpp"

namespace cclx::sched {

namespace {

// Host ids numbered 0, 1, ... in the order of first appearance (i.e. by their lowest rank).
std::vector<int> canonical(std::span<const int> ids) {
  std::map<int, int> number;
  std::vector<int> out;
  out.reserve(ids.size());
  for (const int id : ids)
    out.push_back(number.try_emplace(id, static_cast<int>(number.size())).first->second);
  return out;
}

}  // namespace

int HostMap::max_ranks_per_host() const {
  std::size_t k = 0;
  for (const auto& h : hosts) k = std::max(k, h.size());
  return static_cast<int>(k);
}

HostMap host_map(std::span<const int> ids, int nranks) {
  if (!ids.empty() && ids.size() != static_cast<std::size_t>(nranks))
    throw Error("host map has " + std::to_string(ids.size()) + " entries for " +
                std::to_string(nranks) + " ranks");
  HostMap m;
  const auto n = static_cast<std::size_t>(nranks);
  m.host_of.resize(n);
  m.local_of.resize(n);
  std::vector<int> label(n);
  if (ids.empty())
    for (std::size_t r = 0; r < n; ++r) label[r] = static_cast<int>(r);
  else
    label = canonical(ids);
  for (std::size_t r = 0; r < n; ++r) {
    const auto j = static_cast<std::size_t>(label[r]);
    if (j == m.hosts.size()) m.hosts.emplace_back();
    m.host_of[r] = label[r];
    m.local_of[r] = static_cast<int>(m.hosts[j].size());
    m.hosts[j].push_back(static_cast<int>(r));
  }
  return m;
}

std::string host_labels(std::span<const int> ids) {
  std::string s;
  for (const int j : canonical(ids)) {
    if (!s.empty()) s += ',';
    s += std::to_string(j);
  }
  return s;
}

}  // namespace cclx::sched
