// How a collective's element count is split into blocks, and which blocks each rank's In and Out
// buffers cover. Shared by every executor and the verifier so they agree on byte offsets.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

// `count` elements in `nblocks` blocks: the first count % nblocks blocks get one extra element.
struct Partition {
  std::size_t count = 0;
  std::uint32_t nblocks = 1;

  [[nodiscard]] std::size_t block_offset(std::uint32_t b) const {
    const std::size_t q = count / nblocks, r = count % nblocks;
    return b * q + (b < r ? b : r);
  }
  [[nodiscard]] std::size_t block_size(std::uint32_t b) const {
    return count / nblocks + (b < count % nblocks ? 1 : 0);
  }
  [[nodiscard]] std::size_t region_offset(const Region& g) const { return block_offset(g.first); }
  [[nodiscard]] std::size_t region_size(const Region& g) const {
    return block_offset(g.end()) - block_offset(g.first);
  }
  [[nodiscard]] std::size_t max_block_size() const {
    return count / nblocks + (count % nblocks ? 1 : 0);
  }
};

// Block range a buffer covers on one rank; `present` is false when the rank has no such buffer
// (e.g. Out on a non-root rank of reduce, In on any rank of bcast).
struct Window {
  bool present = false;
  std::uint32_t first = 0;
  std::uint32_t count = 0;
  [[nodiscard]] bool contains(const Region& g) const {
    return present && g.first >= first && g.end() <= first + count;
  }
};

struct Windows {
  Window in, out;
};

}  // namespace cclx::sched
