// Tree synthesis (synthesis.hpp). par-trees first: hosts sorted by the cost of reaching the other
// hosts (α + chunk·β summed over both directions from the host's first rank), binary heap over
// hosts, chains inside hosts. Then a coordinate search scored by the simulator on the all-active
// schedule: chunk size, number of trees, host fan-out and rotation, then swaps of two hosts in the
// order, each step keeping a candidate only when it is strictly faster. The budget is a count of
// simulator runs, so the result is the same on every rank.
#include "cclx/schedule/synthesis.hpp"

#include <algorithm>
#include <map>
#include <numeric>

#include "cclx/error.hpp"
#include "cclx/schedule/relay.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/routes.hpp"

namespace cclx::sched {

namespace {

struct Shape {
  int trees = 1;
  int fanout = 2;
  bool rotate = true;
  std::vector<int> order;  // host labels, fastest first
  std::size_t chunk = 4 << 20;
};

}  // namespace

TreeSet synthesize_trees(const topo::Topology& t, Collective c, std::size_t bytes, int root,
                         const SynthesisOptions& o) {
  if (c != Collective::allreduce && c != Collective::reduce && c != Collective::bcast)
    throw Error("tree synthesis serves allreduce, reduce and bcast, not " +
                std::string(to_string(c)));
  const int n = t.nranks();
  if (n < 1) throw Error("tree synthesis: the topology has no ranks");
  const bool rooted = c != Collective::allreduce;
  if (rooted && (root < 0 || root >= n))
    throw Error("tree synthesis: invalid root " + std::to_string(root) + " for " +
                std::to_string(n) + " ranks");
  if (o.max_trees < 0) throw Error("tree synthesis: max_trees must be >= 0");

  // Host labels: the topology's hosts; a rank without one is a host of its own.
  std::vector<int> label(static_cast<std::size_t>(n));
  std::map<int, int> leader;  // label -> first rank
  for (int r = 0; r < n; ++r) {
    const int h = t.host_of(r);
    label[static_cast<std::size_t>(r)] = h >= 0 ? h : t.nhosts() + r;
    leader.emplace(label[static_cast<std::size_t>(r)], r);
  }
  const int H = static_cast<int>(leader.size());
  const int max_trees = o.max_trees ? o.max_trees : std::min(H, 4);
  const std::size_t chunk0 = o.chunk_bytes ? o.chunk_bytes : std::size_t{4} << 20;

  // par-trees' host order: cheapest to reach the others first.
  const topo::RouteTable routes(t);
  const double ref = static_cast<double>(std::min<std::size_t>(chunk0, bytes ? bytes : 1));
  std::vector<std::pair<double, int>> cost;
  for (const auto& [h, a] : leader) {
    double sum = 0;
    for (const auto& [g, b] : leader) {
      if (g == h) continue;
      const auto there = routes.route(a, b), back = routes.route(b, a);
      sum += there.alpha + back.alpha + ref * (there.beta + back.beta);
    }
    cost.push_back({sum, h});
  }
  std::stable_sort(cost.begin(), cost.end());
  Shape best;
  best.trees = max_trees;
  best.chunk = chunk0;
  for (const auto& [s, h] : cost) best.order.push_back(h);

  const int rroot = rooted ? root : -1;
  auto build = [&](const Shape& s) {
    return par_trees(label, s.order, s.trees, s.fanout, s.rotate, rroot, s.chunk);
  };
  if (!o.search || n == 1) return build(best);

  const sim::Simulator simulator(t);
  ScheduleRequest req;
  req.collective = c;
  req.nranks = n;
  req.root = rooted ? root : 0;
  req.bytes = bytes;
  sim::SimOptions so;
  so.bytes = bytes;
  so.critical_path = false;
  int evaluations = 0;
  auto score = [&](const Shape& s) {
    ++evaluations;
    return simulator.run(tree_schedule(build(s), req), so).time;
  };
  double best_time = score(best);
  // Keeps `s` when strictly faster; false once the budget is spent.
  auto attempt = [&](const Shape& s) {
    if (evaluations >= o.max_evaluations) return false;
    const double time = score(s);
    if (time < best_time * (1 - 1e-9)) best = s, best_time = time;
    return true;
  };
  auto chunk_pass = [&] {
    if (o.chunk_bytes) return;
    const Shape base = best;
    TreeSet shape;
    shape.trees.resize(static_cast<std::size_t>(base.trees));
    shape.chunk_bytes = base.chunk;
    std::vector<std::uint32_t> seen{shape.chunks_per_tree(bytes)};
    for (std::uint32_t k = 1; k <= kMaxChunks; k *= 2) {
      if (std::find(seen.begin(), seen.end(), k) != seen.end()) continue;
      seen.push_back(k);
      const std::size_t share =
          (bytes + static_cast<std::size_t>(base.trees) - 1) / static_cast<std::size_t>(base.trees);
      Shape s = base;
      s.chunk = std::max<std::size_t>(1, (share + k - 1) / k);
      if (!attempt(s)) return;
    }
  };
  chunk_pass();
  for (int m = 1; m <= max_trees; ++m) {
    if (m == best.trees) continue;
    Shape s = best;
    s.trees = m;
    if (!attempt(s)) break;
  }
  for (const int f : {1, 2, 3, 4})
    for (const bool rot : {true, false}) {
      if (f > std::max(1, H - 1) || (f == best.fanout && rot == best.rotate)) continue;
      Shape s = best;
      s.fanout = f;
      s.rotate = rot;
      attempt(s);
    }
  for (int i = 0; i < H && evaluations < o.max_evaluations; ++i)
    for (int j = i + 1; j < H && evaluations < o.max_evaluations; ++j) {
      Shape s = best;
      std::swap(s.order[static_cast<std::size_t>(i)], s.order[static_cast<std::size_t>(j)]);
      attempt(s);
    }
  chunk_pass();
  return build(best);
}

}  // namespace cclx::sched
