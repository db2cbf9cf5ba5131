// Binomial trees, one block (nblocks = 1), message size s, L = ceil(log2 n):
//   bcast:     L steps; no rank sends more than L*s bytes (root 0 sends exactly L*s; for a root in
//              the upper part, the first rank of the lower part is the busiest). Cost L(α + sβ).
//   reduce:    order-preserving binomial reduce straight onto the root, any root: L steps; every
//              non-root rank sends s bytes once, the root receives up to L messages. Cost
//              L(α + sβ + sγ). A non-root rank has no Out and must leave In alone, so its partial
//              result lives in scratch copy 0 and its second and later messages land in copy 1
//              (scratch_copies = 2 when some non-root rank receives twice: always for n >= 8,
//              for some roots below; the first message lands in copy 0, consumed in place).
//   gather:    the reduce plan carrying blocks (nblocks = n) instead of partial results: L steps,
//              every block crosses at most L links; the root receives n-1 blocks in at most L
//              messages.
//   scatter:   the gather reversed.
//   gatherv, scatterv: the gather and scatter schedules (a message carries the blocks of an
//              interval, whatever their sizes).
//   allreduce: order-preserving binomial reduce to rank 0 (L steps), then bcast from 0 (L steps):
//              2L steps; rank 0 sends L*s bytes, others at most L*s. Cost 2L(α + sβ).
// The reduce tree splits the rank interval [0, n) into [lo, lo + 2^(k-1)) and the rest; each half
// reduces recursively onto the target if it holds it (else onto its first rank) and the half
// without the target hands its result over in the last step, so every combination joins two
// adjacent rank intervals (left operand = lower ranks), whatever the target.
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/canonical_order.hpp"

namespace cclx::sched {

namespace {

// `from` hands the rank interval [lo, hi) it stands for to `to`.
struct Handover {
  int from, to, lo, hi;
};
using Plan = std::vector<std::vector<Handover>>;  // per step

int ceil_log2(int n) {
  int k = 0;
  while ((1 << k) < n) ++k;
  return k;
}

// Reduce of the ranks [lo, hi) onto `target`, starting at step `step0`; every transfer joins two
// adjacent intervals, so combining at the receiver keeps rank order.
void reduce_plan(int lo, int hi, int target, int step0, Plan& plan) {
  const int size = hi - lo;
  if (size <= 1) return;
  const int k = ceil_log2(size);
  // lo + 2^(k-1): the canonical split, which makes this reduce the canonical order.
  const int mid = canonical_split(lo, hi);
  const bool left = target < mid;
  reduce_plan(lo, mid, left ? target : lo, step0, plan);
  reduce_plan(mid, hi, left ? mid : target, step0, plan);
  plan[static_cast<std::size_t>(step0 + k - 1)].push_back(
      {left ? mid : lo, target, left ? mid : lo, left ? hi : mid});
}

// Rank r's reduce: partial results accumulate in Out when the rank has one (allreduce, the root of
// reduce) and messages land in Scratch copy 0. Without Out, the partial result lives in scratch
// copy 0 (block 0) and the message lands in copy 0 too the first time (consumed in place), in copy
// 1 (block 1 = copy 1's block 0, nblocks = 1) afterwards.
void emit_reduce(ProgramBuilder& b, const Plan& plan, int r, bool has_out) {
  bool has_acc = false;
  const Region home = has_out ? out(0) : scratch(0);
  for (const auto& step : plan) {
    for (const Handover& x : step) {
      if (x.from == r) b.send(x.to, has_acc ? home : in(0));
      if (x.to == r) {
        const Region acc = has_acc ? home : in(0);
        const Region land = has_out || !has_acc ? scratch(0) : scratch(1);
        b.recv(x.from, land);
        // The sender's interval lies entirely below or above the receiver's.
        if (x.from < r)
          b.reduce(home, land, acc);
        else
          b.reduce(home, acc, land);
        has_acc = true;
      }
    }
    b.end_step();
  }
}

// Whether a rank without Out receives more than once (and so needs a second scratch copy).
bool nonroot_receives_twice(const Plan& plan, int n, int root) {
  std::vector<int> received(static_cast<std::size_t>(n), 0);
  for (const auto& step : plan)
    for (const Handover& x : step)
      if (x.to != root && ++received[static_cast<std::size_t>(x.to)] > 1) return true;
  return false;
}

// Bcast along the reduce plan of `root`, run backwards; ranks receive into Out.
void emit_bcast(ProgramBuilder& b, const Plan& plan, int r) {
  for (auto it = plan.rbegin(); it != plan.rend(); ++it) {
    for (const Handover& x : *it) {
      if (x.to == r) b.send(x.from, out(0));
      if (x.from == r) b.recv(x.to, out(0));
    }
    b.end_step();
  }
}

// Gather along the reduce plan (nblocks = n, block b = rank b's data): each transfer carries the
// blocks of the sender's interval, which the sender holds contiguously: in scratch at their own
// block numbers (its own In block copied there in step 0 when it will receive), or straight from
// In when the interval is its own block alone; the root collects them in Out.
void emit_gather(ProgramBuilder& b, const Plan& plan, int r, int root, bool in_place) {
  const auto me = static_cast<std::uint32_t>(r);
  bool receives = false;
  for (const auto& step : plan)
    for (const Handover& x : step) receives |= x.to == r;
  bool first = true;
  for (const auto& step : plan) {
    for (const Handover& x : step) {
      const auto lo = static_cast<std::uint32_t>(x.lo),
                 len = static_cast<std::uint32_t>(x.hi - x.lo);
      if (x.from == r) b.send(x.to, len == 1 ? in(me) : scratch(lo, len));
      if (x.to == r) b.recv(x.from, r == root ? out(lo, len) : scratch(lo, len));
    }
    if (first) {
      if (r == root && !in_place) b.copy(out(me), in(me));
      if (r != root && receives) b.copy(scratch(me), in(me));
      first = false;
    }
    b.end_step();
  }
}

// Scatter: the gather run backwards. The root sends from In; a rank that forwards receives its
// interval into scratch and takes its own block from there; a leaf receives straight into Out.
void emit_scatter(ProgramBuilder& b, const Plan& plan, int r, int root, bool in_place) {
  const auto me = static_cast<std::uint32_t>(r);
  if (r == root && !in_place) b.copy(out(me), in(me));
  for (auto it = plan.rbegin(); it != plan.rend(); ++it) {
    for (const Handover& x : *it) {
      const auto lo = static_cast<std::uint32_t>(x.lo),
                 len = static_cast<std::uint32_t>(x.hi - x.lo);
      if (x.to == r) b.send(x.from, r == root ? in(lo, len) : scratch(lo, len));
      if (x.from == r) {
        if (len == 1) {
          b.recv(x.to, out(me));
        } else {
          b.recv(x.to, scratch(lo, len));
          b.copy(out(me), scratch(me));
        }
      }
    }
    b.end_step();
  }
}

}  // namespace

Schedule binomial_tree(const ScheduleRequest& req) {
  using C = Collective;
  const int n = req.nranks;
  const C shape = coll::shape_of(req.collective);
  const bool per_rank = shape == C::gather || shape == C::scatter;
  Schedule s =
      begin_schedule<algo::BinomialTree>(req, per_rank ? static_cast<std::uint32_t>(n) : 1);
  if (shape == C::allreduce) s.root = 0;

  const int L = ceil_log2(n);
  Plan plan(static_cast<std::size_t>(L));
  // Reduce onto the root (rank 0 for allreduce); bcast from any root: that plan reversed.
  reduce_plan(0, n, s.root, 0, plan);
  if (shape == C::reduce && nonroot_receives_twice(plan, n, s.root)) s.scratch_copies = 2;

  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    if (shape == C::bcast) {
      emit_bcast(b, plan, r);
      continue;
    }
    if (n == 1) {
      if (!req.in_place) b.copy(out(0), in(0)).end_step();
      continue;
    }
    if (shape == C::gather) {
      emit_gather(b, plan, r, s.root, req.in_place);
      continue;
    }
    if (shape == C::scatter) {
      emit_scatter(b, plan, r, s.root, req.in_place);
      continue;
    }
    if (shape == C::reduce) {
      emit_reduce(b, plan, r, r == s.root);
      continue;
    }
    emit_reduce(b, plan, r, true);
    emit_bcast(b, plan, r);
  }
  return s;
}

}  // namespace cclx::sched
