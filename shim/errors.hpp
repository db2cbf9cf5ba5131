// cclx::Error (and any other exception) must not cross into C: it becomes an MPI error code,
// raised on the application's communicator as MPI would raise its own.
#pragma once

#include <mpi.h>

#include <string_view>

namespace cclx::shim {

// A code of an error class of this library's own (MPI_Add_error_class) whose MPI_Error_string is
// `message`; invokes `comm`'s error handler with it (MPI_Comm_call_errhandler: with
// MPI_ERRORS_ARE_FATAL the job aborts printing the message, with MPI_ERRORS_RETURN or a handler
// that returns, the call returns the code). A small set of codes is reused, their strings
// replaced, so an old code's string may name a later error.
int raise_error(MPI_Comm comm, std::string_view message);

}  // namespace cclx::shim
