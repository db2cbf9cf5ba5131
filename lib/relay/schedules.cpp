// Relay schedules over parallel trees (relay.hpp; design in docs/algorithms/adaptive.md).
//
// Timing. In one pass up a tree (a reduce of the contributing ranks' data towards the root), a
// node with data sends chunk j to its parent at step up[v] + j, where up[v] = 0 without children
// that have data and 1 + max up[c] over those children otherwise; chunk j of child i lands in
// scratch copy 1 + i at step up[c] + j and is combined at once. The operands of a chunk meet in
// arrival order (own data, or the root's phase-1 partial, first): the first one is kept where it
// is, every further one is reduced into the accumulator (Scratch copy 0; Out at a root that
// finishes in Out), so an inactive node with one child with data forwards the chunk unchanged.
// A pass down from the root (bcast) sends chunk j from a node at depth d at step D0 + d + j,
// where D0 is the first step at which the root's chunk 0 is final (up[root] after a pass up).
// Allreduce with some ranks late: phase 1 = pass up + pass down among the active ranks (P), phase
// 2 = pass up of the late data to a late rank on a tree rooted there, pass down of it into
// Scratch copy 0, and Out = P (+) L on each rank in the step its chunk lands.
// With in-place buffers the own data is Out: every read of it on a node happens at a step <=
// up[v] + j, and the pass down writes it at D0 + d - 1 + j >= up[v] + 2d - 1 + j, later for d >= 1.
#include "cclx/relay/schedules.hpp"

#include <algorithm>
#include <functional>
#include <string>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "steps.hpp"

namespace cclx::sched {

namespace {

using C = Collective;
using detail::copy_op;
using detail::recv_op;
using detail::reduce_op;
using detail::send_op;
using detail::Steps;

// One tree with what the passes need: parents before children, depths, child slots.
struct TreeView {
  const Tree* t = nullptr;
  std::vector<int> order;  // breadth-first from the root
  std::vector<int> depth;  // from the root
  std::vector<int> slot;   // index in the parent's children list

  explicit TreeView(const Tree& tree) : t(&tree) {
    const auto n = tree.parent.size();
    depth.assign(n, 0);
    slot.assign(n, 0);
    order.reserve(n);
    order.push_back(tree.root);
    for (std::size_t i = 0; i < order.size(); ++i) {
      const auto v = static_cast<std::size_t>(order[i]);
      const auto& kids = tree.children[v];
      for (std::size_t k = 0; k < kids.size(); ++k) {
        const auto c = static_cast<std::size_t>(kids[k]);
        depth[c] = depth[v] + 1;
        slot[c] = static_cast<int>(k);
        order.push_back(kids[k]);
      }
    }
  }
};

// The same undirected tree rooted at `root`: a node serves its old children first, then its old
// parent.
Tree re_root(const Tree& t, int root) {
  const auto n = t.parent.size();
  std::vector<std::vector<int>> adj(n);
  for (std::size_t v = 0; v < n; ++v) {
    adj[v] = t.children[v];
    if (t.parent[v] >= 0) adj[v].push_back(t.parent[v]);
  }
  Tree r;
  r.root = root;
  r.parent.assign(n, -1);
  r.children.assign(n, {});
  std::vector<int> queue{root};
  std::vector<char> seen(n, 0);
  seen[static_cast<std::size_t>(root)] = 1;
  for (std::size_t i = 0; i < queue.size(); ++i) {
    const auto v = static_cast<std::size_t>(queue[i]);
    for (int c : adj[v])
      if (!seen[static_cast<std::size_t>(c)]) {
        seen[static_cast<std::size_t>(c)] = 1;
        r.parent[static_cast<std::size_t>(c)] = static_cast<int>(v);
        r.children[v].push_back(c);
        queue.push_back(c);
      }
  }
  return r;
}

// The tree with ranks `a` and `b` trading places.
Tree swap_ranks(const Tree& t, int a, int b) {
  auto pi = [&](int v) { return v == a ? b : v == b ? a : v; };
  Tree r;
  r.root = pi(t.root);
  r.parent.assign(t.parent.size(), -1);
  r.children.assign(t.parent.size(), {});
  for (std::size_t v = 0; v < t.parent.size(); ++v) {
    const auto w = static_cast<std::size_t>(pi(static_cast<int>(v)));
    r.parent[w] = t.parent[v] < 0 ? -1 : pi(t.parent[v]);
    for (int c : t.children[v]) r.children[w].push_back(pi(c));
  }
  return r;
}

// A tree rooted at `root` for the second stage of an allreduce relay: `root` sends everything it
// broadcasts to each of its children, so of the tree re-rooted there and the tree with `root` and
// the old root trading places, the one where it has fewer children (ties: re-rooted, which keeps
// every link of the tree).
Tree rooted_at(const Tree& t, int root) {
  Tree a = re_root(t, root), b = swap_ranks(t, t.root, root);
  const auto r = static_cast<std::size_t>(root);
  return b.children[r].size() < a.children[r].size() ? b : a;
}

// Most neighbours (children and parent) of a node in any tree: the landing copies a pass up a
// re-rooted tree may need.
std::uint32_t max_degree(const TreeSet& ts) {
  std::size_t d = 0;
  for (const auto& t : ts.trees)
    for (std::size_t v = 0; v < t.children.size(); ++v)
      d = std::max(d, t.children[v].size() + (t.parent[v] >= 0 ? 1 : 0));
  return static_cast<std::uint32_t>(d);
}

struct Layout {
  std::uint32_t nb = 1;          // blocks of the whole partition
  std::uint32_t first = 0;       // the tree's first block
  std::uint32_t K = 1;           // chunks of the tree
  std::vector<char> own_is_out;  // per rank: In aliases Out (in place)

  [[nodiscard]] std::uint32_t block(std::uint32_t j) const { return first + j; }
  [[nodiscard]] Region own(int r, std::uint32_t j) const {
    return own_is_out[static_cast<std::size_t>(r)] ? out(block(j)) : in(block(j));
  }
  [[nodiscard]] Region acc(std::uint32_t j) const { return scratch(block(j)); }
  [[nodiscard]] Region landing(int child_slot, std::uint32_t j) const {
    return scratch(static_cast<std::uint32_t>(1 + child_slot) * nb + block(j));
  }
  // Allreduce relay plans: the active ranks' result P (phase 1) on a rank that may not write Out.
  std::uint32_t p_copy = 0;
  [[nodiscard]] Region partial(std::uint32_t j) const { return scratch(p_copy * nb + block(j)); }
};

struct UpSpec {
  std::vector<char> contrib;  // per rank: adds its own data in this pass
  bool root_partial = false;  // the root's Scratch copy 0 holds a partial result (phase 2)
  std::function<Region(std::uint32_t)> root_dst;  // where the root's result of chunk j goes
};

// A pass up the tree; returns D0 (the first step a pass down may send chunk 0 from the root), or
// -1 when no rank of the tree has data.
long long up_pass(Steps& e, const TreeView& tv, const Layout& L, const UpSpec& u) {
  const Tree& t = *tv.t;
  const auto n = t.parent.size();
  std::vector<char> has(n, 0);
  std::vector<long long> up(n, 0);
  for (auto it = tv.order.rbegin(); it != tv.order.rend(); ++it) {
    const auto v = static_cast<std::size_t>(*it);
    bool any = u.contrib[v] || (*it == t.root && u.root_partial);
    long long latest = -1;
    for (int c : t.children[v])
      if (has[static_cast<std::size_t>(c)]) {
        any = true;
        latest = std::max(latest, up[static_cast<std::size_t>(c)]);
      }
    has[v] = any;
    up[v] = latest + 1;
  }
  if (!has[static_cast<std::size_t>(t.root)]) return -1;

  for (const int v : tv.order) {
    const auto vi = static_cast<std::size_t>(v);
    if (!has[vi] || !e.wants(v)) continue;
    const bool is_root = v == t.root;
    const auto& kids = t.children[vi];
    for (std::uint32_t j = 0; j < L.K; ++j) {
      const Region dst = is_root ? u.root_dst(j) : L.acc(j);
      Region cur{};
      bool have = false;
      long long last = -1;  // step of the op that produced `cur` (-1: there from the start)
      auto take = [&](Region g, long long step) {
        if (!have) {
          cur = g, have = true, last = std::max(last, step);
          return;
        }
        const long long at = step >= 0 ? step : j;
        e.add(v, at, reduce_op(dst, cur, g));
        cur = dst, last = at;
      };
      if (is_root && u.root_partial) take(L.acc(j), -1);
      if (u.contrib[vi]) take(L.own(v, j), -1);
      // Children's chunks in arrival order (stable: serving order on ties).
      std::vector<std::pair<long long, int>> arrivals;
      for (std::size_t i = 0; i < kids.size(); ++i)
        if (has[static_cast<std::size_t>(kids[i])])
          arrivals.emplace_back(up[static_cast<std::size_t>(kids[i])] + j, static_cast<int>(i));
      std::stable_sort(arrivals.begin(), arrivals.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (const auto& [step, i] : arrivals) {
        const Region land = L.landing(i, j);
        e.add(v, step, recv_op(kids[static_cast<std::size_t>(i)], land));
        take(land, step);
      }
      if (is_root) {
        if (!(cur == dst)) e.add(v, last >= 0 ? last : j, copy_op(dst, cur));
      } else {
        e.add(v, up[vi] + j, send_op(t.parent[vi], cur));
      }
    }
  }
  // The root's chunk j is final after step up[root] - 1 + j with children with data (its last
  // arrival, combined or copied at once); without any, after a local combine or copy at step j,
  // or from the start when the data already is where it goes.
  const auto r = static_cast<std::size_t>(t.root);
  bool kids_with = false;
  for (int c : t.children[r]) kids_with = kids_with || has[static_cast<std::size_t>(c)];
  if (kids_with) return up[r];
  const int operands = (u.root_partial ? 1 : 0) + (u.contrib[r] ? 1 : 0);
  const Region first_operand = u.root_partial ? L.acc(0) : L.own(t.root, 0);
  const Region dst = u.root_dst(0);
  return operands >= 2 || !(first_operand == dst) ? 1 : 0;
}

// A pass down from the root: chunk j leaves a node at depth d at step d0 + d + j. `loc(v, j)`
// is where rank v holds chunk j (the root: where the data is; others: where it lands).
template <class Loc>
void down_pass(Steps& e, const TreeView& tv, const Layout& L, long long d0, Loc loc) {
  const Tree& t = *tv.t;
  for (const int v : tv.order) {
    if (!e.wants(v)) continue;
    const auto vi = static_cast<std::size_t>(v);
    const long long d = tv.depth[vi];
    for (std::uint32_t j = 0; j < L.K; ++j) {
      if (v != t.root) e.add(v, d0 + d - 1 + j, recv_op(t.parent[vi], loc(v, j)));
      for (int c : t.children[vi]) e.add(v, d0 + d + j, send_op(c, loc(v, j)));
    }
  }
}

void validate(const TreeSet& ts, const ScheduleRequest& req, const std::vector<bool>& active) {
  if (req.collective != C::allreduce && req.collective != C::reduce && req.collective != C::bcast)
    throw Error("relay schedules serve allreduce, reduce and bcast, not " +
                std::string(to_string(req.collective)));
  if (req.nranks < 1) throw Error("relay schedules: communicator size must be >= 1");
  if (ts.nranks != req.nranks)
    throw Error("relay schedules: trees for " + std::to_string(ts.nranks) + " ranks, request for " +
                std::to_string(req.nranks));
  if (active.size() != static_cast<std::size_t>(req.nranks))
    throw Error("relay schedules: active set has " + std::to_string(active.size()) +
                " entries for " + std::to_string(req.nranks) + " ranks");
  if (req.only_rank >= req.nranks)
    throw Error("relay schedules: rank " + std::to_string(req.only_rank) + " out of range");
  if (req.only_rank >= 0 && req.only_rank_end > req.only_rank + 1)
    throw Error("relay schedules: build one rank's programs or every rank's, not a range");
  check_trees(ts);
  if (req.collective != C::allreduce) {
    if (req.root < 0 || req.root >= req.nranks)
      throw Error("relay schedules: invalid root " + std::to_string(req.root));
    for (std::size_t k = 0; k < ts.trees.size(); ++k)
      if (ts.trees[k].root != req.root)
        throw Error("relay schedules: tree " + std::to_string(k) + " is rooted at " +
                    std::to_string(ts.trees[k].root) + ", the " +
                    std::string(to_string(req.collective)) + " at " + std::to_string(req.root));
  }
}

Schedule empty_schedule(const TreeSet& ts, const ScheduleRequest& req, int phase,
                        std::size_t nactive, std::uint32_t scratch_copies) {
  const auto K = ts.chunks_per_tree(req.bytes);
  Schedule s;
  s.algorithm = "adaptive";
  s.params = "phase=" + std::to_string(phase) + ",active=" + std::to_string(nactive) + "/" +
             std::to_string(req.nranks) + ",trees=" + std::to_string(ts.trees.size()) +
             ",chunks=" + std::to_string(K);
  s.collective = req.collective;
  s.nranks = req.nranks;
  s.root = req.collective == C::allreduce ? 0 : req.root;
  s.in_place = req.in_place;
  s.nblocks = ts.nblocks(req.bytes);
  s.preserves_order = req.nranks == 1;
  s.scratch_copies = scratch_copies;
  s.programs.resize(static_cast<std::size_t>(req.nranks));
  return s;
}

}  // namespace

RelayPlan relay_schedules(const TreeSet& ts, const ScheduleRequest& req,
                          const std::vector<bool>& active) {
  validate(ts, req, active);
  const int n = req.nranks;
  const auto N = static_cast<std::size_t>(n);
  const std::size_t nactive =
      static_cast<std::size_t>(std::count(active.begin(), active.end(), true));
  const bool all = nactive == N, none = nactive == 0;
  // Allreduce with both active and inactive ranks re-roots trees in phase 2 and keeps P in its
  // own copy: 2 + the most neighbours of a node; otherwise the accumulator and a landing copy
  // per child.
  const bool two_stage = req.collective == C::allreduce && !all && !none;
  const std::uint32_t copies = two_stage ? 2 + max_degree(ts) : ts.scratch_copies();
  RelayPlan plan{empty_schedule(ts, req, 1, nactive, copies),
                 empty_schedule(ts, req, 2, nactive, copies)};
  Steps e1(n, req.only_rank), e2(n, req.only_rank);

  Layout L;
  L.p_copy = copies - 1;
  L.nb = ts.nblocks(req.bytes);
  L.K = ts.chunks_per_tree(req.bytes);
  L.own_is_out.assign(N, 0);
  coll::visit(req.collective, [&](auto d) {
    for (int r = 0; r < n; ++r)
      L.own_is_out[static_cast<std::size_t>(r)] = req.in_place && d.in_place(r, req.root).aliased;
  });
  std::vector<char> yes(N, 1), early(N, 0), late(N, 0);
  std::vector<int> late_ranks;
  for (std::size_t r = 0; r < N; ++r) {
    (active[r] ? early : late)[r] = 1;
    if (!active[r]) late_ranks.push_back(static_cast<int>(r));
  }
  auto to_out = [&](std::uint32_t j) { return out(L.block(j)); };
  auto to_acc = [&](std::uint32_t j) { return L.acc(j); };

  for (std::size_t k = 0; k < ts.trees.size(); ++k) {
    const TreeView tv(ts.trees[k]);
    L.first = static_cast<std::uint32_t>(k) * L.K;
    const int root = ts.trees[k].root;
    if (req.collective == C::bcast) {
      if (!active[static_cast<std::size_t>(root)]) {
        down_pass(e2, tv, L, 0, [&](int, std::uint32_t j) { return to_out(j); });
        continue;
      }
      down_pass(e1, tv, L, 0, [&](int v, std::uint32_t j) {
        return active[static_cast<std::size_t>(v)] ? out(L.block(j)) : L.acc(j);
      });
      continue;
    }
    // allreduce / reduce: the whole collective in one phase, or active ranks first.
    Steps& whole = none ? e2 : e1;
    if (all || none) {
      const long long d0 = up_pass(whole, tv, L, UpSpec{yes, false, to_out});
      if (req.collective == C::allreduce)
        down_pass(whole, tv, L, d0, [&](int, std::uint32_t j) { return to_out(j); });
      continue;
    }
    if (req.collective == C::reduce) {
      up_pass(e1, tv, L, UpSpec{early, false, to_acc});
      up_pass(e2, tv, L, UpSpec{late, true, to_out});
      continue;
    }
    // allreduce. Phase 1: the active ranks' allreduce P, relayed; P lands in Out on active
    // ranks and in its Scratch copy on inactive ones.
    auto p_at = [&](int v, std::uint32_t j) {
      return active[static_cast<std::size_t>(v)] ? to_out(j) : L.partial(j);
    };
    const long long d1 =
        up_pass(e1, tv, L, UpSpec{early, false, [&](std::uint32_t j) { return p_at(root, j); }});
    down_pass(e1, tv, L, d1, p_at);
    // Phase 2: the inactive ranks' data L, reduced to one of them (tree k: the (k mod m)-th of
    // the m inactive ranks) on tree k rooted there (rooted_at), broadcast from it; every rank
    // computes P (+) L itself (same operands, same order: bitwise identical everywhere).
    const Tree rt = rooted_at(ts.trees[k], late_ranks[k % late_ranks.size()]);
    const TreeView tv2(rt);
    const long long d2 = up_pass(e2, tv2, L, UpSpec{late, false, to_acc});
    down_pass(e2, tv2, L, d2, [&](int, std::uint32_t j) { return L.acc(j); });
    for (int v = 0; v < n; ++v) {
      if (!e2.wants(v)) continue;
      const long long at = v == rt.root ? d2 : d2 + tv2.depth[static_cast<std::size_t>(v)] - 1;
      for (std::uint32_t j = 0; j < L.K; ++j)
        e2.add(v, at + j, reduce_op(to_out(j), p_at(v, j), L.acc(j)));
    }
  }
  // bcast with the root active: the inactive ranks hold the data in Scratch after phase 1.
  if (req.collective == C::bcast && active[static_cast<std::size_t>(req.root)] && !all)
    for (int r = 0; r < n; ++r)
      if (!active[static_cast<std::size_t>(r)])
        e2.add(r, 0, copy_op(out(0, L.nb), scratch(0, L.nb)));
  e1.finish(plan.phase1);
  e2.finish(plan.phase2);
  return plan;
}

Schedule tree_schedule(const TreeSet& ts, const ScheduleRequest& req) {
  auto plan =
      relay_schedules(ts, req, std::vector<bool>(static_cast<std::size_t>(req.nranks), true));
  plan.phase1.params = "trees=" + std::to_string(ts.trees.size()) +
                       ",chunks=" + std::to_string(ts.chunks_per_tree(req.bytes));
  return std::move(plan.phase1);
}

}  // namespace cclx::sched
