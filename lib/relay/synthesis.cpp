// Tree synthesis (synthesis.hpp). par-trees first: hosts sorted by the cost of reaching the other
// hosts (α + chunk·β summed over both directions from the host's first rank), binary heap over
// hosts, chains inside hosts. Then a coordinate search scored by the simulator on the all-active
// schedule: number of trees, host fan-out and rotation, swaps of two hosts in the order (compared
// at up to 4 chunks per tree, which keeps the runs cheap), then the chunk count on the chosen
// shape; a candidate is kept only when strictly faster. Two more descents compare the shapes
// pipelined (16 blocks in all), from par-trees and from one chain of hosts; the best is kept.
// The budget counts simulated transfers, so the result is the same on every rank.
#include "cclx/relay/synthesis.hpp"

#include <algorithm>
#include <map>

#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/routes.hpp"

namespace cclx::sched {

namespace {

struct Shape {
  int trees = 1;
  int fanout = 2;
  bool rotate = true;
  std::vector<int> order;    // host labels, fastest first
  std::uint32_t chunks = 1;  // per tree
};

}  // namespace

TreeSet synthesize_trees(const topo::Topology& t, Collective c, std::size_t bytes, int root,
                         const SynthesisOptions& o, SynthesisWork* work) {
  if (work) *work = {};
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
    cost.emplace_back(sum, h);
  }
  std::stable_sort(cost.begin(), cost.end());
  Shape best;
  best.trees = max_trees;
  for (const auto& [sum, h] : cost) best.order.push_back(h);
  const std::size_t bytes1 = bytes ? bytes : 1;
  auto chunk_of = [&](const Shape& s) {
    const auto m = static_cast<std::size_t>(s.trees);
    return std::max<std::size_t>(1, ((bytes1 + m - 1) / m + s.chunks - 1) / s.chunks);
  };
  auto chunks_at = [&](int trees, std::size_t chunk) {
    TreeSet probe;
    probe.trees.resize(static_cast<std::size_t>(trees));
    probe.chunk_bytes = chunk;
    return probe.chunks_per_tree(bytes);
  };
  best.chunks = chunks_at(best.trees, chunk0);

  const int rroot = rooted ? root : -1;
  auto build = [&](const Shape& s) {
    return par_trees(label, s.order, s.trees, s.fanout, s.rotate, rroot,
                     o.chunk_bytes ? o.chunk_bytes : chunk_of(s));
  };
  if (!o.search || n == 1) {
    TreeSet ts = build(best);
    ts.chunk_bytes = chunk0;
    return ts;
  }

  // The budget counts simulated transfers (what a simulator run costs), so it bounds the time
  // whatever n and the chunk count, and stays deterministic.
  const sim::Simulator simulator(t);
  ScheduleRequest req;
  req.collective = c;
  req.nranks = n;
  req.root = rooted ? root : 0;
  req.bytes = bytes;
  sim::SimOptions so;
  so.bytes = bytes;
  so.critical_path = false;
  const std::size_t per_block = static_cast<std::size_t>(n - 1) * (rooted ? 1 : 2);
  std::size_t spent = 0;
  auto cost_of = [&](const Shape& s) {
    const std::uint32_t k = o.chunk_bytes ? chunks_at(s.trees, o.chunk_bytes) : s.chunks;
    return per_block * static_cast<std::size_t>(s.trees) * k * (o.relay ? 3 : 1);
  };
  // Relay-aware: plus the mean phase-2 time with one rank late, over up to four ranks spread
  // over the rank range (not the root of a rooted collective).
  std::vector<std::vector<bool>> late_sets;
  for (const int q : {n - 1, n / 2, n / 4, (3 * n) / 4}) {
    std::vector<bool> a(static_cast<std::size_t>(n), true);
    if ((rooted && q == root) || q < 0) continue;
    a[static_cast<std::size_t>(q)] = false;
    if (std::find(late_sets.begin(), late_sets.end(), a) == late_sets.end()) late_sets.push_back(a);
  }
  SynthesisWork done;
  auto simulate = [&](const Schedule& sch) {
    const sim::SimResult res = simulator.run(sch, so);
    ++done.simulator_runs;
    done.transfers += res.transfers;
    return res.time;
  };
  auto score = [&](const Shape& s) {
    spent += cost_of(s);
    const TreeSet ts = build(s);
    double time = simulate(tree_schedule(ts, req));
    if (o.relay && !late_sets.empty()) {
      double sum = 0;
      for (const auto& a : late_sets) sum += simulate(relay_schedules(ts, req, a).phase2);
      time += sum / static_cast<double>(late_sets.size());
    }
    return time;
  };
  // Shapes are compared at a few chunks per tree (cheap runs); the chunk count is chosen last.
  const std::uint32_t full_chunks = best.chunks;
  if (!o.chunk_bytes) best.chunks = std::min<std::uint32_t>(best.chunks, 4);
  if (cost_of(best) > o.max_transfers) {
    best.chunks = full_chunks;
    return build(best);
  }
  const Shape start = best;
  double best_time = score(best);
  // Keeps `s` when strictly faster; false when it does not fit in the budget.
  auto attempt = [&](const Shape& s) {
    if (spent + cost_of(s) > o.max_transfers) return false;
    const double time = score(s);
    if (time < best_time * (1 - 1e-9)) best = s, best_time = time;
    return true;
  };
  // Without an explicit max_trees, one tree per host is tried last: rotated chains of hosts
  // with one or two chunks each move what a ring moves, which wins on uniform links.
  const bool ring_like = !o.max_trees && H > max_trees;
  // One descent from `best`: trees, fan-out and rotation, swaps of two hosts, each shape at
  // `compare(shape)` chunks per tree; then the chunk count on the shape found.
  auto descend = [&](auto compare) {
    auto attempt_shape = [&](Shape s) {
      if (!o.chunk_bytes) s.chunks = compare(s);
      return attempt(s);
    };
    for (int m = 1; m <= max_trees; ++m) {
      if (m == best.trees) continue;
      Shape s = best;
      s.trees = m;
      attempt_shape(s);
    }
    for (const int f : {1, 2, 3, 4})
      for (const bool rot : {true, false}) {
        if (f > std::max(1, H - 1) || (f == best.fanout && rot == best.rotate)) continue;
        Shape s = best;
        s.fanout = f;
        s.rotate = rot;
        attempt_shape(s);
      }
    // Reserve for the chunk pass (every power of two up to kMaxChunks once) and the ring-like
    // candidates.
    const std::size_t reserve =
        (o.chunk_bytes ? 0 : per_block * static_cast<std::size_t>(best.trees) * 2 * kMaxChunks) +
        (ring_like ? per_block * static_cast<std::size_t>(H) * 3 : 0);
    for (int i = 0; i < H; ++i)
      for (int j = i + 1; j < H; ++j) {
        Shape s = best;
        std::swap(s.order[static_cast<std::size_t>(i)], s.order[static_cast<std::size_t>(j)]);
        if (spent + reserve + cost_of(s) > o.max_transfers) break;
        attempt(s);
      }
    if (!o.chunk_bytes) {
      // The chunk count on the chosen shape: powers of two, and the default 4 MiB chunks.
      const Shape shape = best;
      best.chunks = full_chunks;
      best_time = score(best);
      for (std::uint32_t k = 1; k <= kMaxChunks; k *= 2) {
        if (k == full_chunks) continue;
        Shape s = shape;
        s.chunks = k;
        if (!attempt(s)) break;
      }
    }
  };
  const std::uint32_t few = start.chunks;
  descend([&](const Shape&) { return few; });
  // A second descent compares shapes pipelined, at kPipelineBlocks blocks in all (M trees of
  // kPipelineBlocks / M chunks): at a few chunks per tree (one at 4 MiB) a deep tree has no
  // pipeline, and only a pipeline lets a slow leaf send and receive at once (two link classes:
  // slow hosts as leaves of one pipelined tree). The better of the two descents is kept.
  constexpr std::uint32_t kPipelineBlocks = 16;
  auto piped = [&](const Shape& s) {
    return std::min(kMaxChunks, std::max<std::uint32_t>(
                                    few, kPipelineBlocks / static_cast<std::uint32_t>(s.trees)));
  };
  // Another descent from `from`, pipelined; keeps the better of it and the best so far.
  auto descend_from = [&](Shape from) {
    from.chunks = piped(from);
    if (spent + cost_of(from) > o.max_transfers) return;
    const Shape first = best;
    const double first_time = best_time;
    best = from;
    best_time = score(best);
    descend(piped);
    if (first_time <= best_time) best = first, best_time = first_time;
  };
  if (!o.chunk_bytes) {
    descend_from(start);
    // A third descent from one pipelined chain of hosts: the descents from par-trees can end in
    // a local optimum of bushy trees far from it (a profile of the uniform testbed: a relay cost
    // of 0.77 s against the chain's 0.58 s; docs/algorithms/adaptive.md, "Search starts").
    Shape chain = start;
    chain.trees = 1;
    chain.fanout = 1;
    chain.rotate = true;
    descend_from(chain);
  }
  if (ring_like)
    for (const std::uint32_t k : {1u, 2u}) {
      Shape s = best;
      s.trees = H;
      s.fanout = 1;
      s.rotate = true;
      s.chunks = k;
      attempt(s);
    }
  if (work) {
    done.budgeted = spent;
    *work = done;
  }
  return build(best);
}

}  // namespace cclx::sched
