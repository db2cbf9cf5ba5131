// The v-collectives' MPI calls (MPI_Gatherv, MPI_Scatterv, MPI_Allgatherv, MPI_Reduce_scatter,
// MPI_Alltoallv) for MpiBackend::native() (backend-internal). MPI wants int counts and
// displacements (packed ones are computed); beyond INT_MAX the MPI-4 large-count functions
// (MPI_*_c) where the MPI has them, else a cclx::Error saying so.
#pragma once

#include <mpi.h>

#include <memory>
#include <vector>

#include "cclx/collective_call.hpp"

namespace cclx::detail {

// The int arrays of a nonblocking call, which MPI reads until it completes.
struct NativeVArrays {
  std::vector<int> in_counts, out_counts, in_displs, out_displs;
};

// Whether every count and displacement of `c` fits MPI's int.
[[nodiscard]] bool native_v_fits_int(const CollectiveCall& c);

// MPICH 4.0.2 moves an in-place MPI_Reduce_scatter's result to the buffer's start with memcpy,
// which aborts ("memcpy argument memory ranges overlap", yaksa) when a rank's block starts before
// it ends, 0 < counts[0] + ... + counts[r-1] < counts[r] (from about 50000 doubles on, where it
// switches to the pairwise algorithm). Every rank then stages its input and calls out of place
// (the counts are the same everywhere, so all ranks decide alike, as MPI_IN_PLACE requires). The
// elements to stage, or 0.
[[nodiscard]] std::size_t native_v_staging(const CollectiveCall& c);

// The MPI function native_v() calls for `c` (for messages).
[[nodiscard]] const char* native_v_function(sched::Collective c);

// Runs the MPI collective of v-collective `c` (`small`: native_v_fits_int(c)), or with `req`
// starts its nonblocking form (small only) with its arrays in `keep`. `sendbuf` is MPI_IN_PLACE
// for in-place calls. Returns MPI's error code.
int native_v(const CollectiveCall& c, MPI_Datatype dt, MPI_Op op, MPI_Comm comm, int rank,
             bool small, MPI_Request* req, std::unique_ptr<NativeVArrays>& keep);

}  // namespace cclx::detail
