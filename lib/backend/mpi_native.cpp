// The MPI library's own collectives ("native"), with the workarounds for MPI bugs.
#include <climits>
#include <cstring>
#include <string>

#include "cclx/backend/mpi.hpp"
#include "cclx/error.hpp"
#include "mpi_large_count.hpp"
#include "mpi_native_v.hpp"
#include "mpi_pending.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::current_user_kernel;
using detail::mpi_check;
using detail::wait_until_deadline;
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
  const bool small = c.blocks ? detail::native_v_fits_int(c) : c.count <= INT_MAX;
  const int n = static_cast<int>(c.count);
  // With a deadline, the nonblocking collective polled against it (docs/faults.md); without, the
  // blocking call (cheaper at small sizes). Large counts and user-defined ops are always blocking,
  // without a deadline: an abandoned collective would call the trampoline later, when this call's
  // kernel is gone.
  const bool timed = s_->timeout_s > 0 && small && !user;
  MPI_Request req = MPI_REQUEST_NULL;
  // Staged root input of the reduce workaround below, and the v-collectives' int arrays; they
  // live until the collective completes.
  engine::ScratchPool::Lease staged;
  std::unique_ptr<detail::NativeVArrays> v_arrays;
  const char* fn = "";
  int rc = MPI_SUCCESS;
  switch (c.collective) {
    case Collective::allreduce:
      fn = "MPI_Allreduce";
      rc = !small  ? large::allreduce(sendbuf, c.out, c.count, dt, op, comm)
           : timed ? MPI_Iallreduce(sendbuf, c.out, n, dt, op, comm, &req)
                   : MPI_Allreduce(sendbuf, c.out, n, dt, op, comm);
      break;
    case Collective::reduce: {
      // Non-roots pass their buffer as input even in place (MPI_IN_PLACE is for the root only).
      const void* sb = c.in_place && r != c.root ? c.in : sendbuf;
      // MPICH 4.0.2 (ch4:ucx) segfaults in MPI_Reduce(MPI_IN_PLACE, ...) at a root other than 0
      // from about 1000 floats on (tests/mpi/test_api.cpp shows it): stage the root's input in
      // pooled scratch and reduce out of place instead.
      if (c.in_place && r == c.root && c.root != 0 && c.count) {
        const std::size_t bytes = c.count * c.kernel.elem_size;
        staged = s_->scratch.acquire(bytes);
        std::memcpy(staged.data(), c.out, bytes);
        sb = staged.data();
      }
      fn = "MPI_Reduce";
      rc = !small  ? large::reduce(sb, c.out, c.count, dt, op, c.root, comm)
           : timed ? MPI_Ireduce(sb, c.out, n, dt, op, c.root, comm, &req)
                   : MPI_Reduce(sb, c.out, n, dt, op, c.root, comm);
      break;
    }
    case Collective::bcast:
      fn = "MPI_Bcast";
      rc = !small  ? large::bcast(c.out, c.count, dt, c.root, comm, r)
           : timed ? MPI_Ibcast(c.out, n, dt, c.root, comm, &req)
                   : MPI_Bcast(c.out, n, dt, c.root, comm);
      break;
    case Collective::reduce_scatter:
      fn = "MPI_Reduce_scatter_block";
      rc = !small  ? large::reduce_scatter_block(sendbuf, c.out, c.count, dt, op, comm, r)
           : timed ? MPI_Ireduce_scatter_block(sendbuf, c.out, n, dt, op, comm, &req)
                   : MPI_Reduce_scatter_block(sendbuf, c.out, n, dt, op, comm);
      break;
    case Collective::allgather:
      fn = "MPI_Allgather";
      rc = !small  ? large::allgather(sendbuf, c.out, c.count, dt, comm, r)
           : timed ? MPI_Iallgather(sendbuf, n, dt, c.out, n, dt, comm, &req)
                   : MPI_Allgather(sendbuf, n, dt, c.out, n, dt, comm);
      break;
    case Collective::gather: {
      // MPI_IN_PLACE is the root's send buffer; the others pass their block.
      const void* sb = c.in_place && r != c.root ? c.in : sendbuf;
      fn = "MPI_Gather";
      rc = !small  ? large::gather(sb, c.out, c.count, dt, c.root, comm, r)
           : timed ? MPI_Igather(sb, n, dt, c.out, n, dt, c.root, comm, &req)
                   : MPI_Gather(sb, n, dt, c.out, n, dt, c.root, comm);
      break;
    }
    case Collective::scatter: {
      // MPI_IN_PLACE is the root's receive buffer; its one buffer is the send buffer.
      const bool root_in_place = c.in_place && r == c.root;
      const void* sb = root_in_place ? c.out : c.in;
      void* rb = root_in_place ? MPI_IN_PLACE : c.out;
      fn = "MPI_Scatter";
      rc = !small  ? large::scatter(sb, rb, c.count, dt, c.root, comm, r)
           : timed ? MPI_Iscatter(sb, n, dt, rb, n, dt, c.root, comm, &req)
                   : MPI_Scatter(sb, n, dt, rb, n, dt, c.root, comm);
      break;
    }
    case Collective::alltoall:
      fn = "MPI_Alltoall";
      rc = !small  ? large::alltoall(sendbuf, c.out, c.count, dt, comm, r)
           : timed ? MPI_Ialltoall(sendbuf, n, dt, c.out, n, dt, comm, &req)
                   : MPI_Alltoall(sendbuf, n, dt, c.out, n, dt, comm);
      break;
    case Collective::barrier:
      fn = "MPI_Barrier";
      rc = timed ? MPI_Ibarrier(comm, &req) : MPI_Barrier(comm);
      break;
    case Collective::gatherv:
    case Collective::scatterv:
    case Collective::allgatherv:
    case Collective::reduce_scatterv:
    case Collective::alltoallv: {
      fn = detail::native_v_function(c.collective);
      // MPICH's in-place reduce_scatter with overlapping moves (mpi_native_v.hpp): out of place
      // from a staged copy of the input.
      CollectiveCall out_of_place;
      const CollectiveCall* vc = &c;
      if (const std::size_t elems = detail::native_v_staging(c)) {
        const std::size_t bytes = elems * c.kernel.elem_size;
        staged = s_->scratch.acquire(bytes);
        std::memcpy(staged.data(), c.out, bytes);
        out_of_place = c;
        out_of_place.in = staged.data();
        out_of_place.in_place = false;
        vc = &out_of_place;
      }
      rc = detail::native_v(*vc, dt, op, comm, r, small, timed ? &req : nullptr, v_arrays);
      break;
    }
  }
  const auto what = [&] { return std::string(sched::to_string(c.collective)) + " (native)"; };
  if (rc != MPI_SUCCESS) mpi_check(rc, r, (what() + ": " + fn).c_str());
  if (!timed) return;
  bool done = false;
  try {
    done = wait_until_deadline(req, s_->timeout_s, s_->wait, r, "MPI_Test");
  } catch (const Error& e) {
    throw Error(r, what() + ": " + e.detail());
  }
  if (!done) {
    // A nonblocking collective can be neither cancelled nor freed: it stays with MPI, and the
    // staged scratch with it (deliberately leaked, never back to the pool).
    if (staged.data()) new engine::ScratchPool::Lease(std::move(staged));
    (void)v_arrays.release();
    s_->abandoned_collective = true;
    throw Error(r, what() + " did not complete within " + engine::format_seconds(s_->timeout_s) +
                       " (MPI does not say which rank is missing)");
  }
}

Request MpiBackend::native_iallreduce(const CollectiveCall& c,
                                      std::shared_ptr<void> keepalive) const {
  if (c.kernel.op == OpId::user)
    throw Error(s_->rank,
                "native iallreduce does not support user-defined ops (MPI would call the op "
                "during later progress); use a scheduled algorithm such as algo::Ring");
  auto p = State::pending(s_, "native iallreduce", -1);
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
