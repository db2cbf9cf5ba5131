// What the staging transport needs from an accelerator: asynchronous copies on two in-order
// queues, markers to learn (without blocking) when queued work is done, and pinned host memory.
// CUDA implements it with streams and events (lib/cuda); the unit tests with a host-memory fake
// whose queues run only when polled, so that the pipeline's ordering is checked without a GPU.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cclx::device {

/// What the staging transport needs from an accelerator: copies, streams and events.
class Device {
 public:
  /// compute: the local ops (copies, reduction kernels) and the device-to-host copies of data to
  /// send, so that a send always reads what the ops before it wrote. inbound: the host-to-device
  /// copies of received data, so that they overlap the outgoing copies.
  enum class Queue : std::uint8_t { compute, inbound };
  /// A point in a queue, made by mark(); reused after release().
  using Marker = std::uint32_t;

  virtual ~Device() = default;
  /// `bytes` of pinned (page-locked) host memory, which the device copies to and from directly.
  virtual std::byte* alloc_pinned(std::size_t bytes) = 0;
  /// Frees memory from alloc_pinned().
  virtual void free_pinned(std::byte* p) noexcept = 0;
  /// Queues a copy (either side host or device) on `q`.
  virtual void copy(Queue q, void* dst, const void* src, std::size_t bytes) = 0;
  /// A marker of everything queued on `q` so far; release it when no longer needed.
  virtual Marker mark(Queue q) = 0;
  /// Whether the work before `m` is done; never blocks.
  virtual bool reached(Marker m) = 0;
  /// Work queued on `q` from now on starts only after the work before `m`.
  virtual void order_after(Queue q, Marker m) = 0;
  /// Gives `m` back for reuse by a later mark(); `m` must not be used afterwards.
  virtual void release(Marker m) noexcept = 0;
};

}  // namespace cclx::device
