// Handle of a nonblocking operation (iallreduce, isend, irecv). Move-only; must be completed with
// wait() or test() returning true. A request dropped while pending is waited for in its
// destructor (unless an exception is unwinding), so buffers are never written after it is gone.
// A request may outlive its Communicator (it keeps the communicator's internals alive). If wait()
// or test() throws (an MPI error, or wait()'s timeout), the operation is abandoned and the request
// is empty afterwards (docs/faults.md).
#pragma once

#include <exception>
#include <memory>

namespace cclx {

namespace detail {
/// What a backend's pending operation must do.
struct PendingOp {
  virtual ~PendingOp() = default;
  virtual bool test() = 0;
  virtual void wait() = 0;
};
}  // namespace detail

/// Handle of a nonblocking operation: completed by wait(), or by test() returning true.
class [[nodiscard]] Request {
 public:
  Request() = default;
  /// Wraps a backend's pending operation (the nonblocking calls return these).
  explicit Request(std::unique_ptr<detail::PendingOp> op) : op_(std::move(op)) {}
  /// Takes over the other request's operation; that one is left empty.
  Request(Request&&) noexcept = default;
  /// Waits for this request's pending operation, if any, as the destructor does (errors are
  /// dropped), then takes over `o`'s; `o` is left empty.
  Request& operator=(Request&& o) noexcept {
    if (this != &o) {
      finish_quietly();
      op_ = std::move(o.op_);
    }
    return *this;
  }
  ~Request() { finish_quietly(); }

  /// True once complete; the buffers may then be used.
  bool test() {
    if (!op_) return true;
    bool done = false;
    try {
      done = op_->test();
    } catch (...) {
      op_.reset();  // abandoned
      throw;
    }
    if (done) op_.reset();
    return done;
  }
  /// Blocks until complete (bounded by the communicator's timeout); the buffers may then be used.
  /// Returns at once for an empty request.
  void wait() {
    if (op_) {
      const std::unique_ptr<detail::PendingOp> op = std::move(op_);  // abandoned if it throws
      op->wait();
    }
  }
  /// True until wait() or test() completes the operation, or abandons it by throwing; false for
  /// an empty request.
  [[nodiscard]] bool pending() const { return static_cast<bool>(op_); }

 private:
  void finish_quietly() noexcept {
    if (!op_) return;
    if (std::uncaught_exceptions() == 0) {
      try {
        op_->wait();
      } catch (...) {
      }
    }
    op_.reset();
  }
  std::unique_ptr<detail::PendingOp> op_;
};

}  // namespace cclx
