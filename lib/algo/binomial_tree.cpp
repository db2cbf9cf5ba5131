// Binomial trees, one block (nblocks = 1), message size s, L = ceil(log2 n):
//   bcast:     L steps; no rank sends more than L*s bytes (root 0 sends exactly L*s; for a root in
//              the upper part, the first rank of the lower part is the busiest). Cost L(α + sβ).
//   allreduce: order-preserving binomial reduce to rank 0 (L steps), then bcast from 0 (L steps):
//              2L steps; rank 0 sends L*s bytes, others at most L*s. Cost 2L(α + sβ).
// The reduce tree splits the rank interval [0, n) into [lo, lo + 2^(k-1)) and the rest; each half
// reduces recursively and the half without the target hands its result over in the last step, so
// every combination joins two adjacent rank intervals (left operand = lower ranks).
//
// Rooted reduce is not offered: an inner non-root rank of a log-depth tree must hold its partial
// result and a landing message at the same time, but it has no Out and the schedule model gives it
// one Scratch block (In is read-only), so the tree needs a second scratch block the model lacks.
#include <vector>

#include "cclx/error.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::sched {

namespace {

struct Xfer {
  int from, to;
};
using Plan = std::vector<std::vector<Xfer>>;  // per step

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
  const int mid = lo + (1 << (k - 1));
  const bool left = target < mid;
  reduce_plan(lo, mid, left ? target : lo, step0, plan);
  reduce_plan(mid, hi, left ? mid : target, step0, plan);
  plan[static_cast<std::size_t>(step0 + k - 1)].push_back({left ? mid : lo, target});
}

// Rank r's reduce: partial results accumulate in Out (every rank of allreduce has one), messages
// land in Scratch.
void emit_reduce(ProgramBuilder& b, const Plan& plan, int r) {
  bool has_acc = false;
  for (const auto& step : plan) {
    for (const Xfer& x : step) {
      if (x.from == r) b.send(x.to, has_acc ? out(0) : in(0));
      if (x.to == r) {
        const Region acc = has_acc ? out(0) : in(0);
        b.recv(x.from, scratch(0));
        // The sender's interval lies entirely below or above the receiver's.
        if (x.from < r)
          b.reduce(out(0), scratch(0), acc);
        else
          b.reduce(out(0), acc, scratch(0));
        has_acc = true;
      }
    }
    b.end_step();
  }
}

// Bcast along the reduce plan of `root`, run backwards; ranks receive into Out.
void emit_bcast(ProgramBuilder& b, const Plan& plan, int r) {
  for (auto it = plan.rbegin(); it != plan.rend(); ++it) {
    for (const Xfer& x : *it) {
      if (x.to == r) b.send(x.from, out(0));
      if (x.from == r) b.recv(x.to, out(0));
    }
    b.end_step();
  }
}

}  // namespace

Schedule binomial_tree(const ScheduleRequest& req) {
  using C = Collective;
  require_supported(req, "binomial_tree", {C::allreduce, C::bcast});
  const int n = req.nranks;
  Schedule s;
  s.algorithm = "binomial_tree";
  s.collective = req.collective;
  s.nranks = n;
  s.root = req.collective == C::bcast ? req.root : 0;
  s.in_place = req.in_place;
  s.nblocks = 1;
  s.preserves_order = true;
  s.programs.resize(static_cast<std::size_t>(n));

  const int L = ceil_log2(n);
  Plan plan(static_cast<std::size_t>(L));
  // Bcast from any root: the plan of a reduce onto that root, reversed (order is irrelevant).
  reduce_plan(0, n, s.root, 0, plan);

  for (int r = 0; r < n; ++r) {
    if (req.only_rank >= 0 && r != req.only_rank) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    if (req.collective == C::bcast) {
      emit_bcast(b, plan, r);
      continue;
    }
    if (n == 1) {
      if (!req.in_place) b.copy(out(0), in(0)).end_step();
      continue;
    }
    emit_reduce(b, plan, r);
    emit_bcast(b, plan, r);
  }
  return s;
}

}  // namespace cclx::sched
