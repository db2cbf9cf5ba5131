// Parallel spanning trees over ranks (AdapCC's "sub-collectives"): the data is split among M trees,
// each tree carries its share up (reduce) and down (bcast) in pipelined chunks. This header holds
// the data and the topology-free par-trees heuristic; synthesis.hpp chooses trees on a Topology,
// schedules.hpp turns a TreeSet into schedules (docs/algorithms/adaptive.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// A spanning tree over ranks: parent[r] (-1 for the root), children in the order they are served
/// (a node sends down to its children in this order within a step).
struct Tree {
  int root = 0;                            ///< the rank at the root
  std::vector<int> parent;                 ///< by rank: its parent, -1 for the root
  std::vector<std::vector<int>> children;  ///< by rank: its children, in the order they are served
};

/// M parallel trees. Partition: every tree carries K = chunks_per_tree(bytes) chunks, nblocks =
/// M * K, and tree t owns blocks [t*K, (t+1)*K) (so tree t carries about 1/M of the data; blocks
/// are the even split of partition.hpp). Chunks flow through a tree one step apart (pipelining).
struct TreeSet {
  int nranks = 1;           ///< the ranks [0, nranks) that every tree spans
  std::vector<Tree> trees;  ///< the M trees, tree t owning blocks [t*K, (t+1)*K)
  /// Bytes per chunk that chunks_per_tree() aims at (default 4 MiB; 0 counts as 1).
  std::size_t chunk_bytes = 4 << 20;

  /// Chunks per tree for a message of `bytes`: ceil(bytes / (M * chunk_bytes)) in [1, kMaxChunks].
  [[nodiscard]] std::uint32_t chunks_per_tree(std::size_t bytes) const;
  /// Blocks of the partition for a message of `bytes`: M * chunks_per_tree(bytes).
  [[nodiscard]] std::uint32_t nblocks(std::size_t bytes) const {
    return chunks_per_tree(bytes) * static_cast<std::uint32_t>(trees.size());
  }
  /// Scratch copies the schedules need: one accumulator plus one landing copy per child of the
  /// node with the most children (each child's chunks land in their own copy).
  [[nodiscard]] std::uint32_t scratch_copies() const;
  /// "M=2,chunk=4194304;t0: 0->1,2 1->3;t1: ..." (each parent with its children) for tools and
  /// cache keys.
  [[nodiscard]] std::string describe() const;
};

/// The most chunks a tree carries (TreeSet::chunks_per_tree()'s cap).
inline constexpr std::uint32_t kMaxChunks = 64;

/// Builds `children` from `parent` (children in increasing rank order unless `order` is given: a
/// rank's children are served in the order they appear in `order`).
[[nodiscard]] Tree tree_from_parents(std::vector<int> parent, const std::vector<int>& order = {});

/// Throws cclx::Error unless every tree spans exactly ranks [0, nranks) with one root, parents in
/// range, no cycles, and children consistent with parents.
void check_trees(const TreeSet& ts);

/// The par-trees heuristic (AdapCC's default) on a host layout, without a topology:
///   host_of_rank[r]  host index of rank r (any labels >= 0; ranks of one host keep rank order);
///   host_order       hosts from fastest to slowest (the heap puts the first ones near the root,
///                    where they carry the most traffic); empty: host index order;
///   fanout           children per host in the host-level heap (2 = AdapCC's binary heap, 1 = a
///                    chain of hosts);
///   rotate           tree t uses host_order rotated by t (AdapCC), so every tree has another root
///                    host; otherwise every tree uses host_order;
///   root             >= 0: every tree is rooted at this rank (reduce, bcast); -1: free roots.
/// Inside a host the ranks form a chain below the host's leader (tree t's leader is the host's
/// (t mod k)-th rank). A node serves its host-level children first, then its chain child.
[[nodiscard]] TreeSet par_trees(const std::vector<int>& host_of_rank,
                                const std::vector<int>& host_order, int ntrees, int fanout,
                                bool rotate, int root, std::size_t chunk_bytes);

}  // namespace cclx::sched
