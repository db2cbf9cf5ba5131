// Reusable scratch memory, so that executions do not allocate (and page-fault) on every call.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

namespace cclx::engine {

class ScratchPool {
 public:
  class Lease {
   public:
    Lease() = default;
    Lease(ScratchPool* pool, std::unique_ptr<std::byte[]> mem, std::size_t size)
        : pool_(pool), mem_(std::move(mem)), size_(size) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&& o) noexcept {
      release();
      pool_ = o.pool_;
      mem_ = std::move(o.mem_);
      size_ = o.size_;
      return *this;
    }
    ~Lease() { release(); }
    [[nodiscard]] std::byte* data() const { return mem_.get(); }

   private:
    void release() {
      if (pool_ && mem_) pool_->give_back(std::move(mem_), size_);
    }
    ScratchPool* pool_ = nullptr;
    std::unique_ptr<std::byte[]> mem_;
    std::size_t size_ = 0;
  };

  // At least `bytes` bytes, 64-byte aligned.
  Lease acquire(std::size_t bytes);

 private:
  void give_back(std::unique_ptr<std::byte[]> mem, std::size_t size);
  struct Entry {
    std::unique_ptr<std::byte[]> mem;
    std::size_t size;
  };
  std::mutex mu_;
  std::vector<Entry> free_;
};

}  // namespace cclx::engine
