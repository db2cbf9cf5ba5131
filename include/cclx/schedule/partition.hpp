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

// The collectives' buffer shapes, for a partition of `nblocks` blocks:
//   allreduce       In = Out = [0, nblocks)
//   reduce          In = [0, nblocks); Out = [0, nblocks) on the root only
//   bcast           Out = [0, nblocks) (the root's Out holds the data initially); no In
//   reduce_scatter  nblocks == n: In = [0, n), Out = [rank, rank + 1)
//   allgather       nblocks == n: In = [rank, rank + 1), Out = [0, n)
//   alltoall        nblocks == n: In = [0, n) (block i goes to rank i), Out = [0, n) (from rank i)
[[nodiscard]] inline Windows windows_of(Collective c, int nranks, int rank, int root,
                                        std::uint32_t nblocks) {
  const auto r = static_cast<std::uint32_t>(rank);
  (void)nranks;
  switch (c) {
    case Collective::allreduce:
      return {{true, 0, nblocks}, {true, 0, nblocks}};
    case Collective::reduce:
      return {{true, 0, nblocks}, {rank == root, 0, nblocks}};
    case Collective::bcast:
      return {{false, 0, 0}, {true, 0, nblocks}};
    case Collective::reduce_scatter:
      return {{true, 0, nblocks}, {true, r, 1}};
    case Collective::allgather:
      return {{true, r, 1}, {true, 0, nblocks}};
    case Collective::alltoall:
      return {{true, 0, nblocks}, {true, 0, nblocks}};
  }
  return {};
}

// In-place calls use one user buffer. Where In's blocks live inside it, in block units relative to
// the user buffer's start (MPI's MPI_IN_PLACE conventions):
//   allreduce, reduce(root), alltoall: In block b is at b (In and Out coincide)
//   allgather: the rank's own In block is Out block `rank`
//   reduce_scatter: In is the whole buffer and the result (Out) goes to block 0
// A non-root rank of reduce never has its In written, in place or not (MPI leaves its send buffer
// alone). in_place_out_shift gives Out's placement: Out block b lives at user-buffer block b -
// shift.
[[nodiscard]] inline std::uint32_t in_place_out_shift(Collective c, int rank) {
  return c == Collective::reduce_scatter ? static_cast<std::uint32_t>(rank) : 0u;
}

}  // namespace cclx::sched
