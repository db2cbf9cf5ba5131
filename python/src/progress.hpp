// The progress thread of a ProcessGroupCclx: every MPI call of the group runs on it. Operations
// are started in submission order (the same on every rank, as torch requires), as soon as they are
// submitted, and any number are in flight at once: a DDP bucket's allreduce runs while backward
// computes the next bucket, and a send and a receive posted in either order on two ranks never
// wait for each other. The thread polls the pending requests, backing off as CCLX_WAIT says
// (backoff unless set: the training thread shares the cores), and fails an operation that
// outlives the group's timeout with the roll call's verdict (which rank is missing).
#pragma once

#include <c10/util/intrusive_ptr.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <exception>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cclx/communicator.hpp"
#include "work.hpp"

namespace cclx::torch_backend {

/// The communicator type the backend runs on (host memory, MPI).
using Comm = cclx::Communicator<>;

/// One operation of the group: started on the progress thread, then polled until complete.
struct Operation {
  c10::intrusive_ptr<Work> work;  ///< completed when the operation is
  std::string what;               ///< for errors: "allreduce of 4096 bytes"
  /// Starts the operation (a cclx nonblocking call) and returns its test: true once complete.
  std::function<std::function<bool()>(Comm&)> start;
  /// Runs once complete, before the work completes: copies results out of staging buffers,
  /// divides an AVG. Empty: nothing to do.
  std::function<void()> finish;
};

/// The thread that owns a group's communicator and runs its operations.
class Progress {
 public:
  /// Runs operations on `comm`; an operation pending longer than `timeout` (> 0) fails.
  Progress(std::unique_ptr<Comm> comm, std::chrono::milliseconds timeout);
  ~Progress();
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  /// Queues `op`; it starts on the progress thread in submission order.
  void submit(Operation op);
  /// Runs `f` on the progress thread with the communicator and returns its result (for settings
  /// and queries that must not race with operations).
  template <class F>
  auto call(F&& f) -> decltype(f(std::declval<Comm&>()));
  /// Completes what is queued and in flight (or abandons it once the group has failed), stops the
  /// thread and frees the communicator. Before MPI_Finalize; idempotent.
  void shutdown();

 private:
  struct InFlight {
    Operation op;
    std::function<bool()> test;
    std::chrono::steady_clock::time_point started;
  };
  void loop();
  void start(Operation& op);
  bool poll();  // tests every operation in flight; true if one completed
  void fail_all(const std::exception_ptr& error);

  std::unique_ptr<Comm> comm_;
  const std::chrono::milliseconds timeout_;
  const int rank_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<Operation> queue_;      // guarded by mutex_
  bool stop_ = false;                // guarded by mutex_
  std::vector<InFlight> in_flight_;  // the progress thread's own
  std::exception_ptr failed_;        // set once the group has failed; the thread's own
  std::thread thread_;
};

template <class F>
auto Progress::call(F&& f) -> decltype(f(std::declval<Comm&>())) {
  using R = decltype(f(std::declval<Comm&>()));
  auto result = std::make_shared<std::promise<R>>();
  auto future = result->get_future();
  Operation op;
  op.what = "query";
  op.start = [result, &f](Comm& comm) -> std::function<bool()> {
    try {
      if constexpr (std::is_void_v<R>) {
        f(comm);
        result->set_value();
      } else {
        result->set_value(f(comm));
      }
    } catch (...) {
      result->set_exception(std::current_exception());
    }
    return [] { return true; };
  };
  submit(std::move(op));
  return future.get();
}

}  // namespace cclx::torch_backend
