// What the engine needs from a transport: nonblocking byte transfers on an isolated channel.
// MPI implements it (backend/mpi_transport); a CUDA or in-process transport can too.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "cclx/engine/local_ops.hpp"

namespace cclx::engine {

/// The transfers of one execution. Ids are dense, in posting order, and reset by clear().
class Channel {
 public:
  virtual ~Channel() = default;
  /// Starts sending `bytes` bytes (0 allowed) at `data` to rank `peer` and returns the transfer's
  /// id; `data` must stay valid and unchanged until poll() reports the id. Between two ranks, a
  /// channel's messages match their receives in posting order.
  virtual std::size_t post_send(const void* data, std::size_t bytes, int peer) = 0;
  /// Starts receiving `bytes` bytes (0 allowed) from rank `peer` into `data` and returns the
  /// transfer's id; `data` must stay valid until poll() reports the id.
  virtual std::size_t post_recv(void* data, std::size_t bytes, int peer) = 0;
  /// Appends the ids of transfers that completed since the last call; never blocks.
  virtual void poll(std::vector<std::size_t>& completed) = 0;
  /// Like poll, but blocks until at least one transfer (of those posted and not yet reported)
  /// completes; the transport may wait more cheaply than repeated polls (MPI_Waitsome spins inside
  /// MPI's progress engine). Cannot be interrupted: callers with a deadline poll.
  virtual void wait_some(std::vector<std::size_t>& completed) {
    while (completed.empty()) poll(completed);
  }
  /// Forgets all (completed) transfers so ids start at 0 again.
  virtual void clear() = 0;
  /// Moves an idle channel (nothing posted) to another number, as if opened with it: lets an
  /// execution be reused by later calls without opening a channel per call.
  virtual void reopen(unsigned number) = 0;
};

/// What the engine needs from a transport: its rank and size, channels of nonblocking transfers,
/// and the local ops on memory the host cannot touch.
class Transport {
 public:
  virtual ~Transport() = default;
  [[nodiscard]] virtual int rank() const = 0;  ///< this process's rank, in [0, size())
  [[nodiscard]] virtual int size() const = 0;  ///< the number of ranks the transport connects
  /// A channel whose messages match only the same channel number on the peers. Executions that
  /// run concurrently must use different numbers; the Communicator hands them out in call order,
  /// which is the same on every rank.
  virtual std::unique_ptr<Channel> open_channel(unsigned number) = 0;
  /// Where the buffers live when not in host memory: the copies and reductions of the schedule's
  /// local ops on them (a device transport's). Null: host memory, the engine's own loops.
  virtual LocalOps* local_ops() { return nullptr; }
  /// The largest message the transport should carry; 0: any. The engine moves a larger transfer
  /// as several messages, cut at the same places on both sides, so it must be equal on all ranks.
  [[nodiscard]] virtual std::size_t max_message_bytes() const { return 0; }
  /// Called by a wait with a deadline every few milliseconds while nothing completes: lets the
  /// transport answer requests of its own (MPI: other ranks' roll calls).
  virtual void idle() {}
  /// Appended to the message of a wait with the deadline `timeout_s` that failed (the deadline
  /// passed, or a transfer failed): what the transport can find out about the missing ranks (MPI:
  /// the roll call, which takes up to a second or two).
  virtual std::string on_failure(double /*timeout_s*/) { return {}; }
};

}  // namespace cclx::engine
