// MPI_Init/MPI_Finalize and the calls whose effect the library must follow: communicators freed
// (their Communicators are destroyed), user-defined ops created and freed.
#include <mpi.h>

#include <cstdio>

#include "comm_cache.hpp"
#include "errors.hpp"
#include "guard.hpp"
#include "policy.hpp"
#include "report.hpp"
#include "requests.hpp"
#include "user_ops.hpp"

namespace cclx::shim {

thread_local int depth = 0;

namespace {

// A bad CCLX_ALGO (CCLX_LOG, CCLX_VALIDATE, CCLX_NET_*) fails the job at MPI_Init, through
// MPI_COMM_WORLD's error handler (by default fatal: MPI prints the message and aborts), rather than
// silently running without it. The message goes to stderr first: Open MPI 4.1's mpiexec loses the
// fatal handler's print now and then (its show_help reports "Out of resource" instead).
int after_init(int rc) {
  if (rc != MPI_SUCCESS) return rc;
  const Inside in;
  const Config& c = config();
  if (c.error.empty()) return rc;
  int rank = 0;
  PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
  std::fprintf(stderr, "libcclx-mpi: rank %d: %s\n", rank, c.error.c_str());
  std::fflush(stderr);
  return raise_error(MPI_COMM_WORLD, "libcclx-mpi: " + c.error);
}

}  // namespace

}  // namespace cclx::shim

using namespace cclx;

extern "C" {

int MPI_Init(int* argc, char*** argv) {
  const int rc = PMPI_Init(argc, argv);
  return shim::inside() ? rc : shim::after_init(rc);
}

int MPI_Init_thread(int* argc, char*** argv, int required, int* provided) {
  const int rc = PMPI_Init_thread(argc, argv, required, provided);
  return shim::inside() ? rc : shim::after_init(rc);
}

int MPI_Finalize() {
  if (!shim::inside()) {
    const shim::Inside in;
    shim::release_requests();  // before the report: freed requests may still fail
    shim::write_report();
    shim::release_all();  // cclx's objects go before MPI does
  }
  return PMPI_Finalize();
}

int MPI_Comm_free(MPI_Comm* comm) {
  const int rc = PMPI_Comm_free(comm);  // runs the cache's delete callback
  if (!shim::inside()) shim::destroy_retired();
  return rc;
}

int MPI_Comm_disconnect(MPI_Comm* comm) {
  const int rc = PMPI_Comm_disconnect(comm);
  if (!shim::inside()) shim::destroy_retired();
  return rc;
}

int MPI_Op_create(MPI_User_function* fn, int commute, MPI_Op* op) {
  const int rc = PMPI_Op_create(fn, commute, op);
  if (rc == MPI_SUCCESS && !shim::inside()) shim::remember_user_op(*op, fn, commute != 0);
  return rc;
}

int MPI_Op_free(MPI_Op* op) {
  if (op && !shim::inside()) shim::forget_user_op(*op);  // MPI may reuse the handle
  return PMPI_Op_free(op);
}

}  // extern "C"
