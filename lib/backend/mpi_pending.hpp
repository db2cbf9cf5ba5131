// A Request's pending MPI operation, and waiting for an MPI request against a deadline
// (backend-internal).
#pragma once

#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <new>
#include <string>
#include <type_traits>

#include "cclx/engine/execution.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/request.hpp"
#include "mpi_check.hpp"
#include "mpi_native_v.hpp"
#include "mpi_roll_call.hpp"

namespace cclx::detail {

// Polls `req` until it completes (true) or `timeout_s` has passed (false; `req` is still
// pending); timeout_s <= 0: no deadline. The clock is read, and other ranks' roll calls answered
// (`roll`), only every 64 idle polls (every 8 when backing off: those polls sleep).
inline bool wait_until_deadline(MPI_Request& req, double timeout_s,
                                const engine::WaitPolicy& policy, int rank, const char* what,
                                RollCall& roll) {
  using Clock = std::chrono::steady_clock;
  const Clock::time_point start = Clock::now();
  engine::Backoff backoff(policy);
  const CompletionScope scope;
  const std::uint32_t every = policy.mode == engine::WaitMode::backoff ? 7u : 63u;
  for (std::uint32_t idle = 1;; ++idle) {
    int flag = 0;
    mpi_check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), rank, what);
    if (flag) return true;
    backoff.idle();
    if (timeout_s <= 0 || (idle & every) != 0) continue;
    roll.serve();
    if (std::chrono::duration<double>(Clock::now() - start).count() >= timeout_s) return false;
  }
}

// Leaves what an abandoned nonblocking collective uses to MPI: the references (the backend's
// state, whose communicators must then outlive it, see MpiBackend::State::abandoned_collective;
// the op; staged input) are leaked with it.
template <class... T>
void leak(T&&... what) noexcept {
  try {
    (new std::decay_t<T>(std::move(what)), ...);
  } catch (const std::bad_alloc&) {  // out of memory in a destructor: nothing better to do
  }
}

struct MpiPending final : PendingOp {
  std::shared_ptr<void> backend;  // the backend's state (communicators) outlives the request
  MPI_Request req = MPI_REQUEST_NULL;
  std::shared_ptr<void> keepalive;
  engine::ScratchPool::Lease staged;  // a native collective's staged input (mpi_native.cpp)
  std::unique_ptr<NativeVArrays> native_v_arrays;  // a native v-collective's int arrays
  int rank = 0;
  int peer = -1;          // point-to-point: the peer; -1: a collective
  const char* what = "";  // "isend to", "irecv from", "native i" (+ the collective)
  sched::Collective collective{};
  double timeout_s = 0;  // 0: none
  engine::WaitPolicy policy{};
  RollCall* roll = nullptr;  // the backend's (kept alive by `backend`); set by State::pending

  ~MpiPending() override {
    // Only reached pending after wait() timed out (or threw). A point-to-point request can be
    // cancelled; a nonblocking collective cannot (MPI forbids cancelling or freeing it), so it is
    // left to MPI: its buffers may still be written if the collective ever completes.
    if (req == MPI_REQUEST_NULL) return;
    if (peer < 0) {
      leak(std::move(backend), std::move(keepalive), std::move(staged), std::move(native_v_arrays));
      return;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    MPI_Cancel(&req);
    MPI_Request_free(&req);
  }
  bool test() override {
    if (peer < 0) roll->serve_sometimes();  // a caller polling test() answers roll calls
    int flag = 0;
    const CompletionScope scope;
    mpi_check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), rank, "MPI_Test");
    return flag != 0;
  }
  void wait() override {
    if (timeout_s <= 0) {
      const CompletionScope scope;
      mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), rank, "MPI_Wait");
      return;
    }
    if (wait_until_deadline(req, timeout_s, policy, rank, "MPI_Test", *roll)) return;
    const std::string after = " did not complete within " + engine::format_seconds(timeout_s);
    if (peer >= 0) throw Error(rank, std::string(what) + " rank " + std::to_string(peer) + after);
    throw Error(rank, std::string(what) + std::string(sched::to_string(collective)) + after +
                          roll->verdict(timeout_s));
  }
};

}  // namespace cclx::detail
