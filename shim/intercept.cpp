// The MPI collectives libcclx-mpi serves, each in its blocking, nonblocking (MPI_I*) and
// persistent (MPI_*_init, MPI 4) form. Each collective's description states MPI's semantics of
// its arguments (which are significant on which rank, what MPI_IN_PLACE means) once, for all three
// forms, and leaves the rest to shim::Call; anything it cannot serve exactly goes to the PMPI_
// function unchanged. The requests of the other two forms: requests.hpp.
#include <mpi.h>

#include "call.hpp"

using cclx::sched::Collective;
using cclx::shim::Call;
using cclx::shim::Form;
using cclx::shim::spanned;
using Dt = MPI_Datatype;

namespace {

void* in_place(const void* p) {
  return const_cast<void*>(p);  // MPI passes the in-place buffer as const where it is sendbuf
}

template <class Describe, class Pass>
int serve(Collective coll, MPI_Comm comm, Form form, MPI_Request* request, Describe&& describe,
          Pass&& pass) {
  if (cclx::shim::inside()) return pass();
  Call c(coll, comm, form, request);
  describe(c);
  return c.finish(pass);
}

using Side = Call::Side;

void allreduce(Call& c, const void* sendbuf, void* recvbuf, int count, Dt type, MPI_Op op) {
  c.reduction(type, count, op);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  const bool ip = sendbuf == MPI_IN_PLACE;
  c.buffers(ip ? recvbuf : sendbuf, recvbuf, ip, 1, 1);
}

// The root's MPI_IN_PLACE reduces into recvbuf; elsewhere recvbuf is not significant.
void reduce(Call& c, const void* sendbuf, void* recvbuf, int count, Dt type, MPI_Op op, int root) {
  c.root(root);
  c.reduction(type, count, op);
  if (c.ok() && c.is_root()) {
    const bool ip = sendbuf == MPI_IN_PLACE;
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    c.buffers(ip ? recvbuf : sendbuf, recvbuf, ip, 1, 1);
  } else {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    c.buffers(sendbuf, nullptr, false, 1, 0);
  }
}

// One buffer, the root's input and the others' output: described as in place.
void bcast(Call& c, void* buffer, int count, Dt type, int root) {
  c.root(root);
  c.side(Side::receive, type, count);
  c.buffers(buffer, buffer, true, 1, 1);
}

// In place, recvbuf holds all n blocks of the input and the result goes to its first block.
void reduce_scatter_block(Call& c, const void* sendbuf, void* recvbuf, int recvcount, Dt type,
                          MPI_Op op) {
  c.reduction(type, recvcount, op);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  if (sendbuf == MPI_IN_PLACE) {
    c.buffers(recvbuf, recvbuf, true, c.size(), c.size());
    c.result(static_cast<std::size_t>(recvcount));
  } else {
    c.buffers(sendbuf, recvbuf, false, c.size(), 1);
  }
}

// Allgather (one input block) and alltoall (n input blocks): every rank receives n blocks. In
// place, sendcount and sendtype are ignored and recvbuf holds the input: allgather's own block
// already at its place, alltoall's n blocks.
void to_every_rank(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf,
                   int recvcount, Dt recvtype, std::size_t send_blocks) {
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  c.side(Side::receive, recvtype, recvcount);
  if (sendbuf == MPI_IN_PLACE) {
    c.buffers(recvbuf, recvbuf, true, c.size(), c.size());
  } else {
    c.side(Side::send, sendtype, sendcount);
    c.buffers(sendbuf, recvbuf, false, send_blocks, c.size());
  }
}

void allgather(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf,
               int recvcount, Dt recvtype) {
  to_every_rank(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, 1);
}

void alltoall(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf,
              int recvcount, Dt recvtype) {
  to_every_rank(c, sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, c.size());
}

// The receive arguments are significant at the root only; MPI_IN_PLACE is the root's sendbuf, its
// own block then already at its place in recvbuf.
void gather(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf, int recvcount,
            Dt recvtype, int root) {
  c.root(root);
  if (c.ok() && c.is_root()) {
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    c.side(Side::receive, recvtype, recvcount);
    if (sendbuf == MPI_IN_PLACE) {
      c.buffers(recvbuf, recvbuf, true, c.size(), c.size());
    } else {
      c.side(Side::send, sendtype, sendcount);
      c.buffers(sendbuf, recvbuf, false, 1, c.size());
    }
  } else {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    c.side(Side::send, sendtype, sendcount);
    c.buffers(sendbuf, nullptr, false, 1, 0);
  }
}

// The send arguments are significant at the root only; MPI_IN_PLACE is the root's recvbuf, its
// own block then staying at its place in sendbuf (input only: nothing is written back).
void scatter(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf, int recvcount,
             Dt recvtype, int root) {
  c.root(root);
  if (c.ok() && c.is_root()) {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    c.side(Side::send, sendtype, sendcount);
    if (recvbuf == MPI_IN_PLACE) {
      c.buffers(sendbuf, in_place(sendbuf), true, c.size(), c.size());
      c.result(0);
    } else {
      c.side(Side::receive, recvtype, recvcount);
      c.buffers(sendbuf, recvbuf, false, c.size(), 1);
    }
  } else {
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    c.side(Side::receive, recvtype, recvcount);
    c.buffers(nullptr, recvbuf, false, 0, 1);
  }
}

// recvcounts, displs and recvtype are significant on every rank. In place, sendcount and sendtype
// are ignored and this rank's block is already at displs[rank].
void allgatherv(Call& c, const void* sendbuf, int sendcount, Dt sendtype, void* recvbuf,
                const int recvcounts[], const int displs[], Dt recvtype) {
  if (recvbuf == MPI_IN_PLACE || displs == nullptr) c.invalid();
  c.side(Side::receive, recvtype, 1);
  c.counts(Side::receive, recvcounts, displs);
  if (!c.ok()) return;
  const std::size_t out = spanned(c.size(), recvcounts, displs);
  if (sendbuf == MPI_IN_PLACE) {
    c.buffers(recvbuf, recvbuf, true, out, out);
  } else {
    c.side(Side::send, sendtype, 1);
    c.buffers(sendbuf, recvbuf, false, static_cast<std::size_t>(sendcount), out);
  }
}

// MPI_Reduce_scatter: recvcounts is significant (and the same) on every rank; the input is the n
// blocks packed. In place, recvbuf holds the input and the result goes to its first
// recvcounts[rank] elements.
void reduce_scatterv(Call& c, const void* sendbuf, void* recvbuf, const int recvcounts[], Dt type,
                     MPI_Op op) {
  c.reduction(type, 1, op);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  c.counts(Side::receive, recvcounts, nullptr);
  if (!c.ok()) return;
  const std::size_t all = spanned(c.size(), recvcounts, nullptr);
  const auto mine = static_cast<std::size_t>(recvcounts[c.rank()]);
  if (sendbuf == MPI_IN_PLACE) {
    c.buffers(recvbuf, recvbuf, true, all, all);
    c.result(mine);
  } else {
    c.buffers(sendbuf, recvbuf, false, all, mine);
  }
}

// Each rank's counts and displacements are its own. In place, sendcounts, sdispls and sendtype
// are ignored and recvbuf (recvcounts, rdispls) holds the input blocks.
void alltoallv(Call& c, const void* sendbuf, const int sendcounts[], const int sdispls[],
               Dt sendtype, void* recvbuf, const int recvcounts[], const int rdispls[],
               Dt recvtype) {
  if (recvbuf == MPI_IN_PLACE || rdispls == nullptr) c.invalid();
  c.side(Side::receive, recvtype, 1);
  c.counts(Side::receive, recvcounts, rdispls);
  const std::size_t out = c.ok() ? spanned(c.size(), recvcounts, rdispls) : 0;
  if (sendbuf == MPI_IN_PLACE) {
    c.buffers(recvbuf, recvbuf, true, out, out);
  } else {
    if (sdispls == nullptr || sendcounts == nullptr) c.invalid();
    c.side(Side::send, sendtype, 1);
    c.counts(Side::send, sendcounts, sdispls);
    if (!c.ok()) return;
    c.buffers(sendbuf, recvbuf, false, spanned(c.size(), sendcounts, sdispls), out);
  }
}

void barrier(Call& c) {
  c.side(Side::receive, MPI_BYTE, 0);
  c.buffers(nullptr, nullptr, false, 0, 0);
}

}  // namespace

#define CCLX_EXPAND(...) __VA_ARGS__

// The three forms of one collective: NAME (blocking), INAME (nonblocking) and NAME_init
// (persistent, MPI 4). PARAMS and ARGS are the blocking form's, parenthesized; DESCRIBE states
// the call on `c`.
#define CCLX_SHIM_BLOCKING(NAME, COLL, PARAMS, ARGS, DESCRIBE)           \
  int MPI_##NAME PARAMS {                                                \
    return serve(                                                        \
        COLL, comm, Form::blocking, nullptr, [&](Call& c) { DESCRIBE; }, \
        [&] { return PMPI_##NAME ARGS; });                               \
  }
#define CCLX_SHIM_NONBLOCKING(INAME, COLL, PARAMS, ARGS, DESCRIBE)          \
  int MPI_##INAME(CCLX_EXPAND PARAMS, MPI_Request* request) {               \
    return serve(                                                           \
        COLL, comm, Form::nonblocking, request, [&](Call& c) { DESCRIBE; }, \
        [&] { return PMPI_##INAME(CCLX_EXPAND ARGS, request); });           \
  }
#if MPI_VERSION >= 4
#define CCLX_SHIM_PERSISTENT(NAME, COLL, PARAMS, ARGS, DESCRIBE)                   \
  int MPI_##NAME##_init(CCLX_EXPAND PARAMS, MPI_Info info, MPI_Request* request) { \
    return serve(                                                                  \
        COLL, comm, Form::persistent, request, [&](Call& c) { DESCRIBE; },         \
        [&] { return PMPI_##NAME##_init(CCLX_EXPAND ARGS, info, request); });      \
  }
#else
#define CCLX_SHIM_PERSISTENT(NAME, COLL, PARAMS, ARGS, DESCRIBE)
#endif
#define CCLX_SHIM_FORMS(NAME, INAME, COLL, PARAMS, ARGS, DESCRIBE) \
  CCLX_SHIM_BLOCKING(NAME, COLL, PARAMS, ARGS, DESCRIBE)           \
  CCLX_SHIM_NONBLOCKING(INAME, COLL, PARAMS, ARGS, DESCRIBE)       \
  CCLX_SHIM_PERSISTENT(NAME, COLL, PARAMS, ARGS, DESCRIBE)

extern "C" {

CCLX_SHIM_FORMS(Allreduce, Iallreduce, Collective::allreduce,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, n, t, op, comm), allreduce(c, sb, rb, n, t, op))
CCLX_SHIM_FORMS(Reduce, Ireduce, Collective::reduce,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, int root, MPI_Comm comm),
                (sb, rb, n, t, op, root, comm), reduce(c, sb, rb, n, t, op, root))
CCLX_SHIM_FORMS(Bcast, Ibcast, Collective::bcast, (void* b, int n, Dt t, int root, MPI_Comm comm),
                (b, n, t, root, comm), bcast(c, b, n, t, root))
CCLX_SHIM_FORMS(Reduce_scatter_block, Ireduce_scatter_block, Collective::reduce_scatter,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, n, t, op, comm), reduce_scatter_block(c, sb, rb, n, t, op))
CCLX_SHIM_FORMS(Allgather, Iallgather, Collective::allgather,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, comm), allgather(c, sb, sc, st, rb, rc, rt))
CCLX_SHIM_FORMS(Alltoall, Ialltoall, Collective::alltoall,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, comm), alltoall(c, sb, sc, st, rb, rc, rt))
CCLX_SHIM_FORMS(Gather, Igather, Collective::gather,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, root, comm), gather(c, sb, sc, st, rb, rc, rt, root))
CCLX_SHIM_FORMS(Scatter, Iscatter, Collective::scatter,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, root, comm), scatter(c, sb, sc, st, rb, rc, rt, root))
CCLX_SHIM_FORMS(Allgatherv, Iallgatherv, Collective::allgatherv,
                (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                 MPI_Comm comm),
                (sb, sc, st, rb, rcs, ds, rt, comm), allgatherv(c, sb, sc, st, rb, rcs, ds, rt))
CCLX_SHIM_FORMS(Reduce_scatter, Ireduce_scatter, Collective::reduce_scatterv,
                (const void* sb, void* rb, const int rcs[], Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, rcs, t, op, comm), reduce_scatterv(c, sb, rb, rcs, t, op))
CCLX_SHIM_FORMS(Alltoallv, Ialltoallv, Collective::alltoallv,
                (const void* sb, const int scs[], const int sds[], Dt st, void* rb, const int rcs[],
                 const int rds[], Dt rt, MPI_Comm comm),
                (sb, scs, sds, st, rb, rcs, rds, rt, comm),
                alltoallv(c, sb, scs, sds, st, rb, rcs, rds, rt))
CCLX_SHIM_FORMS(Barrier, Ibarrier, Collective::barrier, (MPI_Comm comm), (comm), barrier(c))

}  // extern "C"
