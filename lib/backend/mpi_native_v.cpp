// The v-collectives' native MPI calls (mpi_native_v.hpp). MPI_IN_PLACE follows each
// descriptor's in-place convention (include/cclx/collectives/<name>.hpp). Reductions get their
// MPI_Op from MpiBackend::native(), i.e. from mpi_op() with its workarounds for MPI bugs
// (MPICH's unsigned MAX/MIN, Open MPI's saturating 8/16-bit SUM), like every other reduction.
#include "mpi_native_v.hpp"

#include <climits>
#include <cstdint>
#include <cstring>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "mpi_large_count.hpp"

namespace cclx::detail {

namespace {

using sched::Collective;

// Counts and displacements of In's and Out's blocks in the integer types of one MPI binding:
// int (the classic functions) or MPI_Count / MPI_Aint (the large-count ones). Displacements not
// given are the packed layout.
template <class Count, class Displ>
struct Arrays {
  std::vector<Count> in_counts, out_counts;
  std::vector<Displ> in_displs, out_displs;

  explicit Arrays(const CollectiveCall& c) {
    const BlockCounts& bc = *c.blocks;
    // In place, alltoallv's one buffer has recvcounts' layout.
    const bool own_in = !c.in_place;
    fill(own_in ? bc.in_counts : bc.out_counts, own_in ? bc.in_displs : bc.out_displs, in_counts,
         in_displs);
    fill(bc.out_counts, bc.out_displs, out_counts, out_displs);
  }
  static void fill(const IntArray& counts, const IntArray& displs, std::vector<Count>& cv,
                   std::vector<Displ>& dv) {
    cv.resize(counts.size);
    dv.resize(counts.size);
    long long at = 0;
    for (std::size_t b = 0; b < counts.size; ++b) {
      cv[b] = static_cast<Count>(counts[b]);
      dv[b] = static_cast<Displ>(displs.given() ? displs[b] : at);
      at += counts[b];
    }
  }
};

bool fits(const IntArray& a) {
  for (std::size_t i = 0; i < a.size; ++i)
    if (a[i] > INT_MAX) return false;
  return true;
}

// The MPI call of one binding (B::name(...) for int and large counts) on arrays `a`.
template <class A, class Run>
int call(const CollectiveCall& c, const A& a, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int rank,
         Run&& run) {
  const auto r = static_cast<std::size_t>(rank);
  const void* sendbuf = c.in_place ? MPI_IN_PLACE : c.in;
  switch (c.collective) {
    case Collective::gatherv: {
      // MPI_IN_PLACE is the root's send buffer; the others pass their block.
      const void* sb = c.in_place && rank != c.root ? c.in : sendbuf;
      return run.gatherv(sb, a.out_counts[r], dt, c.out, a.out_counts.data(), a.out_displs.data(),
                         c.root, comm);
    }
    case Collective::scatterv: {
      // MPI_IN_PLACE is the root's receive buffer; its one buffer is the send buffer.
      const bool root_in_place = c.in_place && rank == c.root;
      return run.scatterv(root_in_place ? c.out : c.in, a.in_counts.data(), a.in_displs.data(), dt,
                          root_in_place ? MPI_IN_PLACE : c.out, a.out_counts[r], c.root, comm);
    }
    case Collective::allgatherv:
      return run.allgatherv(sendbuf, a.out_counts[r], dt, c.out, a.out_counts.data(),
                            a.out_displs.data(), comm);
    case Collective::reduce_scatterv:
      return run.reduce_scatterv(sendbuf, c.out, a.out_counts.data(), dt, op, comm);
    case Collective::alltoallv:
      return run.alltoallv(sendbuf, a.in_counts.data(), a.in_displs.data(), dt, c.out,
                           a.out_counts.data(), a.out_displs.data(), comm);
    default:
      break;
  }
  throw Error(rank, std::string(sched::to_string(c.collective)) + " is not a v-collective");
}

// The classic int functions, blocking or (with a request) nonblocking.
struct IntCalls {
  MPI_Request* req;
  int gatherv(const void* sb, int sc, MPI_Datatype dt, void* rb, const int* rc, const int* d,
              int root, MPI_Comm comm) const {
    return req ? MPI_Igatherv(sb, sc, dt, rb, rc, d, dt, root, comm, req)
               : MPI_Gatherv(sb, sc, dt, rb, rc, d, dt, root, comm);
  }
  int scatterv(const void* sb, const int* sc, const int* d, MPI_Datatype dt, void* rb, int rc,
               int root, MPI_Comm comm) const {
    return req ? MPI_Iscatterv(sb, sc, d, dt, rb, rc, dt, root, comm, req)
               : MPI_Scatterv(sb, sc, d, dt, rb, rc, dt, root, comm);
  }
  int allgatherv(const void* sb, int sc, MPI_Datatype dt, void* rb, const int* rc, const int* d,
                 MPI_Comm comm) const {
    return req ? MPI_Iallgatherv(sb, sc, dt, rb, rc, d, dt, comm, req)
               : MPI_Allgatherv(sb, sc, dt, rb, rc, d, dt, comm);
  }
  int reduce_scatterv(const void* sb, void* rb, const int* rc, MPI_Datatype dt, MPI_Op op,
                      MPI_Comm comm) const {
    return req ? MPI_Ireduce_scatter(sb, rb, rc, dt, op, comm, req)
               : MPI_Reduce_scatter(sb, rb, rc, dt, op, comm);
  }
  int alltoallv(const void* sb, const int* sc, const int* sd, MPI_Datatype dt, void* rb,
                const int* rc, const int* rd, MPI_Comm comm) const {
    return req ? MPI_Ialltoallv(sb, sc, sd, dt, rb, rc, rd, dt, comm, req)
               : MPI_Alltoallv(sb, sc, sd, dt, rb, rc, rd, dt, comm);
  }
};

#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
// The MPI-4 large-count functions (blocking only).
struct LargeCalls {
  static int gatherv(const void* sb, MPI_Count sc, MPI_Datatype dt, void* rb, const MPI_Count* rc,
                     const MPI_Aint* d, int root, MPI_Comm comm) {
    return MPI_Gatherv_c(sb, sc, dt, rb, rc, d, dt, root, comm);
  }
  static int scatterv(const void* sb, const MPI_Count* sc, const MPI_Aint* d, MPI_Datatype dt,
                      void* rb, MPI_Count rc, int root, MPI_Comm comm) {
    return MPI_Scatterv_c(sb, sc, d, dt, rb, rc, dt, root, comm);
  }
  static int allgatherv(const void* sb, MPI_Count sc, MPI_Datatype dt, void* rb,
                        const MPI_Count* rc, const MPI_Aint* d, MPI_Comm comm) {
    return MPI_Allgatherv_c(sb, sc, dt, rb, rc, d, dt, comm);
  }
  static int reduce_scatterv(const void* sb, void* rb, const MPI_Count* rc, MPI_Datatype dt,
                             MPI_Op op, MPI_Comm comm) {
    return MPI_Reduce_scatter_c(sb, rb, rc, dt, op, comm);
  }
  static int alltoallv(const void* sb, const MPI_Count* sc, const MPI_Aint* sd, MPI_Datatype dt,
                       void* rb, const MPI_Count* rc, const MPI_Aint* rd, MPI_Comm comm) {
    return MPI_Alltoallv_c(sb, sc, sd, dt, rb, rc, rd, dt, comm);
  }
};
#endif

}  // namespace

bool native_v_fits_int(const CollectiveCall& c) {
  const BlockCounts& bc = *c.blocks;
  // Packed displacements are prefix sums, at most the total.
  auto layout_fits = [](const IntArray& counts, const IntArray& displs) {
    return displs.given() ? fits(counts) && fits(displs) : counts_total(counts) <= INT_MAX;
  };
  return layout_fits(bc.out_counts, bc.out_displs) &&
         (c.in_place || layout_fits(bc.in_counts, bc.in_displs));
}

std::size_t native_v_staging(const CollectiveCall& c) {
  if (c.collective != Collective::reduce_scatterv || !c.in_place) return 0;
  const IntArray& counts = c.blocks->out_counts;
  long long at = 0;
  bool overlap = false;
  for (std::size_t r = 0; r < counts.size; ++r) {
    overlap = overlap || (at > 0 && at < counts[r]);
    at += counts[r];
  }
  return overlap ? static_cast<std::size_t>(at) : 0;
}

const char* native_v_function(sched::Collective c) {
  switch (c) {
    case Collective::gatherv:
      return "MPI_Gatherv";
    case Collective::scatterv:
      return "MPI_Scatterv";
    case Collective::allgatherv:
      return "MPI_Allgatherv";
    case Collective::reduce_scatterv:
      return "MPI_Reduce_scatter";
    case Collective::alltoallv:
      return "MPI_Alltoallv";
    default:
      return "?";
  }
}

int native_v(const CollectiveCall& c, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int rank,
             bool small, MPI_Request* req, std::unique_ptr<NativeVArrays>& keep) {
  const BlockCounts& bc = *c.blocks;
  // MPICH 4.0.2's MPI_Allgatherv on a single process copies the block to the start of the receive
  // buffer, ignoring the displacement (MPI_Alltoallv and MPI_Gatherv honour theirs): the one copy
  // is done here.
  if (c.collective == Collective::allgatherv && bc.out_counts.size == 1 && bc.out_displs.given()) {
    if (!c.in_place)
      std::memmove(static_cast<char*>(c.out) +
                       static_cast<std::size_t>(bc.out_displs[0]) * c.kernel.elem_size,
                   c.in, static_cast<std::size_t>(bc.out_counts[0]) * c.kernel.elem_size);
    return MPI_SUCCESS;
  }
  if (small) {
    Arrays<int, int> a(c);
    if (!req) return call(c, a, dt, op, comm, rank, IntCalls{nullptr});
    // MPI reads the arrays until the request completes: they move to `keep`.
    keep = std::make_unique<NativeVArrays>(
        NativeVArrays{std::move(a.in_counts), std::move(a.out_counts), std::move(a.in_displs),
                      std::move(a.out_displs)});
    return call(c, *keep, dt, op, comm, rank, IntCalls{req});
  }
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
  const Arrays<MPI_Count, MPI_Aint> a(c);
  return call(c, a, dt, op, comm, rank, LargeCalls{});
#else
  (void)dt, (void)op, (void)comm, (void)req, (void)keep;
  throw Error(rank, std::string(sched::to_string(c.collective)) + " (native): " +
                        "counts or displacements exceed INT_MAX and this MPI has no MPI-4 " +
                        "large-count functions (" + native_v_function(c.collective) +
                        "_c); use a scheduled algorithm (e.g. algo::Ring) or an MPI with " +
                        "large-count support");
#endif
}

}  // namespace cclx::detail
