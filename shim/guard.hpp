// Re-entrancy. cclx's own MPI calls (MPI_Comm_dup, native MPI_Allreduce, CCLX_VALIDATE's
// MPI_Allgather, ...) resolve to this library's MPI_* symbols as well; while the library serves a
// call they must go straight to the MPI library. The depth is per thread, so under
// MPI_THREAD_MULTIPLE another thread's application calls are still served.
#pragma once

namespace cclx::shim {

extern thread_local int depth;

[[nodiscard]] inline bool inside() {
  return depth > 0;
}

struct Inside {
  Inside() { ++depth; }
  ~Inside() { --depth; }
  Inside(const Inside&) = delete;
  Inside& operator=(const Inside&) = delete;
};

}  // namespace cclx::shim
