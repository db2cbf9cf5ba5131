// The three forms of every collective libcclx-mpi serves, for the shim tests: Allreduce(...)
// takes MPI_Allreduce's arguments and calls MPI_Allreduce, or MPI_Iallreduce then MPI_Wait, or
// MPI_Allreduce_init then MPI_Start, MPI_Wait and MPI_Request_free, as `form` says. The
// persistent form exists from MPI 4 (Open MPI 4.1 has none: there it runs the blocking one).
#pragma once

#include <mpi.h>

namespace shim_test {

enum class Form { blocking, nonblocking, persistent };
inline Form form = Form::blocking;

inline const char* form_name() {
  return form == Form::blocking      ? ""
         : form == Form::nonblocking ? " (nonblocking)"
                                     : " (persistent)";
}

inline constexpr bool have_persistent = MPI_VERSION >= 4;

// Completes a request just made by an I- or _init call.
inline int complete(int rc, MPI_Request& r, bool persistent) {
  if (rc != MPI_SUCCESS) return rc;
  if (persistent && (rc = MPI_Start(&r)) != MPI_SUCCESS) return rc;
  rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
  if (persistent && rc == MPI_SUCCESS) {
    if (r == MPI_REQUEST_NULL) return MPI_ERR_REQUEST;  // a persistent request stays allocated
    rc = MPI_Request_free(&r);
  } else if (!persistent && rc == MPI_SUCCESS && r != MPI_REQUEST_NULL) {
    return MPI_ERR_REQUEST;  // a completed nonblocking request is freed
  }
  return rc;
}

#define SHIM_TEST_EXPAND(...) __VA_ARGS__
#if MPI_VERSION >= 4
#define SHIM_TEST_INIT(NAME, ARGS, r) \
  complete(MPI_##NAME##_init(SHIM_TEST_EXPAND ARGS, MPI_INFO_NULL, &(r)), r, true)
#else
#define SHIM_TEST_INIT(NAME, ARGS, r) MPI_##NAME ARGS
#endif
#define SHIM_TEST_FORMS(NAME, INAME, PARAMS, ARGS)                         \
  inline int NAME PARAMS {                                                 \
    MPI_Request r = MPI_REQUEST_NULL;                                      \
    switch (form) {                                                        \
      case Form::blocking:                                                 \
        return MPI_##NAME ARGS;                                            \
      case Form::nonblocking:                                              \
        return complete(MPI_##INAME(SHIM_TEST_EXPAND ARGS, &r), r, false); \
      default:                                                             \
        return SHIM_TEST_INIT(NAME, ARGS, r);                              \
    }                                                                      \
  }

using Dt = MPI_Datatype;
SHIM_TEST_FORMS(Allreduce, Iallreduce,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, n, t, op, comm))
SHIM_TEST_FORMS(Reduce, Ireduce,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, int root, MPI_Comm comm),
                (sb, rb, n, t, op, root, comm))
SHIM_TEST_FORMS(Bcast, Ibcast, (void* b, int n, Dt t, int root, MPI_Comm comm),
                (b, n, t, root, comm))
SHIM_TEST_FORMS(Reduce_scatter_block, Ireduce_scatter_block,
                (const void* sb, void* rb, int n, Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, n, t, op, comm))
SHIM_TEST_FORMS(Allgather, Iallgather,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, comm))
SHIM_TEST_FORMS(Alltoall, Ialltoall,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, comm))
SHIM_TEST_FORMS(Gather, Igather,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, root, comm))
SHIM_TEST_FORMS(Scatter, Iscatter,
                (const void* sb, int sc, Dt st, void* rb, int rc, Dt rt, int root, MPI_Comm comm),
                (sb, sc, st, rb, rc, rt, root, comm))
SHIM_TEST_FORMS(Allgatherv, Iallgatherv,
                (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                 MPI_Comm comm),
                (sb, sc, st, rb, rcs, ds, rt, comm))
SHIM_TEST_FORMS(Reduce_scatter, Ireduce_scatter,
                (const void* sb, void* rb, const int rcs[], Dt t, MPI_Op op, MPI_Comm comm),
                (sb, rb, rcs, t, op, comm))
SHIM_TEST_FORMS(Alltoallv, Ialltoallv,
                (const void* sb, const int scs[], const int sds[], Dt st, void* rb, const int rcs[],
                 const int rds[], Dt rt, MPI_Comm comm),
                (sb, scs, sds, st, rb, rcs, rds, rt, comm))
SHIM_TEST_FORMS(Gatherv, Igatherv,
                (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                 int root, MPI_Comm comm),
                (sb, sc, st, rb, rcs, ds, rt, root, comm))
SHIM_TEST_FORMS(Scatterv, Iscatterv,
                (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                 int root, MPI_Comm comm),
                (sb, scs, ds, st, rb, rc, rt, root, comm))
SHIM_TEST_FORMS(Barrier, Ibarrier, (MPI_Comm comm), (comm))

}  // namespace shim_test
