// Collectives the library intercepts but passes through by design: MPI_Gatherv and MPI_Scatterv
// in every form. Their counts and displacements are significant at the root only (MPI 4.0,
// 6.5 and 6.6), and cclx needs every rank's counts on every rank (a scheduled algorithm's
// non-roots relay blocks of other ranks; cclx's checks and CCLX_VALIDATE compare them). The
// other ranks cannot know them without an extra message, and the library does not invent them.
// They are counted in the report with that reason and handed to MPI unchanged.
#include <mpi.h>

#include "call.hpp"

namespace {
constexpr const char* root_only =
    "counts significant at the root only (MPI): cclx needs them on every rank";
}  // namespace

// NAME's wrapper: counts the call as LABEL, then calls PMPI_NAME.
#define CCLX_SHIM_PASS(NAME, LABEL, PARAMS, ARGS)                        \
  int MPI_##NAME PARAMS {                                                \
    if (!cclx::shim::inside()) cclx::shim::not_served(LABEL, root_only); \
    return PMPI_##NAME ARGS;                                             \
  }

using Dt = MPI_Datatype;
using Req = MPI_Request;

extern "C" {

CCLX_SHIM_PASS(Gatherv, "gatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm),
               (sb, sc, st, rb, rcs, ds, rt, root, comm))
CCLX_SHIM_PASS(Scatterv, "scatterv",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm),
               (sb, scs, ds, st, rb, rc, rt, root, comm))
CCLX_SHIM_PASS(Igatherv, "igatherv",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, root, comm, r))
CCLX_SHIM_PASS(Iscatterv, "iscatterv",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm, Req* r),
               (sb, scs, ds, st, rb, rc, rt, root, comm, r))
#if MPI_VERSION >= 4
CCLX_SHIM_PASS(Gatherv_init, "gatherv_init",
               (const void* sb, int sc, Dt st, void* rb, const int rcs[], const int ds[], Dt rt,
                int root, MPI_Comm comm, MPI_Info i, Req* r),
               (sb, sc, st, rb, rcs, ds, rt, root, comm, i, r))
CCLX_SHIM_PASS(Scatterv_init, "scatterv_init",
               (const void* sb, const int scs[], const int ds[], Dt st, void* rb, int rc, Dt rt,
                int root, MPI_Comm comm, MPI_Info i, Req* r),
               (sb, scs, ds, st, rb, rc, rt, root, comm, i, r))
#endif

}  // extern "C"
