#include "cclx/relay/trees.hpp"

#include <algorithm>
#include <map>
#include <sstream>

#include "cclx/error.hpp"

namespace cclx::sched {

std::uint32_t TreeSet::chunks_per_tree(std::size_t bytes) const {
  const std::size_t m = trees.empty() ? 1 : trees.size();
  const std::size_t c = chunk_bytes ? chunk_bytes : 1;
  const std::size_t share = (bytes + m - 1) / m;
  return static_cast<std::uint32_t>(std::clamp<std::size_t>((share + c - 1) / c, 1, kMaxChunks));
}

std::uint32_t TreeSet::scratch_copies() const {
  std::size_t kids = 0;
  for (const auto& t : trees)
    for (const auto& c : t.children) kids = std::max(kids, c.size());
  return static_cast<std::uint32_t>(1 + kids);
}

std::string TreeSet::describe() const {
  std::ostringstream o;
  o << "M=" << trees.size() << ",chunk=" << chunk_bytes;
  for (std::size_t t = 0; t < trees.size(); ++t) {
    o << ";t" << t << ":";
    for (std::size_t v = 0; v < trees[t].children.size(); ++v) {
      if (trees[t].children[v].empty()) continue;
      o << ' ' << v << "->";
      for (std::size_t i = 0; i < trees[t].children[v].size(); ++i)
        o << (i ? "," : "") << trees[t].children[v][i];
    }
  }
  return o.str();
}

Tree tree_from_parents(std::vector<int> parent, const std::vector<int>& order) {
  Tree t;
  const int n = static_cast<int>(parent.size());
  t.children.resize(parent.size());
  std::vector<int> seq = order;
  if (seq.empty())
    for (int r = 0; r < n; ++r) seq.push_back(r);
  for (int r : seq) {
    if (r < 0 || r >= n) throw Error("tree: rank " + std::to_string(r) + " out of range");
    const int p = parent[static_cast<std::size_t>(r)];
    if (p < 0) {
      t.root = r;
      continue;
    }
    if (p >= n) throw Error("tree: parent " + std::to_string(p) + " out of range");
    t.children[static_cast<std::size_t>(p)].push_back(r);
  }
  t.parent = std::move(parent);
  return t;
}

void check_trees(const TreeSet& ts) {
  const int n = ts.nranks;
  if (n < 1) throw Error("trees: nranks must be >= 1");
  if (ts.trees.empty()) throw Error("trees: no tree");
  for (std::size_t k = 0; k < ts.trees.size(); ++k) {
    const Tree& t = ts.trees[k];
    const std::string where = "tree " + std::to_string(k) + ": ";
    if (t.parent.size() != static_cast<std::size_t>(n) ||
        t.children.size() != static_cast<std::size_t>(n))
      throw Error(where + "needs parent and children for " + std::to_string(n) + " ranks");
    if (t.root < 0 || t.root >= n || t.parent[static_cast<std::size_t>(t.root)] != -1)
      throw Error(where + "root " + std::to_string(t.root) + " is not a rank with parent -1");
    std::size_t edges = 0;
    for (int v = 0; v < n; ++v) {
      const int p = t.parent[static_cast<std::size_t>(v)];
      if (v != t.root && (p < 0 || p >= n || p == v))
        throw Error(where + "rank " + std::to_string(v) + " has invalid parent " +
                    std::to_string(p));
      for (int c : t.children[static_cast<std::size_t>(v)]) {
        if (c < 0 || c >= n || t.parent[static_cast<std::size_t>(c)] != v)
          throw Error(where + "child " + std::to_string(c) + " of rank " + std::to_string(v) +
                      " does not name it as parent");
        ++edges;
      }
    }
    if (edges != static_cast<std::size_t>(n - 1))
      throw Error(where + "children lists do not hold every non-root rank exactly once");
    // Every rank reaches the root (no cycles): walk down from the root.
    std::vector<int> stack{t.root};
    std::size_t seen = 0;
    while (!stack.empty()) {
      const int v = stack.back();
      stack.pop_back();
      ++seen;
      for (int c : t.children[static_cast<std::size_t>(v)]) stack.push_back(c);
      if (seen > static_cast<std::size_t>(n)) break;
    }
    if (seen != static_cast<std::size_t>(n))
      throw Error(where + "does not span all " + std::to_string(n) + " ranks (a cycle?)");
  }
}

TreeSet par_trees(const std::vector<int>& host_of_rank, const std::vector<int>& host_order,
                  int ntrees, int fanout, bool rotate, int root, std::size_t chunk_bytes) {
  const int n = static_cast<int>(host_of_rank.size());
  if (n < 1) throw Error("par_trees: no ranks");
  if (ntrees < 1) throw Error("par_trees: ntrees must be >= 1");
  if (fanout < 1) throw Error("par_trees: fanout must be >= 1");
  if (root >= n) throw Error("par_trees: root " + std::to_string(root) + " out of range");
  // Ranks per host label, in rank order; hosts in label order unless host_order says otherwise.
  std::map<int, std::vector<int>> by_label;
  for (int r = 0; r < n; ++r) {
    if (host_of_rank[static_cast<std::size_t>(r)] < 0)
      throw Error("par_trees: rank " + std::to_string(r) + " has no host");
    by_label[host_of_rank[static_cast<std::size_t>(r)]].push_back(r);
  }
  std::vector<int> hosts = host_order;
  if (hosts.empty())
    for (const auto& [h, ranks] : by_label) hosts.push_back(h);
  if (hosts.size() != by_label.size())
    throw Error("par_trees: host_order must list each of the " + std::to_string(by_label.size()) +
                " hosts once");
  for (int h : hosts)
    if (!by_label.count(h))
      throw Error("par_trees: host_order names unknown host " + std::to_string(h));
  const int H = static_cast<int>(hosts.size());

  TreeSet ts;
  ts.nranks = n;
  ts.chunk_bytes = chunk_bytes;
  for (int t = 0; t < ntrees; ++t) {
    std::vector<int> order(static_cast<std::size_t>(H));
    for (int i = 0; i < H; ++i)
      order[static_cast<std::size_t>(i)] =
          hosts[static_cast<std::size_t>((i + (rotate ? t : 0)) % H)];
    int root_host = -1;
    if (root >= 0) {
      root_host = host_of_rank[static_cast<std::size_t>(root)];
      const auto it = std::find(order.begin(), order.end(), root_host);
      std::iter_swap(order.begin(), it);
    }
    // Leaders (tree t: the host's (t mod k)-th rank; the root on the root's host) and chains.
    std::vector<int> parent(static_cast<std::size_t>(n), -1);
    std::vector<int> leader(static_cast<std::size_t>(H));
    std::vector<int> chain_child(static_cast<std::size_t>(n), -1);
    for (int i = 0; i < H; ++i) {
      const auto& ranks = by_label[order[static_cast<std::size_t>(i)]];
      const int k = static_cast<int>(ranks.size());
      int lead = ranks[static_cast<std::size_t>(t % k)];
      if (order[static_cast<std::size_t>(i)] == root_host) lead = root;
      leader[static_cast<std::size_t>(i)] = lead;
      int prev = lead;
      for (int r : ranks) {
        if (r == lead) continue;
        parent[static_cast<std::size_t>(r)] = prev;
        chain_child[static_cast<std::size_t>(prev)] = r;
        prev = r;
      }
    }
    // Host-level heap: position i's children are fanout*i + 1 .. fanout*i + fanout.
    std::vector<int> serve;  // every rank once, in the order parents serve their children
    for (int i = 1; i < H; ++i)
      parent[static_cast<std::size_t>(leader[static_cast<std::size_t>(i)])] =
          leader[static_cast<std::size_t>((i - 1) / fanout)];
    for (int i = 1; i < H; ++i) serve.push_back(leader[static_cast<std::size_t>(i)]);
    for (int r = 0; r < n; ++r)
      if (chain_child[static_cast<std::size_t>(r)] >= 0)
        serve.push_back(chain_child[static_cast<std::size_t>(r)]);
    serve.push_back(leader[0]);
    ts.trees.push_back(tree_from_parents(std::move(parent), serve));
  }
  check_trees(ts);
  return ts;
}

}  // namespace cclx::sched
