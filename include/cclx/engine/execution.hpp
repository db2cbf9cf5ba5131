// The engine: executes one rank's program of a schedule over a transport, on bytes, with a
// type-erased reduction kernel. Resumable, so it serves blocking and nonblocking calls alike.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cclx/block_counts.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/transport.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/ops.hpp"
#include "cclx/schedule/partition.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::engine {

struct ExecOptions {
  // Transfers larger than this are cut into segments so that the reduction of segment k overlaps
  // the transfer of segment k + 1; 0 disables segmentation. Must be equal on all ranks.
  std::size_t segment_bytes = 0;
  // Receiver-ready handshake: when a step moves at least this many bytes from one rank to another,
  // the receiver first sends a zero-byte token saying its receives are posted, and the sender
  // holds its data until the token arrives; 0 disables it. With an MPI that sends large messages
  // eagerly (UCX over TCP with UCX_RNDV_THRESH=inf), a rank that is a step ahead would otherwise
  // push its next step's data into a partner that is still receiving the previous step, and the
  // two flows share that partner's link: the late, critical flow is slowed by one that is early.
  // Costs one latency per step and peer. Must be equal on all ranks (docs/architecture.md).
  std::size_t handshake_bytes = 0;
  WaitPolicy wait{};
  // Deadline of wait() in seconds from its start; 0 means none. On expiry wait() throws a
  // cclx::Error naming the collective, algorithm, step and the peers still owing data.
  double timeout_s = 0;
};

// CCLX_HANDSHAKE_BYTES: the handshake threshold as bytes, optionally with a K, M or G suffix
// (powers of 1024); unset or 0 turns the handshake off. Throws on anything else.
std::size_t handshake_bytes_from_env();

// CCLX_TIMEOUT: seconds (e.g. 30, 0.5, optionally with an `s` suffix); unset, 0, `off` or `none`
// mean no deadline (returns 0). Throws cclx::Error on anything else.
double timeout_from_env();
// A duration in seconds as the error messages print it ("30 s", "0.5 s").
std::string format_seconds(double s);

// Where a rank's buffers are. For in-place calls `in` points into the user's buffer as described
// in partition.hpp; the Communicator computes that.
struct Buffers {
  const void* in = nullptr;
  void* out = nullptr;
  std::size_t count = 0;  // elements in the partition (all blocks)
  // v-collectives: the element counts of Out's blocks, which Scratch follows, and of In's where
  // they differ (alltoallv's sendcounts; null: as Out's), read during construction (the Execution
  // keeps their offsets). Null: the even split of `count` (sched::Partition).
  const detail::IntArray* out_counts = nullptr;
  const detail::IntArray* in_counts = nullptr;
};

class Execution {
 public:
  // `schedule` must stay alive (the cache keeps it) and hold the program of `transport.rank()`.
  Execution(std::shared_ptr<const sched::Schedule> schedule, const Buffers& buffers,
            const ReduceKernel& kernel, Transport& transport, unsigned channel,
            ScratchPool& scratch, const ExecOptions& options);
  Execution(const Execution&) = delete;
  Execution& operator=(const Execution&) = delete;
  ~Execution();

  // Makes all progress possible without blocking; true once the rank's program has finished.
  // Transport errors are rethrown with the collective, algorithm and step added.
  bool test();
  // Blocks (according to the wait policy) until finished, or throws cclx::Error once
  // options.timeout_s has passed, naming the peers whose transfers of the step are outstanding.
  // After an error the execution is abandoned: its destruction cancels what is still posted.
  void wait();
  [[nodiscard]] bool done() const { return done_; }

 private:
  struct Pending;  // a posted segment
  [[nodiscard]] std::byte* address(const sched::Region& g) const;
  [[nodiscard]] std::size_t bytes(const sched::Region& g) const;
  void start_step();
  void finish_step();
  void run_local(const sched::Op& op, std::size_t elem_begin, std::size_t elem_end);
  void post_transfer(std::uint32_t op_index);    // all segments of one send or recv op
  void post_sends_to(int peer);                  // the current step's sends to `peer`, in op order
  void track(std::size_t id, const Pending& p);  // records a posted transfer under its id
  bool step_transfers_done() const { return outstanding_ == 0; }
  bool advance();
  [[nodiscard]] std::string context() const;  // "allreduce (ring) step 3"
  [[nodiscard]] std::string timeout_message(double waited) const;

  std::shared_ptr<const sched::Schedule> schedule_;
  const sched::Program* program_;
  // Out's and Scratch's partition, and In's (the same but for alltoallv); their v-collective
  // offsets live in offsets_.
  sched::Partition part_, in_part_;
  std::vector<std::size_t> offsets_;
  // Element offsets of the first block of In's and Out's windows (where in_ and out_ point).
  std::size_t in_first_ = 0, out_first_ = 0;
  const std::byte* in_;
  std::byte* out_;
  ScratchPool::Lease scratch_lease_;
  std::byte* scratch_ = nullptr;
  ReduceKernel kernel_;
  std::unique_ptr<Channel> channel_;
  ExecOptions options_;
  int rank_;
  bool synchronizes_;  // coll::synchronizes: empty transfers are posted as empty messages

  std::size_t step_ = 0;
  bool done_ = false;
  std::size_t outstanding_ = 0;
  // Per posted transfer (by channel id): the op index it belongs to and its element range.
  std::vector<Pending> pending_;
  // Per op of the current step: the local op to run as segments of this recv land, or -1.
  std::vector<std::int32_t> attached_;
  std::vector<std::uint8_t> local_done_;
  std::vector<std::size_t> completed_;
  // Peers whose sends of this step wait for their receiver-ready token.
  std::vector<int> held_peers_;
  std::byte token_[1]{};
};

}  // namespace cclx::engine
