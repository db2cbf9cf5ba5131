// The cclx::Communicator behind each application communicator, cached on it as an MPI attribute:
// the standard way, because MPI calls the attribute's delete callback when the application frees
// the communicator, so a handle that MPI hands out again later never finds a stale entry. The
// attribute is not copied by MPI_Comm_dup (a duplicate gets its own Communicator).
//
// Thread safety (MPI_THREAD_MULTIPLE): lookups are MPI attribute reads; the registry of live
// entries (for MPI_Finalize) has a mutex, which is never held across an MPI call that
// communicates. Collectives on one communicator from several threads at once are erroneous in
// MPI and are so here too.
#pragma once

#include <mpi.h>

#include <atomic>
#include <memory>

#include "cclx/communicator.hpp"

namespace cclx::shim {

struct CommEntry {
  MPI_Comm user = MPI_COMM_NULL;  // the application's handle
  bool inter = false;             // an intercommunicator: always passed through, no Communicator
  // Shared with the requests pending on it: the application may free its communicator while a
  // nonblocking collective on it is pending (MPI allows it); the Communicator goes with the last.
  std::shared_ptr<Communicator<>> comm;
  // Set once the application freed `user` (for the requests that outlive it).
  std::shared_ptr<std::atomic<bool>> freed = std::make_shared<std::atomic<bool>>(false);
};

// What a call needs to know about its communicator before deciding anything.
struct CommView {
  bool valid = false;  // false: MPI_COMM_NULL or a handle MPI rejects (MPI reports the error)
  bool inter = false;
  int rank = 0, size = 1;
  CommEntry* entry = nullptr;  // the cached entry, if any
};

// Local: an attribute lookup, or MPI_Comm_test_inter/rank/size for a communicator seen first.
[[nodiscard]] CommView view(MPI_Comm comm);

// The cached Communicator of intracommunicator `comm`; the first call for a communicator
// constructs it, which duplicates `comm` (collective: every rank must get here in the same call).
// Throws cclx::Error. Destroyed (its duplicates freed) when the last of the entry and the
// requests that hold it lets go, always with the library's MPI calls going straight to MPI.
const std::shared_ptr<Communicator<>>& communicator(MPI_Comm comm, CommView& v);

// Destroys the Communicators of communicators the application freed. The delete callback only
// retires them: freeing their duplicates from inside MPI's own MPI_Comm_free is avoided.
void destroy_retired();

// A private duplicate of MPI_COMM_SELF (created on first use) for local copies that let MPI
// convert between datatypes; its messages never meet the application's.
MPI_Comm self_comm();

// Before MPI_Finalize: drops every entry, the keyval and self_comm().
void release_all();

}  // namespace cclx::shim
