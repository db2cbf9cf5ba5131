// Subset relay plans (relay.hpp; design in docs/algorithms/adaptive.md, "Subset plans").
//
// Partition. The generator's schedule for the m active ranks has B blocks; the plan has B * g
// blocks, generator block b being the plan's blocks [b * g, (b + 1) * g) (Scratch copy c of it:
// c * B * g + b * g), so phase 1 sends the same bytes in the same messages as the generator's
// own schedule would, and phase 2 gets B * g chunks to pipeline (one block each).
// Phase 2 timing. The chain is c[0..N) = the late ranks (ascending), then the active ones. Chunk j
// leaves position p at step p + j and lands at p + 1 in the same step, where it is combined at
// once: a late rank adds its own data (L grows along the late ranks), an active rank computes
// Out = P (+) L into Out and forwards L. The last position (Am) holds the result of chunk j after
// step N - 2 + j; it goes back Am -> Lk -> ... -> L1, one position per step. With no active rank
// Lk's accumulation is the result and it goes back Lk-1 -> ... -> L1 the same way.
// In place: a late rank reads its own data (Out) at step <= p + j and receives the result at a
// step >= N - 1 + j > p + j.
#include <algorithm>
#include <string>

#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "steps.hpp"

namespace cclx::sched {

using detail::copy_op;
using detail::recv_op;
using detail::reduce_op;
using detail::send_op;
using detail::Steps;

RelayPlan subset_relay_schedules(std::string_view algorithm, const ScheduleRequest& req,
                                 const std::vector<bool>& active, std::size_t segment_bytes) {
  detail::check_allreduce_plan("subset relay plans", req, active);
  const int n = req.nranks;
  std::vector<int> chain, sub_of(static_cast<std::size_t>(n), -1);  // late ranks, then active
  std::vector<int> act;
  for (int r = 0; r < n; ++r)
    if (!active[static_cast<std::size_t>(r)]) chain.push_back(r);
  const auto k = static_cast<long long>(chain.size());
  for (int r = 0; r < n; ++r)
    if (active[static_cast<std::size_t>(r)]) {
      sub_of[static_cast<std::size_t>(r)] = static_cast<int>(act.size());
      act.push_back(r);
      chain.push_back(r);
    }
  const auto m = static_cast<int>(act.size());

  // Phase 1: the generator's schedule over the active ranks (any shape when none is active: it
  // only sets the partition then).
  ScheduleRequest sub = req;
  sub.nranks = std::max(m, 1);
  sub.root = 0;
  sub.only_rank = req.only_rank < 0 ? -1
                  : active[static_cast<std::size_t>(req.only_rank)]
                      ? sub_of[static_cast<std::size_t>(req.only_rank)]
                      : 0;
  const Schedule s1 = cclx::algo::generate_by_name(algorithm, sub);
  const std::uint32_t B = s1.nblocks;
  const std::uint32_t g = detail::blocks_per_unit(req.bytes, segment_bytes, B);
  const std::uint32_t nb = B * g;

  auto plan_schedule = [&](int phase) {
    Schedule s = detail::plan_phase(req, phase, m, "subset=" + std::string(algorithm), nb);
    // Phase 2: a landing copy on every rank, an accumulator on late ranks past the first.
    s.scratch_copies = std::max<std::uint32_t>(s1.scratch_copies, k >= 2 ? 2 : 1);
    s.programs.resize(static_cast<std::size_t>(n));
    return s;
  };
  RelayPlan plan{plan_schedule(1), plan_schedule(2)};
  // Phase 1 is its own execution: the generator's claim holds for it (ring: no handshake).
  plan.phase1.one_sender_per_receiver = m > 0 && s1.one_sender_per_receiver;

  auto widen = [&](Region g0) {
    if (g0.count == 0) return g0;
    if (g0.buf != Buf::scratch) return Region{g0.buf, g0.first * g, g0.count * g};
    const std::uint32_t copy = g0.first / B, b = g0.first % B;
    return Region{Buf::scratch, copy * nb + b * g, g0.count * g};
  };
  if (m > 0)
    for (int q = 0; q < m; ++q) {
      const int r = act[static_cast<std::size_t>(q)];
      if (req.only_rank >= 0 && r != req.only_rank) continue;
      const Program& from = s1.programs[static_cast<std::size_t>(q)];
      Program& to = plan.phase1.programs[static_cast<std::size_t>(r)];
      to.step_begin = from.step_begin;
      to.ops.reserve(from.ops.size());
      for (Op op : from.ops) {
        if (op.peer >= 0) op.peer = act[static_cast<std::size_t>(op.peer)];
        op.dst = widen(op.dst), op.src = widen(op.src), op.src2 = widen(op.src2);
        to.ops.push_back(op);
      }
    }

  // Phase 2: nothing when every rank is active.
  Steps e(n, req.only_rank);
  const auto N = static_cast<long long>(n);
  if (k > 0 && n > 1) {
    const std::uint32_t land_copy = k >= 2 ? 1 : 0;
    for (long long p = 0; p < N; ++p) {
      const int r = chain[static_cast<std::size_t>(p)];
      if (!e.wants(r)) continue;
      const bool late = p < k;
      const bool own_is_out = req.in_place;
      const int prev = p > 0 ? chain[static_cast<std::size_t>(p - 1)] : -1;
      const int next = p + 1 < N ? chain[static_cast<std::size_t>(p + 1)] : -1;
      for (std::uint32_t j = 0; j < nb; ++j) {
        const Region own = own_is_out ? out(j) : in(j), land = scratch(land_copy * nb + j);
        const long long t = p - 1 + j;  // chunk j lands here (p >= 1)
        if (late) {
          // L through this rank: own data (first), or the previous partial (+) own data.
          Region v = own;
          if (p > 0) {
            v = p == N - 1 ? out(j) : scratch(j);  // Lk with no active rank: the result
            e.add(r, t, recv_op(prev, land));
            e.add(r, t, reduce_op(v, land, own));
          }
          if (next >= 0) e.add(r, p + j, send_op(next, v));
          // The result comes back: Lk from Am (or, with no active rank, Lk-1 from Lk), then each
          // late rank from the next one, and goes on to the previous one.
          if (p == N - 1) {
            if (prev >= 0) e.add(r, N - 1 + j, send_op(prev, out(j)));
            continue;
          }
          const int from = p == k - 1 ? chain[static_cast<std::size_t>(N - 1)] : next;
          const long long at = N - 2 + (k - p) + j - (m == 0 ? 1 : 0);
          e.add(r, at, recv_op(from, out(j)));
          if (p > 0) e.add(r, at + 1, send_op(prev, out(j)));
        } else {
          // Out = P (+) L as chunk j of L lands; L goes on; the last one sends the result back.
          e.add(r, t, recv_op(prev, land));
          e.add(r, t, reduce_op(out(j), out(j), land));
          if (next >= 0)
            e.add(r, p + j, send_op(next, land));
          else
            e.add(r, N - 1 + j, send_op(chain[static_cast<std::size_t>(k - 1)], out(j)));
        }
      }
    }
  } else if (k > 0 && e.wants(0) && !req.in_place) {  // one rank, late: phase 2 is the copy
    e.add(0, 0, copy_op(out(0, nb), in(0, nb)));
  }
  e.finish(plan.phase2);
  return plan;
}

}  // namespace cclx::sched
