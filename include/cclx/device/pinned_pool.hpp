// Pinned host blocks for staged calls that own their copies for a while: nonblocking and
// persistent native calls, isend/irecv and the blocking calls' grow-only buffers on device
// buffers without a CUDA-aware MPI (docs/cuda.md, "Pinned host memory"). Allocating pinned memory
// is slow (cudaMallocHost maps and locks pages: milliseconds for MiBs), so a released block is kept
// for the next request of its size class instead of freed, up to a limit in bytes. Plain C++ over
// device::Device, so that the unit tests run it on a fake.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <vector>

#include "cclx/device/device.hpp"

namespace cclx::device {

/// Pinned host blocks for staged calls, kept for reuse up to a cap.
class PinnedPool {
 public:
  /// One pinned host block lent by the pool.
  struct Block {
    std::byte* data = nullptr;  ///< the memory; null for no block (release() ignores it)
    std::size_t capacity = 0;   ///< the size class: a power of two >= kMinBlock
  };
  static constexpr std::size_t kMinBlock = 4096;  ///< the smallest size class, in bytes
  /// The default limit on cached bytes (CCLX_CUDA_PINNED_CACHE_BYTES overrides it in CudaBackend).
  static constexpr std::size_t kDefaultMaxCached = std::size_t{512} << 20;

  /// A pool that allocates through `dev` (which must outlive it) and keeps up to
  /// `max_cached_bytes` of released blocks.
  PinnedPool(Device& dev, std::size_t max_cached_bytes)
      : dev_(&dev), max_cached_(max_cached_bytes) {}
  ~PinnedPool();  ///< frees every cached block (blocks still out are their holders' to release)
  PinnedPool(const PinnedPool&) = delete;
  PinnedPool& operator=(const PinnedPool&) = delete;

  /// A block of at least `bytes` (at least kMinBlock): a cached one of the class, else a new one.
  [[nodiscard]] Block acquire(std::size_t bytes);
  /// Gives a block back: cached while the cache stays within the limit, freed otherwise. The
  /// caller guarantees that no queued device work still uses it.
  void release(Block b) noexcept;

  /// The capacity of a block for `bytes`: the next power of two, at least kMinBlock.
  [[nodiscard]] static std::size_t size_class(std::size_t bytes);
  /// Bytes in the blocks cached now (released, not lent again).
  [[nodiscard]] std::size_t cached_bytes() const;
  /// The limit on cached bytes given at construction.
  [[nodiscard]] std::size_t max_cached_bytes() const { return max_cached_; }

 private:
  Device* dev_;
  std::size_t max_cached_;
  mutable std::mutex mutex_;  ///< requests may complete, and release, on any thread
  std::size_t cached_ = 0;
  std::map<std::size_t, std::vector<std::byte*>> free_;  ///< by capacity
};

}  // namespace cclx::device
