// ProcessGroupCclx: torch.distributed's ProcessGroup on cclx. Every operation torch 1.13 has that
// cclx serves, each a nonblocking cclx call with algo::Auto choosing the algorithm (CCLX_ALGO and
// tuning tables apply), run by the group's progress thread (progress.hpp). Tensors must be on the
// CPU and dense; non-contiguous ones are staged through contiguous copies. See docs/torch.md.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <vector>

#include "progress.hpp"

namespace cclx::torch_backend {

/// torch's ProcessGroup on a cclx Communicator.
class ProcessGroupCclx : public c10d::ProcessGroup {
 public:
  /// A group over `comm` (its ranks are the group's), failing operations that outlive `timeout`.
  ProcessGroupCclx(std::unique_ptr<Comm> comm, std::chrono::milliseconds timeout);
  ~ProcessGroupCclx() override;

  /// "cclx".
  const std::string getBackendName() const override { return "cclx"; }

  c10::intrusive_ptr<c10d::Work> broadcast(std::vector<at::Tensor>& tensors,
                                           const c10d::BroadcastOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce(std::vector<at::Tensor>& tensors,
                                           const c10d::AllreduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allreduce_coalesced(
      std::vector<at::Tensor>& tensors, const c10d::AllreduceCoalescedOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce(std::vector<at::Tensor>& tensors,
                                        const c10d::ReduceOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather(std::vector<std::vector<at::Tensor>>& outputs,
                                           std::vector<at::Tensor>& inputs,
                                           const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _allgather_base(at::Tensor& output, at::Tensor& input,
                                                 const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> allgather_coalesced(
      std::vector<std::vector<at::Tensor>>& output_lists, std::vector<at::Tensor>& inputs,
      const c10d::AllgatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> gather(std::vector<std::vector<at::Tensor>>& outputs,
                                        std::vector<at::Tensor>& inputs,
                                        const c10d::GatherOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> scatter(std::vector<at::Tensor>& outputs,
                                         std::vector<std::vector<at::Tensor>>& inputs,
                                         const c10d::ScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> reduce_scatter(std::vector<at::Tensor>& outputs,
                                                std::vector<std::vector<at::Tensor>>& inputs,
                                                const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> _reduce_scatter_base(
      at::Tensor& output, at::Tensor& input, const c10d::ReduceScatterOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall_base(at::Tensor& output, at::Tensor& input,
                                               std::vector<int64_t>& output_splits,
                                               std::vector<int64_t>& input_splits,
                                               const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> alltoall(std::vector<at::Tensor>& outputs,
                                          std::vector<at::Tensor>& inputs,
                                          const c10d::AllToAllOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> barrier(const c10d::BarrierOptions& opts) override;
  c10::intrusive_ptr<c10d::Work> send(std::vector<at::Tensor>& tensors, int dst, int tag) override;
  c10::intrusive_ptr<c10d::Work> recv(std::vector<at::Tensor>& tensors, int src, int tag) override;
  c10::intrusive_ptr<c10d::Work> recvAnysource(std::vector<at::Tensor>& tensors, int tag) override;

  /// What algo::Auto runs for an allreduce of `count` float32 elements on this group, and why
  /// (Communicator::explain).
  std::string explain_allreduce(std::size_t count);
  /// Stops the progress thread and frees the communicator (before MPI_Finalize); later
  /// operations throw.
  void shutdown() { progress_.shutdown(); }
  /// shutdown() on every live group: before MPI_Finalize, which Python's exit runs before it
  /// frees the groups.
  static void shutdown_all();

 private:
  c10::intrusive_ptr<c10d::Work> run(c10d::OpType type, const char* title, std::string what,
                                     std::vector<at::Tensor> outputs, Operation op);
  Progress progress_;
};

}  // namespace cclx::torch_backend
