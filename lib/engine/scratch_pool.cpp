#include "cclx/engine/scratch_pool.hpp"

#include <new>

namespace cclx::engine {

namespace {
constexpr std::align_val_t kAlign{64};
}  // namespace

ScratchPool::~ScratchPool() {
  for (const Entry& e : free_) free(e.mem);
}

void ScratchPool::free(std::byte* mem) const {
  if (alloc_.deallocate)
    alloc_.deallocate(alloc_.ctx, mem);
  else
    ::operator delete[](mem, kAlign);
}

ScratchPool::Lease ScratchPool::acquire(std::size_t bytes) {
  if (bytes == 0) bytes = 1;
  {
    std::lock_guard lock(mu_);
    // Smallest free buffer that fits, so a large one is not tied up by a small call.
    std::size_t best = free_.size();
    for (std::size_t i = 0; i < free_.size(); ++i)
      if (free_[i].size >= bytes && (best == free_.size() || free_[i].size < free_[best].size))
        best = i;
    if (best != free_.size()) {
      const Entry e = free_[best];
      free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(best));
      return Lease(this, e.mem, e.size);
    }
  }
  if (alloc_.allocate) return Lease(this, alloc_.allocate(alloc_.ctx, bytes), bytes);
  // 64-byte aligned (a cache line) as acquire() promises; plain new[] gives only 16.
  return Lease(this, static_cast<std::byte*>(::operator new[](bytes, kAlign)), bytes);
}

void ScratchPool::give_back(std::byte* mem, std::size_t size) {
  std::lock_guard lock(mu_);
  // Keep a few buffers; drop the smallest when over the limit.
  free_.push_back({mem, size});
  constexpr std::size_t kKeep = 4;
  if (free_.size() > kKeep) {
    std::size_t smallest = 0;
    for (std::size_t i = 1; i < free_.size(); ++i)
      if (free_[i].size < free_[smallest].size) smallest = i;
    free(free_[smallest].mem);
    free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(smallest));
  }
}

}  // namespace cclx::engine
