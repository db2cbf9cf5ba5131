// Handle of a persistent collective (comm.allreduce_init(...) and the other *_init calls), like
// MPI-4's persistent collective requests: everything is set up once at init (schedule, plan,
// scratch, the request's own tag or communicator, argument checks and, with CCLX_VALIDATE=1, the
// agreement across ranks); every start() then runs the collective again on the buffers bound at
// init, with their current contents. Init is collective.
//
//   auto p = comm.allreduce_init(grad, cclx::sum, cclx::algo::Ring{});
//   for (...) { fill(grad); p.start(); /* overlap */ p.wait(); use(grad); }
//
// Rules (as for MPI's persistent requests):
// - The buffers are bound at init: they must stay valid while the handle exists, and untouched
//   between start() and completion. Using a handle after its buffers were freed is the caller's
//   error (undefined behaviour, as in MPI).
// - start() is a collective call: every rank starts and completes its requests in the same order
//   relative to its other collective calls (as for Request: a scheduled request progresses only
//   inside its own wait() or test()). Other calls may run between start() and wait(): a
//   request's messages never match another call's (docs/architecture.md, Tags).
// - start() on an active handle throws cclx::Error. wait() and test() on an inactive handle
//   (never started, or complete) return at once (true for test()).
// - wait() is bounded by the communicator's timeout (docs/faults.md). If wait() or test() throws,
//   the handle is abandoned: its transfers are cancelled (scheduled) or left to MPI (native), and
//   start() throws from then on; make a new handle.
// - Destroying an active handle waits for it (bounded by the timeout); if that fails, or an
//   exception is unwinding, the destructor abandons it as above without throwing (a failed wait
//   is reported on stderr). A handle may outlive its Communicator; it must be destroyed before
//   MPI_Finalize.
#pragma once

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <utility>

#include "cclx/error.hpp"

namespace cclx {

namespace detail {
/// What a backend's persistent operation must do.
struct PersistentOp {
  virtual ~PersistentOp() = default;  ///< of an inactive or abandoned operation; never blocks
  virtual void start() = 0;
  virtual bool test() = 0;  ///< true once complete
  virtual void wait() = 0;
  /// After a failed wait()/test() or instead of waiting: gives up the running operation (cancels
  /// transfers, or leaves a native collective to MPI with what it uses), so that destruction is
  /// safe.
  virtual void abandon() noexcept = 0;
  [[nodiscard]] virtual std::string name() const = 0;  ///< "allreduce (ring)"
  [[nodiscard]] virtual int rank() const = 0;
};
}  // namespace detail

/// Handle of a persistent collective (the *_init calls): set up once, started any number of times.
class [[nodiscard]] PersistentRequest {
 public:
  PersistentRequest() = default;
  /// Wraps a backend's persistent operation (the *_init calls return these); inactive until
  /// start().
  explicit PersistentRequest(std::unique_ptr<detail::PersistentOp> op) : op_(std::move(op)) {}
  /// Takes over the other handle's operation and state; `o` is left empty and inactive.
  PersistentRequest(PersistentRequest&& o) noexcept
      : op_(std::move(o.op_)),
        active_(std::exchange(o.active_, false)),
        failed_(std::move(o.failed_)),
        failed_rank_(o.failed_rank_) {}
  /// Completes this handle's active operation as the destructor does, then takes over `o`'s
  /// operation and state; `o` is left empty and inactive.
  PersistentRequest& operator=(PersistentRequest&& o) noexcept {
    if (this != &o) {
      finish_quietly();
      op_ = std::move(o.op_);
      active_ = o.active_;
      failed_ = std::move(o.failed_);
      failed_rank_ = o.failed_rank_;
      o.active_ = false;
    }
    return *this;
  }
  ~PersistentRequest() { finish_quietly(); }

  /// Runs the collective once more on the bound buffers.
  void start() {
    if (!op_) {
      if (!failed_.empty()) throw Error(failed_rank_, failed_);
      throw Error("start() on an empty persistent request (default-constructed or moved from)");
    }
    if (active_)
      throw Error(op_->rank(), "persistent " + op_->name() +
                                   ": start() while active (complete it with wait() or test() "
                                   "before starting it again)");
    op_->start();
    active_ = true;
  }
  /// True once the last start() completed (or when inactive); the buffers may then be used.
  bool test() {
    if (!active_) return true;
    try {
      active_ = !op_->test();
    } catch (...) {
      fail();
      throw;
    }
    return !active_;
  }
  /// Blocks until the last start() completed; returns at once when inactive.
  void wait() {
    if (!active_) return;
    try {
      op_->wait();
    } catch (...) {
      fail();
      throw;
    }
    active_ = false;
  }
  /// True from start() until wait() or test() completes the operation, or abandons it by throwing.
  [[nodiscard]] bool active() const { return active_; }
  /// False for a default-constructed, moved-from or abandoned handle.
  [[nodiscard]] bool valid() const { return static_cast<bool>(op_); }

 private:
  /// The operation failed: it is abandoned and the handle keeps only why, for later start()s.
  void fail() noexcept {
    failed_rank_ = op_->rank();
    try {
      failed_ = "persistent " + op_->name() + " was abandoned after an error; make a new one";
    } catch (...) {
    }
    op_->abandon();
    op_.reset();
    active_ = false;
  }
  void finish_quietly() noexcept {
    if (!op_) return;
    if (active_) {
      if (std::uncaught_exceptions() > 0) {
        op_->abandon();  // another rank may be gone: do not wait while unwinding
      } else {
        try {
          op_->wait();
        } catch (const std::exception& e) {
          std::fprintf(stderr, "cclx: persistent request destroyed while active; abandoned: %s\n",
                       e.what());
          op_->abandon();
        } catch (...) {
          op_->abandon();
        }
      }
      active_ = false;
    }
    op_.reset();
  }

  std::unique_ptr<detail::PersistentOp> op_;
  bool active_ = false;
  std::string failed_;  ///< why the handle was abandoned
  int failed_rank_ = -1;
};

}  // namespace cclx
