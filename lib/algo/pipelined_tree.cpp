// Pipelined (segmented) trees. The message of s bytes is cut into S = clamp(ceil(s /
// segment_bytes), 1, 1024) blocks that flow through a tree one step apart. The tree has `fanout` f
// children per node (f = 1: a chain) and is laid out in pre-order, so every subtree is a contiguous
// interval of positions with its root first; D is its depth.
//   bcast (positions relative to the root): a node at depth d receives segment j at step d - 1 + j
//     and forwards it to all its children in the next step (one send per child in the same step).
//     D + S - 1 steps; an inner node sends f*s bytes. Cost (D + S - 1)(α + f sβ/S).
//   reduce (positions = ranks, tree rooted at rank 0, plus one hop 0 -> root when root != 0):
//     f = 1: a chain n-1 -> ... -> 0; rank v adds its own segment to the partial sum of [v+1, n)
//     and passes it on. n + S - 2 steps (+1 for root != 0); every rank sends s bytes.
//     f >= 2: the up half of allreduce below: children deliver segment j in consecutive steps and
//     the node combines own (+) child 0 (+) child 1 ... in rank order (pre-order intervals). With
//     H = the pipeline's depth in steps (<= f*D), H + S - 1 steps (+1 for root != 0); every rank
//     but rank 0 sends s bytes once (rank 0 too when root != 0), an inner node receives its
//     children's k*s. Cost (H + S - 1)(α + sβ/S + sγ/S). Order-preserving.
//     Ranks without Out keep partial sums in scratch copy 0; child 0's segment lands there and is
//     consumed in place, the other children's land in copy 1 (blocks S + j): scratch_copies = 2
//     when a non-root rank has two or more children. The root (when not rank 0) keeps its partial
//     sums in Out, which receives the finished segments from rank 0 after they went up.
//   allreduce (positions = ranks, tree rooted at 0): a pipelined reduce up the tree, overlapped
//     with the pipelined bcast down the same tree. Children of a node deliver segment j in
//     consecutive steps (the i-th child one step after the (i-1)-th) so one landing block per
//     segment suffices; the node sums them into Out in rank order. With H = the reduce pipeline's
//     depth in steps (<= f*D), H + S + D - 1 steps; an inner node sends (f+1)s bytes.
//     Order-preserving.
#include <algorithm>
#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

namespace {

// Pre-order tree over positions [0, n) rooted at 0.
struct Tree {
  std::vector<int> parent, depth;
  std::vector<std::vector<int>> children;
  int max_depth = 0;

  Tree(int n, int fanout)
      : parent(static_cast<std::size_t>(n), -1),
        depth(static_cast<std::size_t>(n), 0),
        children(static_cast<std::size_t>(n)) {
    build(0, n, 0, fanout);
  }

 private:
  void build(int v, int size, int d, int fanout) {
    depth[static_cast<std::size_t>(v)] = d;
    max_depth = std::max(max_depth, d);
    const int rest = size - 1;
    if (rest == 0) return;
    // Split [v+1, v+size) into k contiguous groups, the first `extra` one larger.
    const int k = std::min(fanout, rest);
    const int q = rest / k, extra = rest % k;
    int c = v + 1;
    for (int i = 0; i < k; ++i) {
      const int sz = q + (i < extra ? 1 : 0);
      parent[static_cast<std::size_t>(c)] = v;
      children[static_cast<std::size_t>(v)].push_back(c);
      build(c, sz, d + 1, fanout);
      c += sz;
    }
  }
};

bool in_range(long long j, std::uint32_t S) {
  return j >= 0 && j < static_cast<long long>(S);
}

void bcast_rank(ProgramBuilder& b, const Tree& tree, int n, int root, int r, std::uint32_t S) {
  const int v = (r - root + n) % n;
  auto rank = [&](int pos) { return (pos + root) % n; };
  const int d = tree.depth[static_cast<std::size_t>(v)];
  const auto& kids = tree.children[static_cast<std::size_t>(v)];
  const long long T = n == 1 ? 0 : tree.max_depth + static_cast<long long>(S) - 1;
  for (long long t = 0; t < T; ++t) {
    if (const long long j = t - d; !kids.empty() && in_range(j, S))
      for (int c : kids) b.send(rank(c), out(static_cast<std::uint32_t>(j)));
    if (const long long j = t - d + 1; v != 0 && in_range(j, S))
      b.recv(rank(tree.parent[static_cast<std::size_t>(v)]), out(static_cast<std::uint32_t>(j)));
    b.end_step();
  }
}

// Chain n-1 -> ... -> 0 on real ranks; rank v sends segment j at step n-1-v + j. Partial sums
// live in Scratch (non-root ranks have no Out), except on rank 0 when it is the root. For another
// root, rank 0 forwards each finished segment to it one step later.
void reduce_rank(ProgramBuilder& b, int n, int root, int r, bool in_place, std::uint32_t S) {
  if (n == 1) {
    if (!in_place) b.copy(out(0, S), in(0, S)).end_step();
    return;
  }
  const long long T = n + static_cast<long long>(S) - 2 + (root != 0 ? 1 : 0);
  const bool has_child = r < n - 1;
  for (long long t = 0; t < T; ++t) {
    if (const long long j = t - (n - 2 - r); has_child && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      b.recv(r + 1, scratch(seg));
      // The own segment is the left operand: the message holds ranks [r+1, n).
      b.reduce(r == 0 && root == 0 ? out(seg) : scratch(seg), in(seg), scratch(seg));
    }
    if (const long long j = t - (n - 1 - r); r > 0 && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      b.send(r - 1, has_child ? scratch(seg) : in(seg));
    }
    if (const long long j = t - (n - 1); root != 0 && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      if (r == 0) b.send(root, scratch(seg));
      if (r == root) b.recv(0, out(seg));
    }
    b.end_step();
  }
}

// Reduce with fanout >= 2 on the tree rooted at rank 0 (timing `up` as in allreduce_rank), then
// rank 0 forwards each finished segment to `root` when that is another rank. A rank with Out (the
// root) keeps its partial sums there and lands messages in scratch copy 0; the others keep them in
// scratch copy 0 and land child 0's message there too (consumed in place), the other children's in
// copy 1.
void reduce_tree_rank(ProgramBuilder& b, const Tree& tree, const std::vector<long long>& up, int n,
                      int root, int r, bool in_place, std::uint32_t S) {
  if (n == 1) {
    if (!in_place) b.copy(out(0, S), in(0, S)).end_step();
    return;
  }
  const auto v = static_cast<std::size_t>(r);
  const auto& kids = tree.children[v];
  const bool has_out = r == root;
  const long long B = up[0];
  const long long T = B + static_cast<long long>(S) - 1 + (root != 0 ? 1 : 0);
  for (long long t = 0; t < T; ++t) {
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const long long j = t - up[static_cast<std::size_t>(kids[i])];
      if (!in_range(j, S)) continue;
      const auto seg = static_cast<std::uint32_t>(j);
      const Region home = has_out ? out(seg) : scratch(seg);
      const Region land = has_out || i == 0 ? scratch(seg) : scratch(S + seg);
      b.recv(kids[i], land);
      b.reduce(home, i == 0 ? in(seg) : home, land);
    }
    if (const long long j = t - up[v]; r != 0 && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      b.send(tree.parent[v], kids.empty() ? in(seg) : has_out ? out(seg) : scratch(seg));
    }
    // Segment j is complete on rank 0 at step B + j - 1 and moves to the root at step B + j; the
    // root sent its own partial sum of segment j up at step up[root] + j < B + j.
    if (const long long j = t - B; root != 0 && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      if (r == 0) b.send(root, kids.empty() ? in(seg) : scratch(seg));
      if (r == root) b.recv(0, out(seg));
    }
    b.end_step();
  }
}

// Allreduce on the tree rooted at rank 0. up[v]: the step at which v sends segment 0 to its parent
// (for the root: the step at which it starts the bcast). Child i (0-based) of k sends segment j
// k - i steps before its parent does, so siblings deliver segment j in consecutive steps.
void allreduce_rank(ProgramBuilder& b, const Tree& tree, const std::vector<long long>& up, int n,
                    int r, bool in_place, std::uint32_t S) {
  if (n == 1) {
    if (!in_place) b.copy(out(0, S), in(0, S)).end_step();
    return;
  }
  const auto v = static_cast<std::size_t>(r);
  const auto& kids = tree.children[v];
  const int d = tree.depth[v];
  const long long B = up[0];
  const long long T = B + static_cast<long long>(S) + tree.max_depth - 1;
  for (long long t = 0; t < T; ++t) {
    // Up: child i's segment lands in Scratch and is added to the Out partial (own first, then the
    // children's intervals left to right).
    for (std::size_t i = 0; i < kids.size(); ++i) {
      const long long j = t - up[static_cast<std::size_t>(kids[i])];
      if (!in_range(j, S)) continue;
      const auto seg = static_cast<std::uint32_t>(j);
      b.recv(kids[i], scratch(seg));
      b.reduce(out(seg), i == 0 ? in(seg) : out(seg), scratch(seg));
    }
    if (const long long j = t - up[v]; r != 0 && in_range(j, S)) {
      const auto seg = static_cast<std::uint32_t>(j);
      b.send(tree.parent[v], kids.empty() ? in(seg) : out(seg));
    }
    // Down: segment j leaves the root at step B + j. It is older than every segment still on its
    // way up through this rank, so the two pipelines never touch the same block in one step.
    if (const long long j = t - B - d; !kids.empty() && in_range(j, S))
      for (int c : kids) b.send(c, out(static_cast<std::uint32_t>(j)));
    if (const long long j = t - B - d + 1; r != 0 && in_range(j, S))
      b.recv(tree.parent[v], out(static_cast<std::uint32_t>(j)));
    b.end_step();
  }
}

}  // namespace

Schedule pipelined_tree(const ScheduleRequest& req, std::size_t segment_bytes, int fanout) {
  using C = Collective;
  if (fanout < 1)
    throw Error("pipelined_tree: fanout must be >= 1 (1 = chain), got " + std::to_string(fanout));
  if (segment_bytes == 0) throw Error("pipelined_tree: segment_bytes must be > 0");
  const int n = req.nranks;
  const std::size_t want = req.bytes / segment_bytes + (req.bytes % segment_bytes != 0);
  const auto S = static_cast<std::uint32_t>(std::clamp<std::size_t>(want, 1, 1024));

  Schedule s = begin_schedule<algo::PipelinedTree>(req, S);
  s.params = "segments=" + std::to_string(S) + ",fanout=" + std::to_string(fanout);
  if (req.collective == C::allreduce) s.root = 0;

  const Tree tree(n, fanout);
  const bool reduce_tree = req.collective == C::reduce && fanout > 1;
  std::vector<long long> up(static_cast<std::size_t>(n), 0);
  if (req.collective == C::allreduce || reduce_tree) {
    // Pre-order: parents come before their children.
    long long lowest = 0;
    for (int v = 0; v < n; ++v) {
      const auto& kids = tree.children[static_cast<std::size_t>(v)];
      const auto k = static_cast<long long>(kids.size());
      for (long long i = 0; i < k; ++i) {
        const long long u = up[static_cast<std::size_t>(v)] - (k - i);
        up[static_cast<std::size_t>(kids[static_cast<std::size_t>(i)])] = u;
        lowest = std::min(lowest, u);
      }
    }
    for (auto& u : up) u -= lowest;
  }
  if (reduce_tree)
    for (int v = 0; v < n; ++v)
      if (v != s.root && tree.children[static_cast<std::size_t>(v)].size() >= 2)
        s.scratch_copies = 2;

  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    switch (req.collective) {
      case C::bcast:
        bcast_rank(b, tree, n, req.root, r, S);
        break;
      case C::reduce:
        if (reduce_tree)
          reduce_tree_rank(b, tree, up, n, req.root, r, req.in_place, S);
        else
          reduce_rank(b, n, req.root, r, req.in_place, S);
        break;
      case C::allreduce:
        allreduce_rank(b, tree, up, n, r, req.in_place, S);
        break;
      default:
        break;
    }
  }
  return s;
}

}  // namespace cclx::sched
