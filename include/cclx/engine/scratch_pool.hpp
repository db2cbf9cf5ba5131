// Reusable scratch memory, so that executions do not allocate (and page-fault) on every call.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace cclx::engine {

/// Reusable scratch memory, so that executions do not allocate on every call.
class ScratchPool {
 public:
  /// Where the memory comes from: host memory by default, device memory for a device backend.
  struct Allocator {
    std::byte* (*allocate)(void* ctx, std::size_t bytes) = nullptr;  ///< throws cclx::Error
    void (*deallocate)(void* ctx, std::byte* p) noexcept = nullptr;  ///< frees allocate's memory
    void* ctx = nullptr;  ///< passed to allocate and deallocate
  };

  /// Scratch memory lent to one execution until it is returned.
  class Lease {
   public:
    Lease() = default;
    /// Lends `size` bytes at `mem`, which go back to `pool` when the lease is destroyed or
    /// assigned to (with a null `pool` they are not given back).
    Lease(ScratchPool* pool, std::byte* mem, std::size_t size)
        : pool_(pool), mem_(mem), size_(size) {}
    /// Takes over `o`'s memory; `o` is left empty.
    Lease(Lease&& o) noexcept : pool_(o.pool_), mem_(o.mem_), size_(o.size_) { o.mem_ = nullptr; }
    /// Gives this lease's memory back to its pool, then takes over `o`'s; `o` is left empty.
    Lease& operator=(Lease&& o) noexcept {
      if (this != &o) {
        release();
        pool_ = o.pool_;
        mem_ = o.mem_;
        size_ = o.size_;
        o.mem_ = nullptr;
      }
      return *this;
    }
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease() { release(); }
    /// The leased memory; null for an empty lease.
    [[nodiscard]] std::byte* data() const { return mem_; }

   private:
    void release() {
      if (pool_ && mem_) pool_->give_back(mem_, size_);
      mem_ = nullptr;
    }
    ScratchPool* pool_ = nullptr;
    std::byte* mem_ = nullptr;
    std::size_t size_ = 0;
  };

  ScratchPool() = default;
  /// A pool whose memory comes from `a` (e.g. device memory) instead of new[] and delete[].
  explicit ScratchPool(Allocator a) : alloc_(a) {}
  ScratchPool(const ScratchPool&) = delete;
  ScratchPool& operator=(const ScratchPool&) = delete;
  ~ScratchPool();

  /// At least `bytes` bytes, 64-byte aligned.
  Lease acquire(std::size_t bytes);

 private:
  void give_back(std::byte* mem, std::size_t size);
  void free(std::byte* mem) const;
  struct Entry {
    std::byte* mem;
    std::size_t size;
  };
  Allocator alloc_{};
  std::mutex mu_;
  std::vector<Entry> free_;
};

}  // namespace cclx::engine
