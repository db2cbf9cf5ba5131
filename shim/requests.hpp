// The MPI_Request of a served nonblocking (MPI_I*) or persistent (MPI_*_init) collective, and the
// completion calls that must understand it (docs/preload.md, "Requests").
//
// The handle the application gets is a generalized request (MPI_Grequest_start): a real MPI
// handle, unique while the library keeps it, that no other request can alias. The library keeps
// a table from these handles to cclx's requests and intercepts every call that completes, starts
// or frees requests (MPI_Wait, MPI_Test, their -all, -any and -some forms, MPI_Request_get_status,
// MPI_Start, MPI_Startall, MPI_Request_free): handles in the table are served from it, all others
// go to MPI unchanged, in one PMPI call where the application passed several. cclx's scheduled
// requests progress only inside their own test() and wait(), so every wait in the library tests
// every pending cclx request of the process, not only the ones waited for.
#pragma once

#include <mpi.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cclx/persistent.hpp"
#include "cclx/request.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::shim {

enum class Form : std::uint8_t { blocking, nonblocking, persistent };

// The report's name of `c` in form `f`: "allreduce", "iallreduce", "allreduce_init"
// (reduce_scatterv is MPI_Reduce_scatter, reduce_scatter MPI_Reduce_scatter_block).
[[nodiscard]] std::string_view label(sched::Collective c, Form f);

// Where a request's errors are raised: the application's communicator or, once the application
// has freed it (MPI allows that while a collective on it is pending), the library's duplicate of
// it, which carries the same error handler. `roll_call` is the Communicator's (who is missing
// when a wait times out; docs/faults.md).
struct ErrorTarget {
  MPI_Comm comm = MPI_COMM_NULL;
  MPI_Comm duplicate = MPI_COMM_NULL;
  std::shared_ptr<const std::atomic<bool>> freed;
  std::function<std::string()> roll_call;
  [[nodiscard]] MPI_Comm get() const { return freed && freed->load() ? duplicate : comm; }
};

// Registers a started nonblocking call; `after` (may be empty) runs when it completes. `keep`
// lives until then.
[[nodiscard]] MPI_Request add_nonblocking(ErrorTarget target, sched::Collective c, Request r,
                                          std::shared_ptr<void> keep, std::function<void()> after);
// Registers an inactive persistent call; `before` runs at each MPI_Start, `after` at each
// completion.
[[nodiscard]] MPI_Request add_persistent(ErrorTarget target, sched::Collective c,
                                         PersistentRequest p, std::shared_ptr<void> keep,
                                         std::function<void()> before, std::function<void()> after);

// Whether a served nonblocking or persistent request is running: a blocking call made now must
// keep it moving while it waits (another rank may wait for it before reaching the blocking call).
[[nodiscard]] bool requests_running();
// Completes `r` (a blocking call `name` started as a nonblocking one) while testing every running
// request. Throws what r.test() throws, or a cclx::Error once CCLX_TIMEOUT has passed.
void complete_progressing(Request& r, std::string_view name,
                          const std::function<std::string()>& roll_call);

// Tests every running request of the library once (a call that waits for something else keeps
// them moving: blocking.cpp).
void progress_requests();

// Backs off between rounds of tests: other ranks may share the cores.
class Backoff {
 public:
  void pause();

 private:
  int round_ = 0;
};

// At MPI_Finalize, before the Communicators go: completes what is still pending (requests the
// application freed while active) and frees the handles the application did not free.
void release_requests();

}  // namespace cclx::shim
