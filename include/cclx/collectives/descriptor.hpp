// The vocabulary of collective descriptors. Each collective is described once, in its own header
// (allreduce.hpp, ...), by a struct with the members below; everything that needs to know what a
// collective means reads it through collectives.hpp: the Communicator's overloads and argument
// checks, the engine's buffer windows, the verifier's initial state and postcondition, names.
//
// A descriptor D has
//   id, name                       the enum value and the user-visible name
//   reduces, rooted, blocks_are_ranks, equal_blocks, root_out_is_input
//                                  its flags, from its base Flags<FlagValues{...}> (below)
//   count(in_size, out_size, in_place, n, is_root)
//                                  the user-visible count (elements per block as MPI counts
//                                  them) from the sizes of the user's buffers
//   partition_count(count, n)      elements in the schedule's partition (all blocks)
//   windows(n, rank, root, nb)     the blocks each buffer covers on a rank (partition.hpp)
//   in_place(rank, root)           where an in-place call's single buffer holds In and Out
//   expected(rank, root, block)    what Out block `block` of `rank` must hold at the end
//   check_sizes(call, rank, n)     the out-of-place buffer rule ("" when fine)
//   synchronizes                   optional, false when absent: no rank may leave before every
//                                  rank has entered (barrier). The verifier proves that causally
//                                  instead of checking Out blocks, and the engine posts every
//                                  transfer of the schedule as a message even when it carries no
//                                  bytes (collectives/barrier.hpp)
//
// The v-collectives (gatherv.hpp, scatterv.hpp, allgatherv.hpp, reduce_scatterv.hpp,
// alltoallv.hpp) have per-rank block sizes instead of count() and check_sizes(); each derives
// the members it shares with its shape from VariableCounts<Shape> (below):
//   variable_counts = true         block b holds counts[b] elements; the counts are given per call
//                                  (on every rank, CollectiveCall::blocks), count is their total
//   shape                          the equal-block collective whose windows, in-place layout,
//                                  postcondition and schedules this one shares: a generator of
//                                  `shape` serves the v-collective unchanged (schedules are in
//                                  blocks; nblocks == n)
//   separate_out_counts (opt.)     Out's blocks have their own counts (alltoallv's recvcounts,
//                                  In's are its sendcounts); otherwise one array sizes both
// and one buffer rule for all of them (call::check_call): a buffer whose window is one block
// holds exactly that block's count; an n-block buffer holds the blocks packed (exactly the sum of
// their counts), or, with MPI displacements (cclx::Displs, algo::Native only), at least up to the
// end of its last non-empty block. In place the one buffer has the layout of Out's counts (In and
// Out alias it as in the equal-block collective). Scratch follows Out's layout.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "cclx/schedule/partition.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::coll {

using sched::Collective;
using sched::Window;
using sched::Windows;

/// Where an in-place call's one user buffer U holds In and Out.
struct InPlaceLayout {
  /// In's blocks live in U, In block b at U's block b; otherwise In is not in U (a bcast has no
  /// In; a non-root rank of reduce only reads its buffer, which the engine sees as In only).
  bool aliased = true;
  std::uint32_t out_shift = 0;  ///< Out block b is U's block b - out_shift
};

/// The verifier's postcondition for one Out block: which partition block's data it must hold,
/// combined from whom.
struct Expectation {
  /// Whose contributions the block holds: not checked, every rank's combined, or one rank's.
  enum class From : std::uint8_t { unchecked, all_ranks, one_rank };
  From from = From::unchecked;  ///< whose contributions
  std::uint32_t block = 0;      ///< the partition block whose data it holds
  int rank = -1;                ///< the one rank, for From::one_rank
};

/// The flags of a collective, false unless named: `Flags<FlagValues{.rooted = true}>`.
struct FlagValues {
  bool reduces = false;            ///< takes a reduction op
  bool rooted = false;             ///< has a root (checked to be in [0, n))
  bool blocks_are_ranks = false;   ///< the partition has one block per rank (nblocks == n)
  bool equal_blocks = false;       ///< every block has the same size (alltoall)
  bool root_out_is_input = false;  ///< the root's Out holds the data initially (bcast)
};

/// A descriptor's flags as its static members; a descriptor derives from it.
template <FlagValues F>
struct Flags {
  static constexpr bool reduces = F.reduces;                      ///< FlagValues::reduces
  static constexpr bool rooted = F.rooted;                        ///< FlagValues::rooted
  static constexpr bool blocks_are_ranks = F.blocks_are_ranks;    ///< FlagValues::blocks_are_ranks
  static constexpr bool equal_blocks = F.equal_blocks;            ///< FlagValues::equal_blocks
  static constexpr bool root_out_is_input = F.root_out_is_input;  ///< FlagValues::root_out_is_input
};

/// Traits of the optional members (absent: false, or the collective itself). Whether D is a
/// v-collective, with block sizes given per call.
template <class D>
inline constexpr bool variable_counts = requires {
  requires D::variable_counts;
};
/// Whether D's Out blocks have counts of their own (alltoallv's recvcounts) instead of In's.
template <class D>
inline constexpr bool separate_out_counts = requires {
  requires D::separate_out_counts;
};
/// The equal-block collective whose windows, layout and schedules D shares: D::shape, else D::id.
template <class D>
constexpr Collective shape_of() {
  if constexpr (requires { D::shape; })
    return D::shape;
  else
    return D::id;
}

/// The members a v-collective shares with its equal-block `Shape` (gather for gatherv, ...): its
/// flags (but equal_blocks: a v-collective's blocks have their own sizes), windows, in-place
/// layout and postcondition; the partition is the per-call counts' total. A v-collective's
/// descriptor derives from it and adds its id and name (and separate_out_counts).
template <class Shape>
struct VariableCounts : Flags<FlagValues{.reduces = Shape::reduces,
                                         .rooted = Shape::rooted,
                                         .blocks_are_ranks = Shape::blocks_are_ranks,
                                         .root_out_is_input = Shape::root_out_is_input}> {
  static constexpr bool variable_counts = true;   ///< sizes given per call
  static constexpr Collective shape = Shape::id;  ///< the shape's id

  /// Elements in the schedule's partition: the per-call counts' total.
  static std::size_t partition_count(std::size_t count, int /*n*/) { return count; }
  /// The blocks each buffer of `rank` covers: the shape's.
  static Windows windows(int n, int rank, int root, std::uint32_t nb) {
    return Shape::windows(n, rank, root, nb);
  }
  /// Where an in-place call's one buffer holds In and Out: the shape's layout.
  static InPlaceLayout in_place(int rank, int root) { return Shape::in_place(rank, root); }
  /// What Out block `b` of `rank` holds at the end: the shape's postcondition.
  static Expectation expected(int rank, int root, std::uint32_t b) {
    return Shape::expected(rank, root, b);
  }
};

/// For expected(): the Out block holds partition block `block` combined over every rank.
inline Expectation from_all(std::uint32_t block) {
  return {Expectation::From::all_ranks, block, -1};
}
/// For expected(): the Out block holds rank `rank`'s data of partition block `block`.
inline Expectation from_rank(std::uint32_t block, int rank) {
  return {Expectation::From::one_rank, block, rank};
}

/// The message check_sizes returns when the out-of-place buffers break the collective's rule.
inline std::string size_mismatch(std::string_view what, std::size_t in, std::size_t out,
                                 const char* rule) {
  return std::string(what) + ": buffer sizes do not match (input " + std::to_string(in) +
         ", output " + std::to_string(out) + " elements; expected " + rule + ")";
}

/// The message check_sizes returns when a buffer of `size` elements cannot hold n equal blocks.
inline std::string not_divisible(std::string_view what, const char* buffer, std::size_t size,
                                 int n) {
  return std::string(what) + ": " + buffer + std::to_string(size) +
         " elements is not divisible into " + std::to_string(n) + " equal blocks";
}

}  // namespace cclx::coll
