// The engine: executes one rank's plan (a schedule resolved for a buffer shape, plan.hpp) over a
// transport, on bytes, with a type-erased reduction kernel. Resumable, so it serves blocking and
// nonblocking calls alike; restartable, so a persistent request (and the Communicator's cache of
// one-shot calls) runs the same execution again and again without setting anything up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cclx/engine/execution_options.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/transport.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/ops.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::engine {

/// Executes one rank's plan over a transport: resumable (nonblocking calls) and restartable
/// (persistent requests).
class Execution {
 public:
  /// An idle execution of `plan` (of `transport.rank()`); `transport` and `scratch` must outlive
  /// it. Allocates what a start needs (transfer bookkeeping sized by the plan), nothing per start.
  Execution(std::shared_ptr<const Plan> plan, Transport& transport, ScratchPool& scratch);
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  ~Execution();

  /// Begins one run on `buffers` (which must fit the plan) with `kernel`, on channel `channel`
  /// (concurrent executions on one transport need different numbers), reading options.wait and
  /// options.timeout_s; posts the first step. Throws cclx::Error if still running.
  void start(const Buffers& buffers, const ReduceKernel& kernel, unsigned channel,
             const ExecOptions& options);
  /// Makes all progress possible without blocking; true once the rank's program has finished (or
  /// before the first start). Transport errors are rethrown with the collective, algorithm and
  /// step added.
  bool test();
  /// Blocks (according to the wait policy) until finished, or throws cclx::Error once
  /// options.timeout_s has passed, naming the peers whose transfers of the step are outstanding.
  /// After an error the execution is abandoned: its destruction cancels what is still posted.
  void wait();
  /// True before the first start and once the started run has finished; unlike test(), it makes
  /// no progress. Stays false after a run was abandoned by an error.
  [[nodiscard]] bool done() const { return done_; }
  /// The plan this execution runs, fixed at construction.
  [[nodiscard]] const Plan& plan() const { return *plan_; }
  /// Gives the scratch memory back to the pool until the next start (one-shot calls do, so that
  /// idle cached executions hold none; a persistent request keeps it).
  void release_scratch() { scratch_lease_ = {}; }
  /// "allreduce (ring)"
  [[nodiscard]] std::string name() const;
  /// What wait() says when its deadline passes after `waited` seconds: the step and the peers
  /// whose transfers are outstanding (for callers that poll test() against their own deadline).
  [[nodiscard]] std::string timeout_message(double waited) const;

 private:
  struct Pending;  ///< a posted segment or token
  [[nodiscard]] inline std::byte* address(const Plan::Range& r) const;  ///< in this run's buffers
  void start_step();
  void finish_step();
  void run_local(const Plan::Op& op, std::size_t byte_begin, std::size_t byte_end);
  void post_transfer(std::uint32_t op_index);  ///< all segments of one send or recv op
  void post_sends_to(int peer);                ///< the current step's sends to `peer`, in op order
  inline void track(std::size_t id, const Pending& p);  ///< records a transfer under its id
  bool advance(bool block);  ///< block: wait in the transport for the first completion
  [[nodiscard]] std::string context() const;  ///< "allreduce (ring) step 3"

  std::shared_ptr<const Plan> plan_;
  Transport* transport_;
  ScratchPool* scratch_pool_;
  LocalOps* local_ops_;  ///< null: host memory (transport.hpp)
  /// The largest message posted: the plan's segments, cut to the transport's largest message in
  /// whole elements; 0: one message per transfer.
  std::size_t message_bytes_;
  ScratchPool::Lease scratch_lease_;
  std::byte* base_[3] = {};  ///< indexed by sched::Buf: in, out, scratch
  ReduceKernel kernel_{};
  std::unique_ptr<Channel> channel_;
  unsigned channel_number_ = 0;
  ExecOptions options_;
  int rank_;

  std::size_t step_ = 0;
  bool done_ = true;
  std::size_t outstanding_ = 0;
  /// Per posted transfer (by channel id): the op index it belongs to and its byte range.
  std::vector<Pending> pending_;
  std::vector<std::uint8_t> local_done_;  ///< per op of the current step
  std::vector<std::size_t> completed_;
  std::byte token_[1]{};
};

}  // namespace cclx::engine
