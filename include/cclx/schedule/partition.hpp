// How a collective's element count is split into blocks, and which blocks each rank's In and Out
// buffers cover. Shared by every executor and the verifier so they agree on byte offsets.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// `count` elements in `nblocks` blocks: the first count % nblocks blocks get one extra element
/// (the cheap even split of every equal-block collective: no table, no allocation). The
/// v-collectives (gatherv, ...) give their block sizes explicitly: `offsets` then points to
/// nblocks + 1 prefix offsets (block b is [offsets[b], offsets[b + 1]), offsets[nblocks] == count),
/// which the Partition does not own: whoever builds it keeps them alive (engine::make_plan holds
/// its own copy, the verifier its per-rank tables).
struct Partition {
  std::size_t count = 0;                 ///< elements in all blocks together
  std::uint32_t nblocks = 1;             ///< number of blocks (>= 1)
  const std::size_t* offsets = nullptr;  ///< null: the even split; else nblocks + 1 prefix offsets

  /// Element offset of block b from the partition's start; b == nblocks gives `count`.
  [[nodiscard]] std::size_t block_offset(std::uint32_t b) const {
    if (offsets) return offsets[b];
    const std::size_t q = count / nblocks, r = count % nblocks;
    return b * q + (b < r ? b : r);
  }
  /// Elements in block b (b < nblocks).
  [[nodiscard]] std::size_t block_size(std::uint32_t b) const {
    if (offsets) return offsets[b + 1] - offsets[b];
    return count / nblocks + (b < count % nblocks ? 1 : 0);
  }
  /// Element offset of `g`'s first block; its buffer is not looked at, and a Scratch region must be
  /// given as blocks of one copy.
  [[nodiscard]] std::size_t region_offset(const Region& g) const { return block_offset(g.first); }
  /// Elements in `g`'s blocks (same rules as region_offset).
  [[nodiscard]] std::size_t region_size(const Region& g) const {
    return block_offset(g.end()) - block_offset(g.first);
  }
  /// Elements in the largest block.
  [[nodiscard]] std::size_t max_block_size() const {
    if (offsets) {
      std::size_t m = 0;
      for (std::uint32_t b = 0; b < nblocks; ++b) m = block_size(b) > m ? block_size(b) : m;
      return m;
    }
    return count / nblocks + (count % nblocks ? 1 : 0);
  }
};

/// Prefix offsets of blocks of `sizes[0..n)` elements, as Partition::offsets reads them (n + 1
/// entries, the last the total).
template <class Sizes>
void prefix_offsets(const Sizes& sizes, std::size_t n, std::size_t* offsets) {
  offsets[0] = 0;
  for (std::size_t b = 0; b < n; ++b)
    offsets[b + 1] = offsets[b] + static_cast<std::size_t>(sizes[b]);
}

/// Block range a buffer covers on one rank; `present` is false when the rank has no such buffer
/// (e.g. Out on a non-root rank of reduce, In on any rank of bcast).
struct Window {
  bool present = false;     ///< whether the rank has this buffer
  std::uint32_t first = 0;  ///< the first block it covers
  std::uint32_t count = 0;  ///< the number of blocks it covers
  /// Whether the buffer is present and covers every block of `g` (`g`'s buffer is not compared).
  [[nodiscard]] bool contains(const Region& g) const {
    return present && g.first >= first && g.end() <= first + count;
  }
};

/// The blocks each of a rank's In and Out buffers covers.
struct Windows {
  /// The blocks the rank's In covers.
  Window in, out;  ///< the blocks the rank's Out covers
};

}  // namespace cclx::sched
