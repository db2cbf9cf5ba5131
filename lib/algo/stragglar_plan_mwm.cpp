// StragglAR: the paper's planner for non-powers of two, kept for comparison (plan_with(n, "mwm")).
//
// Each round the straggler exchange is fixed (round r < n-1); the paper matches the other ranks by
// a maximum-weight matching on the graph whose edge {a, b} weighs 2 when both gain a chunk they
// lack, 1 when only one does. Boost 1.74's maximum_weighted_matching (the version here) loops
// forever on some of these graphs (n = 24, round 17) and crashes when ties are perturbed, so this
// uses the lexicographic variant: a maximum-cardinality matching (Boost.Graph Edmonds) on the
// weight-2 edges, then one on the weight-1 edges among the ranks left free. Each side sends the
// oldest chunk it holds fully reduced that its partner lacks (the paper leaves the choice open).
// The straggler joins the matching once it holds everything (after round n-2). Deterministic.
#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/max_cardinality_matching.hpp>
#include <vector>

#include "cclx/error.hpp"
#include "stragglar_planners.hpp"

namespace cclx::sched::stragglar_rounds::detail {

Plan plan_mwm(int n) {
  if (n < 2) throw Error("stragglar: plan_mwm needs n >= 2");
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  using Vertex = boost::graph_traits<Graph>::vertex_descriptor;
  const int m = n - 1, S = n - 1;
  Plan p;
  p.n = n;
  p.method = "mwm";
  std::vector<std::vector<char>> have(static_cast<std::size_t>(n),
                                      std::vector<char>(static_cast<std::size_t>(m), 0));
  std::vector<int> missing(static_cast<std::size_t>(n), m);
  missing[static_cast<std::size_t>(S)] = 0;
  auto holds = [&](int x, int k, int t) { return x == S ? t > n - 2 : have[x][k] != 0; };
  // Oldest chunk `from` can give `to` (-1: none).
  auto gift = [&](int from, int to, int t) {
    if (to == S) return -1;
    for (int k = 0; k < std::min(t, m); ++k)
      if (holds(from, k, t) && !have[static_cast<std::size_t>(to)][static_cast<std::size_t>(k)])
        return k;
    return -1;
  };
  for (int t = 0;; ++t) {
    int incomplete = 0;
    for (int x = 0; x < m; ++x) incomplete += missing[static_cast<std::size_t>(x)] > 0;
    if (incomplete == 0) break;
    if (t > 8 * n + 64) throw Error("stragglar: plan_mwm does not terminate");
    std::vector<Exchange> ex;
    std::vector<int> freel;
    if (t <= n - 2) ex.push_back({t, S, t, t});
    for (int x = 0; x < n; ++x)
      if (!(t <= n - 2 && (x == t || x == S))) freel.push_back(x);
    // Stage 1: maximum-cardinality matching on the weight-2 edges; stage 2: the same on the
    // weight-1 edges among the ranks left unmatched.
    std::vector<char> used(freel.size(), 0);
    for (int w = 2; w >= 1; --w) {
      Graph g(freel.size());
      for (std::size_t i = 0; i < freel.size(); ++i)
        for (std::size_t j = i + 1; j < freel.size(); ++j) {
          if (used[i] || used[j]) continue;
          const int wij = (gift(freel[i], freel[j], t) >= 0) + (gift(freel[j], freel[i], t) >= 0);
          if (wij == w) boost::add_edge(i, j, g);
        }
      std::vector<Vertex> mate(freel.size());
      boost::edmonds_maximum_cardinality_matching(g, mate.data());
      for (std::size_t i = 0; i < freel.size(); ++i) {
        const Vertex j = mate[i];
        if (j == boost::graph_traits<Graph>::null_vertex() || j < i) continue;
        const int a = freel[i], b = freel[j];
        ex.push_back({a, b, gift(a, b, t), gift(b, a, t)});
        used[i] = used[j] = 1;
      }
    }
    for (const auto& e : ex) {
      for (auto [to, k] : {std::pair{e.b, e.chunk_ab}, std::pair{e.a, e.chunk_ba}}) {
        if (k < 0 || to == S) continue;
        have[static_cast<std::size_t>(to)][static_cast<std::size_t>(k)] = 1;
        --missing[static_cast<std::size_t>(to)];
      }
    }
    p.rounds.push_back(std::move(ex));
  }
  return p;
}

}  // namespace cclx::sched::stragglar_rounds::detail
