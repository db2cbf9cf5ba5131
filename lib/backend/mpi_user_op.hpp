// User-defined ops reach MPI through one trampoline (backend-internal).
#pragma once

#include <mpi.h>

#include "cclx/ops.hpp"

namespace cclx::detail {

// The kernel of the native call in progress on this thread (blocking native calls only run one
// op at a time per thread).
extern thread_local const ReduceKernel* current_user_kernel;

void user_op_trampoline(void* invec, void* inoutvec, int* len, MPI_Datatype*);

}  // namespace cclx::detail
