// Preloaded into the MPICH test jobs (tests/CMakeLists.txt): MPICH's yield-when-idle.
//
// The test jobs run up to 8 ranks on 2 cores. Open MPI yields the core while it waits when it
// sees more ranks than cores (its mpi_yield_when_idle); MPICH 4.0.2 over UCX never does (ch4's
// progress loop ignores MPIR_CVAR_POLLS_BEFORE_YIELD), so a rank waiting in MPI_Wait,
// MPI_Barrier or MPI's own collectives polls through its whole time slice while the rank it
// waits for is descheduled. This library wraps UCX's public ucp_worker_progress(), which
// libmpich calls through its PLT, and calls sched_yield() after kIdlePolls polls in a row that
// found nothing to do. It changes when a rank runs, never what MPI does: the same calls, the
// same completions. Measured on the 2-core machine, 8 ranks, the small reduction grids: 18.1 s
// without, 1.7 s with (docs/guide.md, "Getting started"). A rank idle for much longer (a peer's
// time-out) sleeps between polls, leaving the cores to the test entry that runs beside it.
#include <dlfcn.h>
#include <sched.h>
#include <time.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>

namespace {

using Progress = unsigned (*)(void*);

constexpr unsigned kIdlePolls = 64;  // a few microseconds of polling before giving the core up
// After this many idle polls in a row the rank waits long (a peer's time-out, a slow peer): it
// sleeps instead of yielding, so that its core goes to ranks of other jobs with work to do.
constexpr unsigned kPollsBeforeSleep = 64 * kIdlePolls;
constexpr long kSleepNs = 20'000;

std::atomic<Progress> next_progress{nullptr};
thread_local unsigned idle_polls = 0;

// UCX's own ucp_worker_progress. libucp is loaded by the time MPI calls this: RTLD_NEXT finds it
// when it is in the global scope; a Python extension loads libmpich, and so libucp, into a
// local scope, where only its handle finds it.
Progress find_next() {
  if (void* f = dlsym(RTLD_NEXT, "ucp_worker_progress")) return reinterpret_cast<Progress>(f);
  if (void* ucp = dlopen("libucp.so.0", RTLD_LAZY | RTLD_NOLOAD))
    if (void* f = dlsym(ucp, "ucp_worker_progress")) return reinterpret_cast<Progress>(f);
  std::fputs("yield_when_idle: UCX's ucp_worker_progress not found\n", stderr);
  std::abort();
}

Progress next() {
  Progress p = next_progress.load(std::memory_order_acquire);
  if (p == nullptr) {
    p = find_next();
    next_progress.store(p, std::memory_order_release);
  }
  return p;
}

}  // namespace

// ucp.h: unsigned ucp_worker_progress(ucp_worker_h worker); ucp_worker_h is a pointer.
extern "C" __attribute__((visibility("default"))) unsigned ucp_worker_progress(void* worker) {
  const unsigned events = next()(worker);
  if (events != 0)
    idle_polls = 0;
  else if (++idle_polls % kIdlePolls == 0) {
    if (idle_polls >= kPollsBeforeSleep) {
      const timespec pause{0, kSleepNs};
      nanosleep(&pause, nullptr);
    } else {
      sched_yield();
    }
  }
  return events;
}
