// engine::Transport for buffers in device memory, over a host transport (MPI): the engine runs
// its schedules unchanged, this transport moves each transfer through pinned host memory in
// chunks, pipelined, or (direct mode, for an MPI that takes device pointers) hands the device
// pointers to the host transport once the device work they depend on is done. docs/cuda.md.
//
// Staged send, per chunk: device-to-host copy into a pinned slot (compute queue, so after the
// local ops that wrote the data), then the host send; the slot is reused once the send is done.
// Staged receive, per chunk: the host receive into a slot, then the host-to-device copy (inbound
// queue, ordered after the compute work queued before the receive was posted, which may still
// read the destination); the transfer completes once the copy is done. Every peer has `depth`
// slots per direction (>= 2: the copy of chunk k+1, the transfer of chunk k and, on the
// receiving side, the copy of chunk k-1 overlap), and the host transfers to or from one peer are
// posted in the order the engine posted them: between two ranks both sides cut a transfer into
// the same chunks, so messages match, and no peer waits on another's slots (no cycles).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "cclx/device/device.hpp"
#include "cclx/engine/transport.hpp"

namespace cclx::device {

/// How the staging transport splits and overlaps its copies.
struct StagingOptions {
  std::size_t chunk_bytes = std::size_t{1} << 20;  ///< must be equal on all ranks
  std::size_t depth = 2;                           ///< pinned slots per peer and direction
  bool direct = false;  ///< the host transport takes device pointers (CUDA-aware MPI)
};

/// engine::Transport for buffers in device memory, staged through pinned host memory over a host
/// transport.
class StagingTransport final : public engine::Transport {
 public:
  /// `host`, `dev` and `ops` (the device's local ops, queued on Queue::compute) must outlive it.
  StagingTransport(engine::Transport& host, Device& dev, engine::LocalOps& ops,
                   StagingOptions options);
  ~StagingTransport() override;
  StagingTransport(const StagingTransport&) = delete;
  StagingTransport& operator=(const StagingTransport&) = delete;

  /// This process's rank (the host transport's).
  [[nodiscard]] int rank() const override { return host_->rank(); }
  /// The number of ranks (the host transport's).
  [[nodiscard]] int size() const override { return host_->size(); }
  std::unique_ptr<engine::Channel> open_channel(unsigned number) override;
  engine::LocalOps* local_ops() override { return ops_; }
  /// The options it was made with.
  [[nodiscard]] const StagingOptions& options() const { return options_; }
  /// Pinned slots allocated so far (all idle slots are kept for later calls).
  [[nodiscard]] std::size_t slots_allocated() const { return allocated_; }

  /// A pinned slot of options().chunk_bytes, idle or newly allocated; the channels share them.
  std::byte* take_slot();
  /// Returns a slot from take_slot() to the idle ones (slots are freed with the transport).
  /// Never allocates (take_slot() keeps room for every slot), so channels return slots from
  /// their noexcept clean-up.
  void give_slot(std::byte* s) noexcept { idle_.push_back(s); }

 private:
  engine::Transport* host_;
  Device* dev_;
  engine::LocalOps* ops_;
  StagingOptions options_;
  std::vector<std::byte*> idle_, all_;
  std::size_t allocated_ = 0;
};

}  // namespace cclx::device
