// device::PinnedPool: blocks are reused by size class, the cache stays within its limit, nothing
// leaks (a counting fake device: the pool uses only its pinned allocations).
#include <doctest/doctest.h>

#include <atomic>
#include <cstring>
#include <thread>
#include <vector>

#include "cclx/device/pinned_pool.hpp"

namespace {

using cclx::device::Device;
using cclx::device::PinnedPool;

class CountingDevice final : public Device {
 public:
  ~CountingDevice() override { CHECK(live == 0); }
  std::byte* alloc_pinned(std::size_t bytes) override {
    ++allocs;
    ++live;
    auto* p = new std::byte[bytes];
    std::memset(p, 0, bytes);  // the whole capacity must be usable
    return p;
  }
  void free_pinned(std::byte* p) noexcept override {
    --live;
    delete[] p;
  }
  void copy(Queue, void*, const void*, std::size_t) override { FAIL("no copies expected"); }
  Marker mark(Queue) override { return 0; }
  bool reached(Marker) override { return true; }
  void order_after(Queue, Marker) override {}
  void release(Marker) noexcept override {}

  std::atomic<int> allocs{0};
  std::atomic<int> live{0};
};

}  // namespace

TEST_CASE("pinned pool: size classes are powers of two from 4 KiB") {
  CHECK(PinnedPool::size_class(0) == 4096);
  CHECK(PinnedPool::size_class(1) == 4096);
  CHECK(PinnedPool::size_class(4096) == 4096);
  CHECK(PinnedPool::size_class(4097) == 8192);
  CHECK(PinnedPool::size_class((std::size_t{100} << 20)) == (std::size_t{128} << 20));
  CHECK(PinnedPool::size_class(std::size_t{1} << 30) == (std::size_t{1} << 30));
}

TEST_CASE("pinned pool: a released block serves the next request of its class") {
  CountingDevice dev;
  {
    PinnedPool pool(dev, PinnedPool::kDefaultMaxCached);
    const auto a = pool.acquire(5000);
    CHECK(a.capacity == 8192);
    std::memset(a.data, 1, a.capacity);
    pool.release(a);
    CHECK(pool.cached_bytes() == 8192);
    const auto b = pool.acquire(8000);  // same class
    CHECK(b.data == a.data);
    CHECK(dev.allocs == 1);
    CHECK(pool.cached_bytes() == 0);
    const auto c = pool.acquire(8000);  // the class is empty now: a new block
    CHECK(c.data != b.data);
    const auto d = pool.acquire(100);  // another class
    CHECK(d.capacity == 4096);
    CHECK(dev.allocs == 3);
    pool.release(b);
    pool.release(c);
    pool.release(d);
    pool.release({});  // an empty block is ignored
    CHECK(pool.cached_bytes() == 8192 * 2 + 4096);
    CHECK(dev.live == 3);
  }
  CHECK(dev.live == 0);  // the pool's destructor freed the cached blocks
}

TEST_CASE("pinned pool: the cache stays within its limit") {
  CountingDevice dev;
  PinnedPool pool(dev, 3 * 4096);
  std::vector<PinnedPool::Block> out;
  for (int i = 0; i < 5; ++i) out.push_back(pool.acquire(4096));
  const auto big = pool.acquire(64 * 1024);  // larger than the whole limit
  for (const auto& b : out) pool.release(b);
  CHECK(pool.cached_bytes() == 3 * 4096);
  CHECK(dev.live == 3 + 1);  // two small blocks freed at release; the big one is still out
  pool.release(big);
  CHECK(dev.live == 3);  // never cached: freed at once
  CHECK(pool.cached_bytes() == 3 * 4096);

  SUBCASE("a limit of 0 caches nothing") {
    PinnedPool none(dev, 0);
    const int before = dev.live;
    none.release(none.acquire(1));
    CHECK(none.cached_bytes() == 0);
    CHECK(dev.live == before);
  }
}

TEST_CASE("pinned pool: requests complete on several threads") {
  CountingDevice dev;
  {
    PinnedPool pool(dev, std::size_t{1} << 20);
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&pool, t] {
        for (int i = 0; i < 500; ++i) {
          const auto b = pool.acquire(static_cast<std::size_t>(1000 * (1 + (i + t) % 8)));
          b.data[0] = std::byte{1};
          b.data[b.capacity - 1] = std::byte{2};
          pool.release(b);
        }
      });
    for (auto& th : threads) th.join();
    CHECK(pool.cached_bytes() <= pool.max_cached_bytes());
    CHECK(dev.allocs <= 4 * 2);  // at most one block per thread and class (4 and 8 KiB)
  }
  CHECK(dev.live == 0);
}
