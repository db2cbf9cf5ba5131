// Ring algorithms. With n blocks, every step moves one block to the right neighbour:
//   reduce-scatter: n-1 steps, each rank forwards a partial sum and adds its own contribution;
//   allgather:      n-1 steps, each rank forwards the completed block it received last;
//   allreduce:      reduce-scatter then allgather, 2(n-1) steps, 2(n-1)/n * s bytes per rank;
//   alltoall:       pairwise shift, step k sends block r+k to rank r+k (n-1 steps).
// reduce_scatterv, allgatherv and alltoallv run the same schedules: they are in blocks, and a
// block's size (counts[b]) is the same on both ends of every transfer.
#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "ring_phases.hpp"

namespace cclx::sched {

namespace {

std::uint32_t mod(long long a, int n) {
  return detail::ring_mod(a, n);
}

void ring_reduce_scatter(ProgramBuilder& b, int n, int r, int shift, Buf partial, Buf final_buf,
                         bool land_in_acc = false) {
  detail::ring_reduce_scatter(
      b, n, r, shift, partial, final_buf, [](int p) { return p; }, land_in_acc);
}

}  // namespace

Schedule ring(const ScheduleRequest& req) {
  using C = Collective;
  const int n = req.nranks;
  // The ring adds contributions in rotated order; only the trivial ring keeps rank order.
  Schedule s = begin_schedule<algo::Ring>(req, static_cast<std::uint32_t>(n));
  const C shape = coll::shape_of(req.collective);
  // Around the ring every rank hears only from its left neighbour; alltoall's shifts do not.
  s.one_sender_per_receiver = shape != C::alltoall;
  const auto all = static_cast<std::uint32_t>(n);

  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    const auto self = static_cast<std::uint32_t>(r);
    switch (shape) {
      case C::allreduce:
        if (n == 1) {
          if (!req.in_place) b.copy(out(0, all), in(0, all)).end_step();
          break;
        }
        // Rank r completes block r + 1, then circulates it. Out of place, partial sums land in
        // the Out block they are added into.
        ring_reduce_scatter(b, n, r, 0, Buf::out, Buf::out, !req.in_place);
        detail::ring_allgather(b, n, r, static_cast<int>(mod(r + 1, n)), out(mod(r + 1, n)), false);
        break;
      case C::reduce_scatter:
        if (n == 1) {
          if (!req.in_place) b.copy(out(0), in(0)).end_step();
          break;
        }
        // Shifted by -1 so that rank r completes its own block r (into Out). In place with n = 2
        // the one step sends In[0] from rank 1 while writing Out[1], which aliases In[0]: reduce
        // into scratch and copy out one step later.
        if (req.in_place && n == 2) {
          ring_reduce_scatter(b, n, r, -1, Buf::scratch, Buf::scratch);
          b.copy(out(self), scratch(self)).end_step();
          break;
        }
        ring_reduce_scatter(b, n, r, -1, Buf::scratch, Buf::out);
        break;
      case C::allgather:
        // Step 0 sends In[r] directly and copies it to Out[r] (in place, In aliases Out[r]).
        if (n == 1) {
          if (!req.in_place) b.copy(out(self), in(self)).end_step();
          break;
        }
        detail::ring_allgather(b, n, r, r, in(self), !req.in_place);
        break;
      case C::alltoall: {
        // In place, In[r+k] must still be sent when Out[r-k] arrives, so land in scratch and copy
        // back at the end.
        const Buf land = req.in_place ? Buf::scratch : Buf::out;
        if (!req.in_place) b.copy(out(self), in(self));
        for (int k = 1; k < n; ++k) {
          const std::uint32_t to = mod(r + k, n), from = mod(r - k, n);
          b.send(static_cast<int>(to), in(to));
          b.recv(static_cast<int>(from), Region{land, from, 1});
          b.end_step();
        }
        if (req.in_place && n > 1) {
          for (int k = 1; k < n; ++k) b.copy(out(mod(r - k, n)), scratch(mod(r - k, n)));
          b.end_step();
        }
        if (n == 1 && !req.in_place) b.end_step();
        break;
      }
      default:
        break;
    }
  }
  return s;
}

}  // namespace cclx::sched
