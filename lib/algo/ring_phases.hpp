// Ring phases shared by generators: the ring's reduce-scatter, runnable on a subset of the ranks
// (StragglAR runs it among the non-stragglers) through a position -> rank mapping, and its
// allgather (ring, canonical_halving).
#pragma once

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched::detail {

inline std::uint32_t ring_mod(long long a, int n) {
  return static_cast<std::uint32_t>(((a % n) + n) % n);
}

// Reduce-scatter phase on a ring of `n` positions, ending with position p holding block
// (p + shift) mod n fully reduced (over the ring's members) in `final_buf`. Partial sums travel
// through `partial` (out for allreduce, scratch for reduce_scatter whose Out holds a single
// block). `to_rank(position)` names the rank at a ring position; blocks are indexed by position.
// Arriving partial sums land in scratch, or with `land_in_acc` in the block they are added into
// (reduce in place): that needs an accumulator that is neither In (in place) nor read by the
// step's send, which holds when partial and final_buf are both Out and In is not Out. It saves
// the scratch round trip through memory, and with segments the reduction reads each segment
// while it is still in cache (docs/results-ring.md).
template <class ToRank>
void ring_reduce_scatter(ProgramBuilder& b, int n, int p, int shift, Buf partial, Buf final_buf,
                         ToRank to_rank, bool land_in_acc = false) {
  const int right = to_rank((p + 1) % n), left = to_rank((p + n - 1) % n);
  for (int k = 0; k < n - 1; ++k) {
    // At step k a rank sends the block it completed in step k-1 (its own input at k = 0) and
    // receives the block its left neighbour completed, adding its own input to it.
    const std::uint32_t s = ring_mod(p + shift - k, n);
    const std::uint32_t v = ring_mod(p + shift - k - 1, n);
    const Region src = k == 0 ? in(s) : Region{partial, s, 1};
    const bool last = k == n - 2;
    const Region acc{last ? final_buf : partial, v, 1};
    const Region land = land_in_acc ? acc : scratch(v);
    b.send(right, src);
    b.recv(left, land);
    b.reduce(acc, land, in(v));
    b.end_step();
  }
}

// Allgather phase on a ring of all n ranks: rank r starts with block `have` (in `first_src`) and
// circulates it, n - 1 steps. With `copy_own`, step 0 also copies In[have] to Out[have]; no
// transfer of step 0 touches Out[have].
inline void ring_allgather(ProgramBuilder& b, int n, int r, int have, Region first_src,
                           bool copy_own) {
  const int right = (r + 1) % n, left = (r + n - 1) % n;
  for (int k = 0; k < n - 1; ++k) {
    const std::uint32_t s = ring_mod(have - k, n);
    const std::uint32_t v = ring_mod(have - k - 1, n);
    b.send(right, k == 0 ? first_src : out(s));
    b.recv(left, out(v));
    if (k == 0 && copy_own) b.copy(out(s), in(s));
    b.end_step();
  }
}

}  // namespace cclx::sched::detail
