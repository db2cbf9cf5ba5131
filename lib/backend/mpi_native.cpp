// The MPI library's own collectives ("native"), with the workarounds for MPI bugs.
#include <climits>
#include <cstring>

#include "cclx/backend/mpi.hpp"
#include "cclx/error.hpp"
#include "mpi_large_count.hpp"
#include "mpi_pending.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::current_user_kernel;
using detail::mpi_check;
using detail::MpiPending;
namespace large = detail::large;
using sched::Collective;

void MpiBackend::native(const CollectiveCall& c) const {
  const MPI_Datatype dt = mpi_datatype(c.type);
  MPI_Op op = MPI_OP_NULL;
  if (c.has_op)
    op =
        c.kernel.op == OpId::user ? s_->user_op(c.kernel.commutative) : mpi_op(c.kernel.op, c.type);
  // Only user ops reach the trampoline: publish their kernel for this call, and leave the
  // thread-local alone on the builtin-op hot path.
  const bool user = c.has_op && c.kernel.op == OpId::user;
  struct Restore {
    bool active;
    const ReduceKernel* previous;
    ~Restore() {
      if (active) current_user_kernel = previous;
    }
  } restore{user, user ? current_user_kernel : nullptr};
  if (user) current_user_kernel = &c.kernel;

  const void* sendbuf = c.in_place ? MPI_IN_PLACE : c.in;
  const MPI_Comm comm = s_->user;
  const int r = s_->rank;
  // MPI's int-count functions where they suffice (they are what applications call), the MPI-4
  // large-count ones beyond, or their fallback without them (mpi_large_count.hpp).
  const bool small = c.count <= INT_MAX;
  const int n = static_cast<int>(c.count);
  const std::size_t nc = c.count;
  switch (c.collective) {
    case Collective::allreduce:
      mpi_check(small ? MPI_Allreduce(sendbuf, c.out, n, dt, op, comm)
                      : large::allreduce(sendbuf, c.out, nc, dt, op, comm),
                r, "MPI_Allreduce");
      break;
    case Collective::reduce: {
      // Non-roots pass their buffer as input even in place (MPI_IN_PLACE is for the root only).
      const void* sb = c.in_place && r != c.root ? c.in : sendbuf;
      // MPICH 4.0.2 (ch4:ucx) segfaults in MPI_Reduce(MPI_IN_PLACE, ...) at a root other than 0
      // from about 1000 floats on (tests/mpi/test_api.cpp shows it): stage the root's input in
      // pooled scratch and reduce out of place instead.
      engine::ScratchPool::Lease staged;
      if (c.in_place && r == c.root && c.root != 0 && c.count) {
        const std::size_t bytes = c.count * c.kernel.elem_size;
        staged = s_->scratch.acquire(bytes);
        std::memcpy(staged.data(), c.out, bytes);
        sb = staged.data();
      }
      mpi_check(small ? MPI_Reduce(sb, c.out, n, dt, op, c.root, comm)
                      : large::reduce(sb, c.out, nc, dt, op, c.root, comm),
                r, "MPI_Reduce");
      break;
    }
    case Collective::bcast:
      mpi_check(small ? MPI_Bcast(c.out, n, dt, c.root, comm)
                      : large::bcast(c.out, nc, dt, c.root, comm, r),
                r, "MPI_Bcast");
      break;
    case Collective::reduce_scatter:
      mpi_check(small ? MPI_Reduce_scatter_block(sendbuf, c.out, n, dt, op, comm)
                      : large::reduce_scatter_block(sendbuf, c.out, nc, dt, op, comm, r),
                r, "MPI_Reduce_scatter_block");
      break;
    case Collective::allgather:
      mpi_check(small ? MPI_Allgather(sendbuf, n, dt, c.out, n, dt, comm)
                      : large::allgather(sendbuf, c.out, nc, dt, comm, r),
                r, "MPI_Allgather");
      break;
    case Collective::alltoall:
      mpi_check(small ? MPI_Alltoall(sendbuf, n, dt, c.out, n, dt, comm)
                      : large::alltoall(sendbuf, c.out, nc, dt, comm, r),
                r, "MPI_Alltoall");
      break;
  }
}

Request MpiBackend::native_iallreduce(const CollectiveCall& c,
                                      std::shared_ptr<void> keepalive) const {
  if (c.kernel.op == OpId::user)
    throw Error(s_->rank,
                "native iallreduce does not support user-defined ops (MPI would call the op "
                "during later progress); use a scheduled algorithm such as algo::Ring");
  auto p = std::make_unique<MpiPending>();
  p->rank = s_->rank;
  p->keepalive = std::move(keepalive);
  const void* sendbuf = c.in_place ? MPI_IN_PLACE : c.in;
  const MPI_Datatype dt = mpi_datatype(c.type);
  const MPI_Op op = mpi_op(c.kernel.op, c.type);
  mpi_check(
      c.count <= INT_MAX
          ? MPI_Iallreduce(sendbuf, c.out, static_cast<int>(c.count), dt, op, s_->user, &p->req)
          : large::iallreduce(sendbuf, c.out, c.count, dt, op, s_->user, &p->req, s_->rank),
      s_->rank, "MPI_Iallreduce");
  return Request(std::move(p));
}

}  // namespace cclx
