#include "cclx/topology/routes.hpp"

#include <algorithm>
#include <limits>

#include "cclx/error.hpp"

namespace cclx::topo {

RouteTable::RouteTable(const Topology& t, int precompute_limit)
    : t_(&t), n_(t.nranks()), rows_(static_cast<std::size_t>(t.nranks())) {
  if (n_ <= precompute_limit)
    for (int s = 0; s < n_; ++s) fill(s);
}

Route RouteTable::route(int src, int dst) const {
  if (src < 0 || src >= n_ || dst < 0 || dst >= n_)
    throw Error("route: rank out of range (" + std::to_string(src) + " -> " + std::to_string(dst) +
                ")");
  const Row& row = rows_[static_cast<std::size_t>(src)];
  if (!row.done) fill(src);
  const Entry& e = row.to[static_cast<std::size_t>(dst)];
  if (!e.reachable)
    throw Error("route: rank " + std::to_string(dst) + " is unreachable from rank " +
                std::to_string(src));
  return {std::span<const std::uint32_t>(row.links.data() + e.begin, e.length), e.alpha, e.beta};
}

void RouteTable::fill(int src) const {
  const Graph& g = t_->graph();
  const std::size_t nv = boost::num_vertices(g);
  constexpr auto kNone = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> hop(nv, kNone), pred_link(nv, kNone);
  std::vector<VertexId> pred(nv, 0);
  std::vector<double> asum(nv, 0);
  std::vector<VertexId> queue;
  queue.reserve(nv);
  const VertexId s = t_->rank_vertex(src);
  hop[s] = 0;
  queue.push_back(s);
  int ranks_left = n_ - 1;
  std::uint32_t settle_hop = kNone;  // hop count of the farthest rank, once all are reached
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const VertexId u = queue[head];
    // Vertices at hop >= settle_hop cannot improve any rank's route (ties are decided by the
    // previous level), so the search ends there: O(n) per source on a full mesh.
    if (hop[u] >= settle_hop) break;
    for (const auto e : boost::make_iterator_range(boost::out_edges(u, g))) {
      const VertexId v = boost::target(e, g);
      const double a = asum[u] + g[e].alpha;
      if (hop[v] == kNone) {
        hop[v] = hop[u] + 1;
        asum[v] = a;
        pred[v] = u;
        pred_link[v] = g[e].id;
        queue.push_back(v);
        if (g[v].kind == VertexKind::rank && --ranks_left == 0) settle_hop = hop[v];
      } else if (hop[v] == hop[u] + 1 && a < asum[v]) {
        asum[v] = a;
        pred[v] = u;
        pred_link[v] = g[e].id;
      }
    }
  }

  Row& row = rows_[static_cast<std::size_t>(src)];
  row.to.assign(static_cast<std::size_t>(n_), Entry{});
  row.links.clear();
  std::vector<std::uint32_t> path;
  for (int d = 0; d < n_; ++d) {
    Entry& e = row.to[static_cast<std::size_t>(d)];
    const VertexId v = t_->rank_vertex(d);
    e.begin = static_cast<std::uint32_t>(row.links.size());
    if (hop[v] == kNone) continue;
    path.clear();
    double beta = 0;
    for (VertexId x = v; x != s; x = pred[x]) {
      path.push_back(pred_link[x]);
      beta = std::max(beta, t_->link(pred_link[x]).beta);
    }
    row.links.insert(row.links.end(), path.rbegin(), path.rend());
    e.length = static_cast<std::uint32_t>(path.size());
    e.alpha = asum[v];
    e.beta = beta;
    e.reachable = true;
  }
  row.done = true;
}

}  // namespace cclx::topo
