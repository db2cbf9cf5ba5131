// Collectives the library intercepts but does not serve yet: variable-count, nonblocking and
// persistent forms. They are counted in the report ("not served yet") and handed to MPI unchanged.
// Serving one is a wrapper in intercept.cpp's style once the Communicator has the collective
// (nonblocking and persistent forms also need MPI_Request completion hooks; docs/preload.md).
#include <mpi.h>

#include "call.hpp"

// NAME's wrapper: counts the call as LABEL, then calls PMPI_NAME.
#define CCLX_SHIM_PASS(NAME, LABEL, PARAMS, ARGS)             \
  int MPI_##NAME PARAMS {                                     \
    if (!cclx::shim::inside()) cclx::shim::not_served(LABEL); \
    return PMPI_##NAME ARGS;                                  \
  }

using Dt = MPI_Datatype;
using Req = MPI_Request;

extern "C" {

// ---- variable-count ----
CCLX_SHIM_PASS(Gatherv, "gatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm),
               (sb, sc, st, rb, rcs, ds, rt, root, comm))
CCLX_SHIM_PASS(Scatterv, "scatterv",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm),
               (sb, scs, ds, st, rb, rc, rt, root, comm))
CCLX_SHIM_PASS(Allgatherv, "allgatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                MPI_Comm comm),
               (sb, sc, st, rb, rcs, ds, rt, comm))
CCLX_SHIM_PASS(Alltoallv, "alltoallv",
               (const void* sb, const int scs[], const int sds[], Dt st, void* rb, const int rcs[],
                const int rds[], Dt rt, MPI_Comm comm),
               (sb, scs, sds, st, rb, rcs, rds, rt, comm))
CCLX_SHIM_PASS(Reduce_scatter, "reduce_scatterv",
               (const void* sb, void* rb, const int rcs[], Dt t, MPI_Op op, MPI_Comm comm),
               (sb, rb, rcs, t, op, comm))

// ---- nonblocking ----
CCLX_SHIM_PASS(Ibarrier, "ibarrier", (MPI_Comm comm, Req* r), (comm, r))
CCLX_SHIM_PASS(Ibcast, "ibcast", (void* b, int n, Dt t, int root, MPI_Comm comm, Req* r),
               (b, n, t, root, comm, r))
CCLX_SHIM_PASS(Iallreduce, "iallreduce",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm, Req* r),
               (sb, rb, n, t, op, comm, r))
CCLX_SHIM_PASS(Ireduce, "ireduce",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, int root, MPI_Comm comm, Req* r),
               (sb, rb, n, t, op, root, comm, r))
CCLX_SHIM_PASS(Ireduce_scatter_block, "ireduce_scatter",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm, Req* r),
               (sb, rb, n, t, op, comm, r))
CCLX_SHIM_PASS(Ireduce_scatter, "ireduce_scatterv",
               (const void* sb, void* rb, const int rcs[], Dt t, MPI_Op op, MPI_Comm comm, Req* r),
               (sb, rb, rcs, t, op, comm, r))
CCLX_SHIM_PASS(Iallgather, "iallgather",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm, Req* r),
               (sb, sc, st, rb, rc, rt, comm, r))
CCLX_SHIM_PASS(Iallgatherv, "iallgatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                MPI_Comm comm, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, comm, r))
CCLX_SHIM_PASS(Ialltoall, "ialltoall",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm, Req* r),
               (sb, sc, st, rb, rc, rt, comm, r))
CCLX_SHIM_PASS(Ialltoallv, "ialltoallv",
               (const void* sb, const int scs[], const int sds[], Dt st, void* rb, const int rcs[],
                const int rds[], Dt rt, MPI_Comm comm, Req* r),
               (sb, scs, sds, st, rb, rcs, rds, rt, comm, r))
CCLX_SHIM_PASS(Igather, "igather",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm,
                Req* r),
               (sb, sc, st, rb, rc, rt, root, comm, r))
CCLX_SHIM_PASS(Igatherv, "igatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, root, comm, r))
CCLX_SHIM_PASS(Iscatter, "iscatter",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm,
                Req* r),
               (sb, sc, st, rb, rc, rt, root, comm, r))
CCLX_SHIM_PASS(Iscatterv, "iscatterv",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm, Req* r),
               (sb, scs, ds, st, rb, rc, rt, root, comm, r))

// ---- persistent (MPI 4; Open MPI 4.1 has none) ----
#if MPI_VERSION >= 4
CCLX_SHIM_PASS(Barrier_init, "barrier_init", (MPI_Comm comm, MPI_Info i, Req* r), (comm, i, r))
CCLX_SHIM_PASS(Bcast_init, "bcast_init",
               (void* b, int n, Dt t, int root, MPI_Comm comm, MPI_Info i, Req* r),
               (b, n, t, root, comm, i, r))
CCLX_SHIM_PASS(Allreduce_init, "allreduce_init",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm, MPI_Info i,
                Req* r),
               (sb, rb, n, t, op, comm, i, r))
CCLX_SHIM_PASS(Reduce_init, "reduce_init",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, int root, MPI_Comm comm,
                MPI_Info i, Req* r),
               (sb, rb, n, t, op, root, comm, i, r))
CCLX_SHIM_PASS(Reduce_scatter_block_init, "reduce_scatter_init",
               (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm, MPI_Info i,
                Req* r),
               (sb, rb, n, t, op, comm, i, r))
CCLX_SHIM_PASS(Reduce_scatter_init, "reduce_scatterv_init",
               (const void* sb, void* rb, const int rcs[], Dt t, MPI_Op op, MPI_Comm comm,
                MPI_Info i, Req* r),
               (sb, rb, rcs, t, op, comm, i, r))
CCLX_SHIM_PASS(Allgather_init, "allgather_init",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm, MPI_Info i,
                Req* r),
               (sb, sc, st, rb, rc, rt, comm, i, r))
CCLX_SHIM_PASS(Allgatherv_init, "allgatherv_init",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                MPI_Comm comm, MPI_Info i, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, comm, i, r))
CCLX_SHIM_PASS(Alltoall_init, "alltoall_init",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm, MPI_Info i,
                Req* r),
               (sb, sc, st, rb, rc, rt, comm, i, r))
CCLX_SHIM_PASS(Alltoallv_init, "alltoallv_init",
               (const void* sb, const int scs[], const int sds[], Dt st, void* rb, const int rcs[],
                const int rds[], Dt rt, MPI_Comm comm, MPI_Info i, Req* r),
               (sb, scs, sds, st, rb, rcs, rds, rt, comm, i, r))
CCLX_SHIM_PASS(Gather_init, "gather_init",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm,
                MPI_Info i, Req* r),
               (sb, sc, st, rb, rc, rt, root, comm, i, r))
CCLX_SHIM_PASS(Gatherv_init, "gatherv_init",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm, MPI_Info i, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, root, comm, i, r))
CCLX_SHIM_PASS(Scatter_init, "scatter_init",
               (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm,
                MPI_Info i, Req* r),
               (sb, sc, st, rb, rc, rt, root, comm, i, r))
CCLX_SHIM_PASS(Scatterv_init, "scatterv_init",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm, MPI_Info i, Req* r),
               (sb, scs, ds, st, rb, rc, rt, root, comm, i, r))
#endif

}  // extern "C"
