// Turns an MPI error code into a cclx::Error naming the call and the rank (backend-internal).
#pragma once

#include <mpi.h>

#include <string>

#include "cclx/error.hpp"

namespace cclx::detail {

// > 0 while cclx completes its own requests: MPI errors raised on MPI_COMM_WORLD's handler then
// come back as codes (mpi_errhandler.cpp).
extern thread_local int in_library_completion;
struct CompletionScope {
  CompletionScope() { ++in_library_completion; }
  ~CompletionScope() { --in_library_completion; }
  CompletionScope(const CompletionScope&) = delete;
  CompletionScope& operator=(const CompletionScope&) = delete;
};
// Once per process, from the first backend's constructor.
void install_world_errhandler();

inline void mpi_check(int rc, int rank, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw Error(rank,
              std::string(what) + " failed: " + std::string(msg, static_cast<std::size_t>(len)));
}

}  // namespace cclx::detail
