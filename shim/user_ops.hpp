// User-defined MPI ops. MPI has no call that returns an op's function, so MPI_Op_create and
// MPI_Op_free are intercepted to remember it; a reduction with a remembered op on a predefined
// type runs cclx's algorithms with a kernel that calls the application's function.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <optional>

#include "cclx/ops.hpp"

namespace cclx::shim {

struct UserOp {
  MPI_User_function* fn = nullptr;
  bool commutative = false;
};

void remember_user_op(MPI_Op op, MPI_User_function* fn, bool commutative);
void forget_user_op(MPI_Op op);
// nullopt: not created through this library's MPI_Op_create (e.g. before it was loaded, or by
// MPI_Op_create_c), so it cannot be applied outside MPI.
[[nodiscard]] std::optional<UserOp> find_user_op(MPI_Op op);

// What the kernel below needs; must outlive the call that uses the kernel.
struct UserOpContext {
  UserOp op;
  MPI_Datatype type = MPI_DATATYPE_NULL;  // the application's, handed to its function
  std::size_t elem_size = 0;              // of `type`
};

// cclx's kernel (dst = a (+) b, a from lower ranks) over MPI's convention (the function computes
// inoutvec[i] = invec[i] (+) inoutvec[i], invec from lower ranks).
[[nodiscard]] ReduceKernel user_kernel(const UserOpContext& ctx);

}  // namespace cclx::shim
