// Owner relay plans (relay.hpp; design in docs/algorithms/adaptive.md, "Owner plans").
//
// Partition. The k active ranks own one chunk each: chunk q is blocks [q * g, (q + 1) * g) of
// nb = k * g blocks, g such that there are about bytes / segment_bytes blocks (at most
// kMaxSubsetChunks, rounded up to a multiple of k).
// Phase 1. The ring's reduce-scatter over the active ranks, one chunk per message
// (algo/ring_phases.hpp): the active rank at position q ends with P, the active ranks' reduction,
// of chunk q in Out, after k - 1 steps.
// Phase 2. g rounds, one block of every chunk each; a round is H = ceil(m / G) steps, the m late
// ranks landing G = min(m, kOwnerLandings) at a time (Scratch copies 0 .. G-1; phase 1 is over on
// that rank by then). At step c * H + h the late ranks of group h send block c of every chunk to
// its owner, which adds them to Out in late-rank order; at step (c + 1) * H each owner sends its
// finished block c to every other rank. A late rank's data leaves it once, block c's result
// leaves the owners while block c + 1 arrives, and every result block is computed on one rank,
// so float results are bitwise identical everywhere.
// In place: a late rank of group h reads its block c (Out) at step c * H + h and receives the
// result into it at step (c + 1) * H > c * H + h.
#include <algorithm>
#include <string>

#include "../algo/ring_phases.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "steps.hpp"

namespace cclx::sched {

RelayPlan owner_relay_schedules(const ScheduleRequest& req, const std::vector<bool>& active,
                                std::size_t segment_bytes) {
  detail::check_allreduce_plan("owner relay plans", req, active);
  const int n = req.nranks;
  std::vector<int> act, late;
  for (int r = 0; r < n; ++r) (active[static_cast<std::size_t>(r)] ? act : late).push_back(r);
  const auto k = static_cast<int>(act.size());
  const auto m = static_cast<long long>(late.size());
  if (k == 0) throw Error("owner relay plans need an active rank (every rank is late)");

  const std::uint32_t g =
      detail::blocks_per_unit(req.bytes, segment_bytes, static_cast<std::uint32_t>(k));
  const std::uint32_t nb = static_cast<std::uint32_t>(k) * g;
  const auto G = static_cast<std::uint32_t>(std::min<long long>(m, kOwnerLandings));
  const long long H = G == 0 ? 0 : (m + G - 1) / G;

  auto plan_schedule = [&](int phase) {
    Schedule s = detail::plan_phase(req, phase, k, "plan=owners", nb);
    s.scratch_copies = std::max<std::uint32_t>(1, G);
    s.programs.resize(static_cast<std::size_t>(n));
    return s;
  };
  RelayPlan plan{plan_schedule(1), plan_schedule(2)};
  plan.phase1.one_sender_per_receiver = true;  // a ring; nothing on the late ranks

  // Phase 1: the ring reduce-scatter over positions 0..k-1 in k blocks, widened to g blocks each
  // and mapped onto the active ranks; one owner alone holds P = its own data.
  auto widen = [&](Region r) {
    return r.count == 0 ? r : Region{r.buf, r.first * g, r.count * g};  // scratch: copy 0
  };
  for (int q = 0; q < k; ++q) {
    const int r = act[static_cast<std::size_t>(q)];
    if (req.only_rank >= 0 && r != req.only_rank) continue;
    Program& to = plan.phase1.programs[static_cast<std::size_t>(r)];
    if (k == 1) {
      if (!req.in_place) ProgramBuilder(to).copy(out(0, nb), in(0, nb)).end_step();
      continue;
    }
    Program ring;
    ProgramBuilder b(ring);
    detail::ring_reduce_scatter(b, k, q, -1, Buf::out, Buf::out,
                                [&](int p) { return act[static_cast<std::size_t>(p)]; });
    to.step_begin = ring.step_begin;
    for (Op op : ring.ops) {
      op.dst = widen(op.dst), op.src = widen(op.src), op.src2 = widen(op.src2);
      to.ops.push_back(op);
    }
  }

  // Phase 2.
  detail::Steps e(n, req.only_rank);
  for (std::uint32_t c = 0; c < g; ++c) {
    // Late rank j's block c of every chunk to its owner, landing in Scratch copy j mod G and
    // added in late-rank order (an owner's reductions of one step run in program order).
    for (long long j = 0; j < m; ++j) {
      const int l = late[static_cast<std::size_t>(j)];
      const long long step = static_cast<long long>(c) * H + j / G;
      const auto copy = static_cast<std::uint32_t>(j % G);
      for (int q = 0; q < k; ++q) {
        const std::uint32_t blk = static_cast<std::uint32_t>(q) * g + c;
        const Region slot = scratch(copy * nb + blk);
        const int o = act[static_cast<std::size_t>(q)];
        e.add(l, step, detail::send_op(o, req.in_place ? out(blk) : in(blk)));
        e.add(o, step, detail::recv_op(l, slot));
        e.add(o, step, detail::reduce_op(out(blk), out(blk), slot));
      }
    }
    // The finished block c of every chunk to every other rank.
    const long long fan = (static_cast<long long>(c) + 1) * H;
    for (int q = 0; q < k; ++q) {
      const std::uint32_t blk = static_cast<std::uint32_t>(q) * g + c;
      const int o = act[static_cast<std::size_t>(q)];
      for (int r = 0; r < n; ++r) {
        if (r == o) continue;
        e.add(o, fan, detail::send_op(r, out(blk)));
        e.add(r, fan, detail::recv_op(o, out(blk)));
      }
    }
  }
  e.finish(plan.phase2);
  return plan;
}

}  // namespace cclx::sched
