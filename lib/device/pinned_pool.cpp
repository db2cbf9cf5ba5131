// device::PinnedPool (include/cclx/device/pinned_pool.hpp).
#include "cclx/device/pinned_pool.hpp"

#include <bit>

namespace cclx::device {

PinnedPool::~PinnedPool() {
  for (auto& [capacity, blocks] : free_)
    for (std::byte* p : blocks) dev_->free_pinned(p);
}

std::size_t PinnedPool::size_class(std::size_t bytes) {
  return std::bit_ceil(bytes < kMinBlock ? kMinBlock : bytes);
}

PinnedPool::Block PinnedPool::acquire(std::size_t bytes) {
  const std::size_t capacity = size_class(bytes);
  {
    const std::lock_guard lock(mutex_);
    if (auto it = free_.find(capacity); it != free_.end() && !it->second.empty()) {
      std::byte* p = it->second.back();
      it->second.pop_back();
      cached_ -= capacity;
      return {p, capacity};
    }
  }
  return {dev_->alloc_pinned(capacity), capacity};  // outside the lock: it may take milliseconds
}

void PinnedPool::release(Block b) noexcept {
  if (!b.data) return;
  {
    const std::lock_guard lock(mutex_);
    if (cached_ + b.capacity <= max_cached_) {
      try {
        free_[b.capacity].push_back(b.data);
        cached_ += b.capacity;
        return;
      } catch (...) {  // no memory for the bookkeeping: free the block instead
      }
    }
  }
  dev_->free_pinned(b.data);
}

std::size_t PinnedPool::cached_bytes() const {
  const std::lock_guard lock(mutex_);
  return cached_;
}

}  // namespace cclx::device
