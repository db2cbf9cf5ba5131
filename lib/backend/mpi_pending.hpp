// A Request's pending MPI operation (backend-internal).
#pragma once

#include <mpi.h>

#include <memory>

#include "cclx/request.hpp"
#include "mpi_check.hpp"

namespace cclx::detail {

struct MpiPending final : PendingOp {
  MPI_Request req = MPI_REQUEST_NULL;
  std::shared_ptr<void> keepalive;
  int rank = 0;
  bool test() override {
    int flag = 0;
    mpi_check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), rank, "MPI_Test");
    return flag != 0;
  }
  void wait() override { mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), rank, "MPI_Wait"); }
};

}  // namespace cclx::detail
