// Canonical halving: the canonical tree over the ranks (schedule/canonical_order.hpp) drives a
// recursive-halving reduce-scatter. For every block b each node [lo, hi) of the tree has a holder,
// the rank that combines the node's two children's values of b, chosen top down:
//   the root holds b at key(b), the rank that ends with the block;
//   the child that contains its parent's holder has the same holder (it keeps its value), the
//   other child holds b at lo + key(b) mod (hi - lo) and sends its value up when the parent
//   combines;
//   a leaf (one rank) holds its own input.
// So every combination receives exactly one message. A node of height h = ceil(log2(hi - lo))
// combines in step h - 1, after its children, so the reduce-scatter takes ceil(log2 n) steps, and
// every combination joins two neighbouring rank intervals, the lower one as the left operand: the
// canonical tree in rank order, per element.
//
// At a power of two the holders are those of recursive halving with the distance doubling (1, 2,
// 4, ...) instead of halving: each step a rank sends half of what it holds to one partner, (n-1)/n
// of the data in log2 n steps. key is the bit reversal of b there for allreduce and reduce, which
// makes the blocks a rank sends in a step contiguous (one message); reduce_scatter needs block r
// on rank r, so key(b) = b (then a step sends every other block: one message per run of
// consecutive blocks). Other sizes use key(b) = b.
//
//   allreduce:       the reduce-scatter, then at a power of two the allgather along the same tree
//                    backwards (each holder sends the finished block to the other child's
//                    holder: 2 log2 n steps, 2(n-1)/n of the data per rank), elsewhere a ring
//                    allgather (rank r has block r; the tree backwards would load its small
//                    subtrees). Scratch: one copy.
//   reduce:          the reduce-scatter, then every rank sends its finished blocks to the root in
//                    one step. Scratch: two copies (non-root ranks keep partial results there).
//   reduce_scatter:  the reduce-scatter; in place, the last step finishes into scratch and one more
//   (and v)          step copies the block out (Out aliases In's first block). Scratch: two copies.
#include "cclx/algo/canonical_halving.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/schedule/canonical_order.hpp"
#include "ring_phases.hpp"

namespace cclx::sched {

namespace {

struct TreeNode {
  int lo = 0, hi = 0;
  int left = -1, right = -1;  // child node indices; -1 for a leaf
  int height = 0;             // ceil(log2(hi - lo)): the node combines in step height - 1
};

// ceil(log2 n) for n >= 1.
int tree_height(int n) {
  return static_cast<int>(std::bit_width(static_cast<unsigned>(n - 1)));
}

// The canonical tree over [lo, hi), children before parents (the root is the last node).
int build_tree(int lo, int hi, std::vector<TreeNode>& nodes) {
  TreeNode node{lo, hi, -1, -1, tree_height(hi - lo)};
  if (hi - lo > 1) {
    const int mid = canonical_split(lo, hi);
    node.left = build_tree(lo, mid, nodes);
    node.right = build_tree(mid, hi, nodes);
  }
  nodes.push_back(node);
  return static_cast<int>(nodes.size()) - 1;
}

std::uint32_t bit_reverse(std::uint32_t b, int bits) {
  std::uint32_t r = 0;
  for (int i = 0; i < bits; ++i) r |= ((b >> i) & 1U) << (bits - 1 - i);
  return r;
}

// What one rank receives of one block in one step. In the reduce-scatter (`combine`): two
// operands, its own value (from -1, found at `land`) and a peer's (read there at `src`, landing at
// `land`), combined into `dst` in rank order; afterwards a finished block (operand 0 only).
struct Arrival {
  int to = 0;
  std::uint32_t block = 0;
  std::array<int, 2> from{-1, -1};
  std::array<Region, 2> src{}, land{};
  bool combine = false;
  Region dst{};
};

// Consecutive arrivals at one rank that go as one message per sender and one combination: the
// next block, the same senders, every region one block further.
bool continues(const Arrival& a, const Arrival& b) {
  const auto next = [](const Region& x, const Region& y) {
    return y.buf == x.buf && y.first == x.first + x.count;
  };
  if (b.block != a.block + 1 || b.from != a.from || b.combine != a.combine) return false;
  for (std::size_t k = 0; k < 2; ++k) {
    if (a.from[k] >= 0 && !next(a.src[k], b.src[k])) return false;
    if ((a.from[k] >= 0 || a.combine) && !next(a.land[k], b.land[k])) return false;
  }
  return !a.combine || next(a.dst, b.dst);
}

Region widen(Region g, std::uint32_t count) {
  g.count = count;
  return g;
}

// One step: its arrivals, cut into runs (a run: one message per sender, one combination).
struct Step {
  std::vector<Arrival> arrivals;
  struct Run {
    const Arrival* first;
    std::uint32_t count;
  };
  std::vector<Run> runs;  // per receiver, ascending blocks; filled by cut()

  void cut(int n) {
    std::vector<std::vector<const Arrival*>> at(static_cast<std::size_t>(n));
    for (const Arrival& a : arrivals) at[static_cast<std::size_t>(a.to)].push_back(&a);
    for (const auto& list : at)
      for (std::size_t i = 0; i < list.size();) {
        std::size_t j = i + 1;
        while (j < list.size() && continues(*list[j - 1], *list[j])) ++j;
        runs.push_back({list[i], static_cast<std::uint32_t>(j - i)});
        i = j;
      }
  }
};

// Rank r's ops of a step: its sends (ordered by receiver, then block, which is the order in which
// each receiver posts its receives from r), its receives, then its combinations.
void emit_step(ProgramBuilder& b, const Step& st, int r) {
  struct Send {
    int to;
    std::uint32_t block;
    Region src;
  };
  std::vector<Send> sends;
  for (const auto& run : st.runs)
    for (std::size_t k = 0; k < 2; ++k)
      if (run.first->from[k] == r)
        sends.push_back({run.first->to, run.first->block, widen(run.first->src[k], run.count)});
  std::sort(sends.begin(), sends.end(), [](const Send& x, const Send& y) {
    return x.to != y.to ? x.to < y.to : x.block < y.block;
  });
  for (const Send& x : sends) b.send(x.to, x.src);
  for (const auto& run : st.runs)
    if (run.first->to == r)
      for (std::size_t k = 0; k < 2; ++k)
        if (run.first->from[k] >= 0)
          b.recv(run.first->from[k], widen(run.first->land[k], run.count));
  for (const auto& run : st.runs)
    if (run.first->to == r && run.first->combine)
      b.reduce(widen(run.first->dst, run.count), widen(run.first->land[0], run.count),
               widen(run.first->land[1], run.count));
  b.end_step();
}

}  // namespace

Schedule canonical_halving(const ScheduleRequest& req) {
  using C = Collective;
  const int n = req.nranks;
  const C shape = coll::shape_of(req.collective);
  Schedule s = begin_schedule<algo::CanonicalHalving>(req, static_cast<std::uint32_t>(n));
  if (shape != C::reduce) s.root = 0;
  const auto nb = static_cast<std::uint32_t>(n);
  const auto wanted = [&](int r) { return req.wants(r); };

  if (n == 1) {
    if (wanted(0)) {
      ProgramBuilder b(s.programs[0]);
      if (!req.in_place) b.copy(out(0), in(0));
      b.end_step();
    }
    return s;
  }

  std::vector<TreeNode> nodes;
  const int root = build_tree(0, n, nodes);
  const int levels = nodes[static_cast<std::size_t>(root)].height;
  const bool pow2 = std::has_single_bit(static_cast<unsigned>(n));
  const auto key = [&](std::uint32_t blk) {
    return pow2 && shape != C::reduce_scatter ? bit_reverse(blk, levels) : blk;
  };

  // holder[node][b]: the rank that holds node's value of block b, top down (parents come after
  // their children in `nodes`): the root's is key(b); the child that contains its parent's holder
  // has the same one, the other lo + key(b) mod its size.
  std::vector<std::vector<int>> holder(nodes.size(), std::vector<int>(nb));
  for (std::uint32_t blk = 0; blk < nb; ++blk)
    holder[static_cast<std::size_t>(root)][blk] = static_cast<int>(key(blk));
  for (std::size_t i = nodes.size(); i-- > 0;) {
    const TreeNode& t = nodes[i];
    if (t.left < 0) continue;
    for (std::uint32_t blk = 0; blk < nb; ++blk) {
      const int h = holder[i][blk];
      for (const int child : {t.left, t.right}) {
        const TreeNode& c = nodes[static_cast<std::size_t>(child)];
        holder[static_cast<std::size_t>(child)][blk] =
            h >= c.lo && h < c.hi
                ? h
                : c.lo + static_cast<int>(key(blk) % static_cast<std::uint32_t>(c.hi - c.lo));
      }
    }
  }

  // Where a rank keeps its partial results, and where a second arriving value lands: Out when the
  // rank has the whole of it (allreduce, the root of reduce), else scratch copy 0 and copy 1.
  const auto full_out = [&](int r) {
    return shape == C::allreduce || (shape == C::reduce && r == s.root);
  };
  const auto store = [&](int r, std::uint32_t blk) {
    return full_out(r) ? out(blk) : scratch(blk);
  };
  const auto spare = [&](int r, std::uint32_t blk) {
    return full_out(r) ? scratch(blk) : scratch(blk + nb);
  };

  // The reduce-scatter, simulated over every rank's values: loc[r][b] is where rank r has its
  // current value of block b (its input until it combines or hands it over).
  std::vector<std::vector<Region>> loc(static_cast<std::size_t>(n), std::vector<Region>(nb));
  for (int r = 0; r < n; ++r)
    for (std::uint32_t blk = 0; blk < nb; ++blk) loc[static_cast<std::size_t>(r)][blk] = in(blk);
  // In place, Out is In: a raw input in Out must not be landed on.
  const auto aliases = [&](const Region& value, const Region& place) {
    return value == place || (req.in_place && value.buf == Buf::in && place.buf == Buf::out &&
                              value.first == place.first);
  };

  std::vector<Step> steps(static_cast<std::size_t>(levels));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    const TreeNode& t = nodes[i];
    if (t.left < 0) continue;
    Step& st = steps[static_cast<std::size_t>(t.height - 1)];
    const bool final_node = static_cast<int>(i) == root;
    for (std::uint32_t blk = 0; blk < nb; ++blk) {
      const int h = holder[i][blk];
      const std::array<int, 2> child{holder[static_cast<std::size_t>(t.left)][blk],
                                     holder[static_cast<std::size_t>(t.right)][blk]};
      Region& mine = loc[static_cast<std::size_t>(h)][blk];
      Arrival a;
      a.to = h;
      a.block = blk;
      a.combine = true;
      // reduce_scatter's result goes straight to Out, except in place (Out is In's first block,
      // which this step may still send): then to scratch, copied out after the last step.
      a.dst = final_node && shape == C::reduce_scatter && !req.in_place ? out(blk) : store(h, blk);
      // The holder holds one child's value (top down, it is that child's holder too) and
      // receives the other's.
      const std::size_t own = h == child[0] ? 0 : 1, other = 1 - own;
      a.land[own] = mine;
      a.from[other] = child[other];
      a.src[other] = loc[static_cast<std::size_t>(child[other])][blk];
      a.land[other] = aliases(mine, store(h, blk)) ? spare(h, blk) : store(h, blk);
      for (const Region& g : a.land)
        if (g.buf == Buf::scratch && g.first >= nb) s.scratch_copies = 2;
      mine = a.dst;
      st.arrivals.push_back(a);
    }
  }

  // Appends the steps to the wanted ranks' programs.
  const auto emit = [&](std::vector<Step>& phase) {
    for (Step& st : phase) st.cut(n);
    for (int r = 0; r < n; ++r) {
      if (!wanted(r)) continue;
      ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
      for (const Step& st : phase) emit_step(b, st, r);
    }
  };
  emit(steps);

  // A finished block handed from rank `from` (where it is at `src`) to `to` (landing at `land`).
  const auto handover = [](int from, int to, std::uint32_t blk, Region src, Region land) {
    Arrival a;
    a.to = to;
    a.block = blk;
    a.from[0] = from;
    a.src[0] = src;
    a.land[0] = land;
    return a;
  };
  switch (shape) {
    case C::allreduce: {
      if (!pow2) {
        // Rank r has finished block r (key(b) = b): a ring allgather, whose n - 1 steps move
        // (n-1)/n of the data per rank, where the tree backwards would load its small subtrees.
        for (int r = 0; r < n; ++r) {
          if (!wanted(r)) continue;
          ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
          detail::ring_allgather(b, n, r, r, out(static_cast<std::uint32_t>(r)), false);
        }
        break;
      }
      // Back down the tree: each holder sends the finished block to its children's holders.
      std::vector<Step> down(static_cast<std::size_t>(levels));
      for (std::size_t i = 0; i < nodes.size(); ++i) {
        const TreeNode& t = nodes[i];
        if (t.left < 0) continue;
        Step& st = down[static_cast<std::size_t>(levels - t.height)];
        for (std::uint32_t blk = 0; blk < nb; ++blk) {
          const int h = holder[i][blk];
          for (const int child : {t.left, t.right}) {
            const int to = holder[static_cast<std::size_t>(child)][blk];
            if (to != h) st.arrivals.push_back(handover(h, to, blk, out(blk), out(blk)));
          }
        }
      }
      emit(down);
      break;
    }
    case C::reduce: {
      // Every finished block goes to the root, in one step.
      std::vector<Step> gather(1);
      const auto& top = holder[static_cast<std::size_t>(root)];
      for (std::uint32_t blk = 0; blk < nb; ++blk)
        if (top[blk] != s.root)
          gather[0].arrivals.push_back(handover(
              top[blk], s.root, blk, loc[static_cast<std::size_t>(top[blk])][blk], out(blk)));
      emit(gather);
      break;
    }
    default:  // reduce_scatter
      if (req.in_place)
        for (int r = 0; r < n; ++r)
          if (wanted(r))
            ProgramBuilder(s.programs[static_cast<std::size_t>(r)])
                .copy(out(static_cast<std::uint32_t>(r)), scratch(static_cast<std::uint32_t>(r)))
                .end_step();
      break;
  }
  return s;
}

}  // namespace cclx::sched
