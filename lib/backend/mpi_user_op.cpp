#include "mpi_user_op.hpp"

#include <cstddef>

namespace cclx::detail {

thread_local const ReduceKernel* current_user_kernel = nullptr;

void user_op_trampoline(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  // MPI: inoutvec = invec (+) inoutvec, invec holding the lower ranks' contribution.
  (*current_user_kernel)(inoutvec, invec, inoutvec, static_cast<std::size_t>(*len));
}

}  // namespace cclx::detail
