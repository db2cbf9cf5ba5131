// Recursive doubling allreduce, one block (nblocks = 1), message size s. With p the largest power
// of two <= n and rem = n - p, ranks 2i and 2i+1 (i < rem) pair up: 2i (the keeper) receives and
// reduces 2i+1's vector (fold) and stands for both as virtual rank i; ranks >= 2 rem are virtual
// ranks r - rem. The p virtual ranks exchange their whole partial results with the partner at
// distance 1, 2, ..., p/2; at the end the keepers hand the result to their partners (unfold).
//   n = p: log2 n rounds, log2 n * s bytes sent per rank; cost log2 n (α + sβ + sγ).
//   otherwise: + 2 rounds, and the paired ranks send one more s (partner: fold; keeper: unfold).
// Rank order: after the exchange at distance m, virtual rank v holds the reduction of the virtual
// ranks [v & ~(2m - 1), +2m), whose real ranks form one interval. The partner holds the adjacent
// interval and the lower one is the left operand, so both partners compute the same combination,
// bitwise, in rank order; a keeper's own vector is the left operand of the fold.
// Places: the exchange at distance 2^k sends the partial result and receives into X_k, which is
// consumed in place (X_k <- partial (+) X_k) and so must differ from the partial, still in flight.
// Counted back from the last exchange, which lands in Out, X_k alternates between Out and scratch
// copy 0. A keeper folds into a place that is neither X_0 nor the user buffer. Where X_0 would be
// the user buffer the rank sends from (in place), X_0 moves to scratch copy 1; with a single
// exchange (n = 2 and rank 2 of n = 3, in place) nothing is left to alternate with, and the
// reduce into Out becomes a local step after the exchange.
#include <vector>

#include "cclx/algo/policies.hpp"

namespace cclx::sched {

namespace {

// p, the largest power of two <= n, and log2 p.
struct Pow2 {
  int p = 1, levels = 0;
  explicit Pow2(int n) {
    while (p <= n / 2) {
      p *= 2;
      ++levels;
    }
  }
};

void allreduce_rank(ProgramBuilder& b, int n, int r, bool in_place) {
  if (n == 1) {
    if (!in_place) b.copy(out(0), in(0)).end_step();
    return;
  }
  const auto [p, levels] = Pow2(n);
  const int rem = n - p;
  const bool paired = r < 2 * rem;
  if (paired && r % 2 == 1) {
    // Partner: hand In to the keeper, idle through the exchanges, take the result back.
    b.send(r - 1, in(0)).end_step();
    for (int k = 0; k < levels; ++k) b.end_step();
    b.recv(r - 1, out(0)).end_step();
    return;
  }
  const int v = paired ? r / 2 : r - rem;
  auto real = [&](int u) { return u < rem ? 2 * u : u + rem; };
  std::vector<Region> land(static_cast<std::size_t>(levels));
  for (int k = 0; k < levels; ++k)
    land[static_cast<std::size_t>(k)] = (levels - 1 - k) % 2 == 0 ? out(0) : scratch(0);
  Region acc = in(0);
  if (rem > 0) {
    if (paired) {
      acc = land[0] == out(0) ? scratch(0) : in_place ? scratch(1) : out(0);
      b.recv(r + 1, acc).reduce(acc, in(0), acc);
    }
    b.end_step();
  }
  bool late_reduce = false;
  if (in_place && acc == in(0) && land[0] == out(0)) {
    late_reduce = levels == 1;
    land[0] = late_reduce ? scratch(0) : scratch(1);
  }
  for (int k = 0; k < levels; ++k) {
    const int pv = v ^ (1 << k);
    const int peer = real(pv);
    const Region x = land[static_cast<std::size_t>(k)];
    b.send(peer, acc).recv(peer, x);
    const Region dst = late_reduce ? out(0) : x;
    if (late_reduce) b.end_step();
    if (pv < v)
      b.reduce(dst, x, acc);
    else
      b.reduce(dst, acc, x);
    b.end_step();
    acc = dst;
  }
  if (paired) b.send(r + 1, out(0)).end_step();
}

}  // namespace

Schedule recursive_doubling(const ScheduleRequest& req) {
  const int n = req.nranks;
  Schedule s = begin_schedule<algo::RecursiveDoubling>(req, 1);
  s.root = 0;
  // Copy 1 holds X_0 of in-place ranks when log2 p is odd and >= 3, and an in-place keeper's fold
  // when log2 p is even (see the header comment).
  const auto [p, levels] = Pow2(n);
  if (req.in_place && n > 1 && (levels % 2 == 1 ? levels >= 3 : n != p)) s.scratch_copies = 2;
  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    allreduce_rank(b, n, r, req.in_place);
  }
  return s;
}

}  // namespace cclx::sched
