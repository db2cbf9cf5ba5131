// Errors found while completing cclx's own requests (MPI_Test, MPI_Testsome, ...) must come back
// as error codes. MPICH 4.0.2 raises them on MPI_COMM_WORLD's error handler, not on the handler
// of the request's communicator (which the backend sets to MPI_ERRORS_RETURN), so with the
// default MPI_ERRORS_ARE_FATAL a truncated message aborts the job. install_world_errhandler()
// puts a handler on MPI_COMM_WORLD that returns the code while cclx completes its requests (see
// CompletionScope) and passes every other error to the handler the application had (by default:
// abort, as before).
#include <mutex>

#include "mpi_check.hpp"

namespace cclx::detail {

thread_local int in_library_completion = 0;

namespace {

MPI_Comm previous_holder = MPI_COMM_NULL;  // a dup of MPI_COMM_SELF carrying the old handler

void world_handler(MPI_Comm*, int* code, ...) {
  if (in_library_completion > 0) return;  // MPI returns *code to cclx, which throws cclx::Error
  MPI_Comm_call_errhandler(previous_holder, *code);
}

}  // namespace

void install_world_errhandler() {
  static std::once_flag once;
  std::call_once(once, [] {
    MPI_Errhandler previous = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_get_errhandler(MPI_COMM_WORLD, &previous) != MPI_SUCCESS) return;
    if (previous == MPI_ERRORS_RETURN) {  // errors come back already
      MPI_Errhandler_free(&previous);
      return;
    }
    MPI_Errhandler mine = MPI_ERRHANDLER_NULL;
    if (MPI_Comm_dup(MPI_COMM_SELF, &previous_holder) != MPI_SUCCESS ||
        MPI_Comm_set_errhandler(previous_holder, previous) != MPI_SUCCESS ||
        MPI_Comm_create_errhandler(&world_handler, &mine) != MPI_SUCCESS)
      return;
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, mine);
    MPI_Errhandler_free(&mine);
    MPI_Errhandler_free(&previous);
  });
}

}  // namespace cclx::detail
