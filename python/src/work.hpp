// The work object of one ProcessGroupCclx operation: what torch waits on (Work::wait, or the future
// DDP chains its bucket callbacks to). The progress thread completes it.
#pragma once

#include <ATen/core/ivalue.h>

#include <atomic>
#include <exception>
#include <torch/csrc/distributed/c10d/Work.hpp>
#include <vector>

namespace cclx::torch_backend {

/// One operation's torch work object: completed (or failed) once by the progress thread.
class Work : public c10d::Work {
 public:
  /// An operation of `type` on `rank` whose results are `outputs` (what result() and the future
  /// hold once it completes).
  Work(int rank, c10d::OpType type, const char* title, std::vector<at::Tensor> outputs);

  /// The future DDP and torch.futures chain to: completed with the outputs, or with the error.
  c10::intrusive_ptr<c10::ivalue::Future> getFuture() override { return future_; }
  /// The output tensors (empty for a barrier or a send).
  std::vector<at::Tensor> result() override { return outputs_; }
  /// The sender of a recvAnysource, once complete.
  int sourceRank() const override { return source_.load(); }
  /// Outputs are written by the time the work completes: nothing to order on CPU.
  void synchronize() override {}

  /// Completes the work: `error` null for success. Wakes wait() and runs the future's callbacks
  /// (on the calling thread: the progress thread).
  void complete(std::exception_ptr error);
  /// Records the sender of a recvAnysource (before complete()).
  void set_source(int rank) { source_.store(rank); }

 private:
  std::vector<at::Tensor> outputs_;
  c10::intrusive_ptr<c10::ivalue::Future> future_;
  std::atomic<int> source_{-1};
};

}  // namespace cclx::torch_backend
