// Every collective's descriptor (one header each) and the run-time dispatch over them: code that
// holds a sched::Collective value reaches the descriptor with visit().
//
// Adding a collective: a header with its descriptor (see descriptor.hpp), a line in Collective
// (schedule.hpp), in all_collectives and in visit(), its native MPI call (backend/mpi_native.cpp;
// the v-collectives' in backend/mpi_native_v.cpp) and the generators that serve it.
#pragma once

#include <array>
#include <utility>

#include "cclx/collectives/allgather.hpp"
#include "cclx/collectives/allgatherv.hpp"
#include "cclx/collectives/allreduce.hpp"
#include "cclx/collectives/alltoall.hpp"
#include "cclx/collectives/alltoallv.hpp"
#include "cclx/collectives/barrier.hpp"
#include "cclx/collectives/bcast.hpp"
#include "cclx/collectives/gather.hpp"
#include "cclx/collectives/gatherv.hpp"
#include "cclx/collectives/reduce.hpp"
#include "cclx/collectives/reduce_scatter.hpp"
#include "cclx/collectives/reduce_scatterv.hpp"
#include "cclx/collectives/scatter.hpp"
#include "cclx/collectives/scatterv.hpp"

namespace cclx::coll {

/// Every collective, in Collective's order.
inline constexpr std::array all_collectives = {
    Collective::allreduce,       Collective::reduce,    Collective::bcast,
    Collective::reduce_scatter,  Collective::allgather, Collective::alltoall,
    Collective::gather,          Collective::scatter,   Collective::barrier,
    Collective::gatherv,         Collective::scatterv,  Collective::allgatherv,
    Collective::reduce_scatterv, Collective::alltoallv};

/// Calls f(D{}) with the descriptor D of `c`.
template <class F>
constexpr decltype(auto) visit(Collective c, F&& f) {
  switch (c) {
    case Collective::allreduce:
      return std::forward<F>(f)(Allreduce{});
    case Collective::reduce:
      return std::forward<F>(f)(Reduce{});
    case Collective::bcast:
      return std::forward<F>(f)(Bcast{});
    case Collective::reduce_scatter:
      return std::forward<F>(f)(ReduceScatter{});
    case Collective::allgather:
      return std::forward<F>(f)(Allgather{});
    case Collective::gather:
      return std::forward<F>(f)(Gather{});
    case Collective::scatter:
      return std::forward<F>(f)(Scatter{});
    case Collective::barrier:
      return std::forward<F>(f)(Barrier{});
    case Collective::gatherv:
      return std::forward<F>(f)(GatherV{});
    case Collective::scatterv:
      return std::forward<F>(f)(ScatterV{});
    case Collective::allgatherv:
      return std::forward<F>(f)(AllgatherV{});
    case Collective::reduce_scatterv:
      return std::forward<F>(f)(ReduceScatterV{});
    case Collective::alltoallv:
      return std::forward<F>(f)(AlltoallV{});
    case Collective::alltoall:
      break;
  }
  return std::forward<F>(f)(Alltoall{});
}

/// The blocks In and Out cover on `rank` for a partition of `nblocks` blocks.
[[nodiscard]] inline Windows windows_of(Collective c, int nranks, int rank, int root,
                                        std::uint32_t nblocks) {
  return visit(c, [&](auto d) { return d.windows(nranks, rank, root, nblocks); });
}

/// Whether `c` synchronizes (descriptor.hpp): its postcondition is causal and the engine posts
/// every transfer of its schedules as a message, also one without data.
[[nodiscard]] constexpr bool synchronizes(Collective c) {
  return visit(c, [](auto d) {
    if constexpr (requires { decltype(d)::synchronizes; })
      return decltype(d)::synchronizes;
    else
      return false;
  });
}

/// The equal-block collective whose schedules serve `c` (itself unless `c` is a v-collective).
[[nodiscard]] constexpr Collective shape_of(Collective c) {
  return visit(c, [](auto d) { return shape_of<decltype(d)>(); });
}

/// Whether `c` has per-rank block sizes (a v-collective).
[[nodiscard]] constexpr bool has_variable_counts(Collective c) {
  return visit(c, [](auto d) { return variable_counts<decltype(d)>; });
}

/// Elements in the schedule's partition (all blocks) for a call of `count` on `nranks` ranks.
[[nodiscard]] inline std::size_t partition_count(Collective c, std::size_t count, int nranks) {
  return visit(c, [&](auto d) { return d.partition_count(count, nranks); });
}

}  // namespace cclx::coll
