#include "progress.hpp"

#include <Python.h>

#include <sstream>
#include <utility>

#include "cclx/engine/wait_policy.hpp"
#include "cclx/settings.hpp"

namespace cclx::torch_backend {

namespace {

// What an operation abandoned after a failure keeps alive: its buffers may still be written, and
// its pending request would wait in its destructor. Never freed.
void abandon(std::vector<std::function<bool()>> tests, std::vector<Operation> ops) {
  static auto* graveyard = new std::vector<std::pair<std::function<bool()>, Operation>>;
  for (std::size_t i = 0; i < ops.size(); ++i)
    graveyard->emplace_back(std::move(tests[i]), std::move(ops[i]));
}

}  // namespace

Progress::Progress(std::unique_ptr<Comm> comm, std::chrono::milliseconds timeout)
    : comm_(std::move(comm)), timeout_(timeout), rank_(comm_->rank()) {
  // The group's own deadline also bounds cclx's internal waits (an Auto decision's agreement).
  if (timeout_.count() > 0) comm_->set_timeout(static_cast<double>(timeout_.count()) / 1000.0);
  // The training thread shares the cores: poll, yield, then sleep, unless CCLX_WAIT says otherwise.
  engine::WaitPolicy wait = comm_->backend().wait_policy();
  if (settings::value(settings::Id::wait).source != settings::Source::environment)
    wait.mode = engine::WaitMode::backoff;
  comm_->backend().set_wait_policy(wait);
  thread_ = std::thread([this] { loop(); });
}

Progress::~Progress() {
  shutdown();
}

void Progress::submit(Operation op) {
  {
    const std::lock_guard lock(mutex_);
    if (stop_) throw Error(rank_, "the process group has been shut down (" + op.what + ")");
    queue_.push_back(std::move(op));
  }
  wake_.notify_one();
}

void Progress::shutdown() {
  {
    const std::lock_guard lock(mutex_);
    if (stop_ && !thread_.joinable()) return;
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) {
    // The thread may need the GIL (dropping the last reference to a tensor that has a Python
    // object takes it); the caller may hold it (Python freeing the group): let go while joining.
    PyThreadState* saved = Py_IsInitialized() && PyGILState_Check() ? PyEval_SaveThread() : nullptr;
    thread_.join();
    if (saved != nullptr) PyEval_RestoreThread(saved);
  }
  if (failed_)
    (void)comm_.release();  // pending requests may still use it: never freed
  else
    comm_.reset();
}

void Progress::loop() {
  engine::Backoff backoff(comm_->backend().wait_policy());
  for (;;) {
    std::deque<Operation> fresh;
    {
      std::unique_lock lock(mutex_);
      if (in_flight_.empty()) wake_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      fresh.swap(queue_);
      if (stop_ && fresh.empty() && in_flight_.empty()) return;
    }
    for (Operation& op : fresh) start(op);
    if (!fresh.empty() || poll())
      backoff.reset();
    else
      backoff.idle();
  }
}

void Progress::start(Operation& op) {
  if (failed_ && op.work) {
    op.work->complete(failed_);
    return;
  }
  std::function<bool()> test;
  try {
    test = op.start(*comm_);
  } catch (...) {  // bad arguments: this operation fails, the group goes on
    if (op.work) op.work->complete(std::current_exception());
    return;
  }
  in_flight_.push_back({std::move(op), std::move(test), std::chrono::steady_clock::now()});
}

bool Progress::poll() {
  bool progressed = false;
  const auto now = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < in_flight_.size();) {
    InFlight& f = in_flight_[i];
    bool done = false;
    try {
      done = f.test();
      if (!done && timeout_.count() > 0 && now - f.started > timeout_) {
        std::ostringstream msg;
        msg << f.op.what << " did not complete within "
            << static_cast<double>(timeout_.count()) / 1000.0 << " s (the process group's timeout)"
            << comm_->roll_call();
        throw Error(rank_, msg.str());
      }
      if (done && f.op.finish) f.op.finish();
    } catch (...) {
      fail_all(std::current_exception());
      return true;
    }
    if (done) {
      if (f.op.work) f.op.work->complete(nullptr);
      in_flight_.erase(in_flight_.begin() + static_cast<std::ptrdiff_t>(i));
      progressed = true;
    } else {
      ++i;
    }
  }
  return progressed;
}

// A failed operation fails the group: its communicator may be unusable (docs/faults.md), so every
// operation in flight or submitted later fails with the same error.
void Progress::fail_all(const std::exception_ptr& error) {
  failed_ = error;
  std::vector<std::function<bool()>> tests;
  std::vector<Operation> ops;
  for (InFlight& f : in_flight_) {
    if (f.op.work) f.op.work->complete(error);
    tests.push_back(std::move(f.test));
    ops.push_back(std::move(f.op));
  }
  in_flight_.clear();
  abandon(std::move(tests), std::move(ops));
}

}  // namespace cclx::torch_backend
