// engine::ScratchPool: memory as acquire() promises it (64-byte aligned), reused after it is
// given back.
#include <doctest/doctest.h>

#include <cstdint>

#include "cclx/engine/scratch_pool.hpp"

TEST_CASE("scratch pool: 64-byte aligned blocks, the smallest free one that fits reused") {
  cclx::engine::ScratchPool pool;
  const void* first = nullptr;
  for (std::size_t bytes :
       {std::size_t{1}, std::size_t{100}, std::size_t{4096}, std::size_t{1} << 20}) {
    auto lease = pool.acquire(bytes);
    REQUIRE(lease.data() != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(lease.data()) % 64 == 0);
    if (!first) first = lease.data();
  }
  auto again = pool.acquire(1);  // the smallest free block that fits
  CHECK(again.data() == first);
}
