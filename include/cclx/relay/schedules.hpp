// Relay schedules over a TreeSet (AdapCC's relay control, made exact): ranks whose data is not
// ready yet ("inactive") forward the others' data in phase 1 without adding their own; phase 2
// folds their data in, so phase 1 followed by phase 2 is the whole collective over all ranks.
// docs/algorithms/adaptive.md explains the design; trees.hpp the partition into blocks.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/relay/trees.hpp"
#include "cclx/schedule/concat.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// Both phases are ordinary Schedules (same nblocks and scratch_copies; Scratch carries over from
/// phase 1 to phase 2 on every rank). Per rank behaviour on each tree (AdapCC's rules):
///   has data   the rank is active, or some rank below it in the tree is;
///   receive    from each child whose subtree has data (inactive children's slots are never read);
///   aggregate  whenever two or more operands meet (own In, children's chunks); an inactive rank
///              with exactly one child with data forwards that chunk unchanged;
///   send       up to the parent unless it is the tree root or has no data.
/// allreduce / reduce, all active or none active: one phase is the whole collective (reduce up
///   the trees, allreduce then broadcasts each tree root's result down the same tree, pipelined),
///   the other phase is empty (all active: phase 2; none active: phase 1).
/// reduce, some active: phase 1 reduces the active ranks' data to the root's Scratch (copy 0 of
///   each tree's blocks); phase 2 reduces the inactive ranks' data up the same trees and the root
///   writes partial (+) late into Out.
/// allreduce, some active: phase 1 is the active ranks' allreduce P (relayed by the inactive
///   ranks), landing in Out on active ranks and in a Scratch copy of its own on inactive ones;
///   phase 2 reduces the inactive ranks' data L to one inactive rank per tree (tree k: the
///   (k mod m)-th of the m inactive ranks, the tree re-rooted there or with it and the old root
///   trading places, whichever gives it fewer children), broadcasts L down that tree, and every
///   rank computes Out = P (+) L itself (same operands in the same order everywhere). Phase 2 is
///   then one broadcast when one rank is late. These plans need 2 + (most neighbours of a node in
///   any tree) Scratch copies; all the others TreeSet::scratch_copies().
/// bcast (every tree rooted at the root)
///   root active   phase 1 broadcasts down the trees; inactive ranks land and forward the chunks
///                 in Scratch; phase 2 copies Scratch to Out on the inactive ranks (no messages).
///   root inactive phase 1 is empty, phase 2 is the whole broadcast.
/// In phase 1 an inactive rank neither reads In nor touches Out (Scratch only); the verifier's
/// verify_phases() proves it together with the result. Every reduction is computed once and
/// broadcast (P at a tree root, L at its inactive root, P (+) L from the same bits on every rank),
/// so float results are bitwise identical on all ranks. Reductions combine in
/// tree order, not rank order (no non-commutative ops).
/// Requirements: trees.nranks == req.nranks; for reduce and bcast every tree is rooted at req.root;
/// active.size() == nranks. req.only_rank >= 0 builds that rank's programs only (the timing of the
/// trees is computed in O(nranks) per tree). Throws cclx::Error otherwise.
struct RelayPlan {
  /// What every rank runs when the ranks proceed; an inactive rank at most relays others' data.
  Schedule phase1, phase2;  ///< what then folds the inactive ranks' data in
};
/// The two phases on `trees` for the ranks `active` marks, by the rules described at RelayPlan.
[[nodiscard]] RelayPlan relay_schedules(const TreeSet& trees, const ScheduleRequest& req,
                                        const std::vector<bool>& active);

/// The most blocks (chunks of phase 2) a subset or owner plan splits the data into.
inline constexpr std::size_t kMaxSubsetChunks = 512;
/// The phase-1 schedules algo::Adaptive prices for its subset plans (plan 1 + index; plan 0 is
/// relay_schedules on its trees), in order of preference on ties.
inline constexpr std::string_view kSubsetAlgorithms[] = {"ring", "rhd"};
/// The subset plans' default segment_bytes: phase 2 runs in blocks of about 64 KiB.
inline constexpr std::size_t kSubsetSegmentBytes = std::size_t{64} << 10;
/// Subset plans (allreduce only): phase 1 is the library schedule `algorithm` (a registry name:
/// "ring", "rhd", ...) generated for the m active ranks and remapped onto them; inactive ranks have
/// empty phase-1 programs (nothing to relay). Phase 2 folds the k late ranks in along one chain
/// L1 -> ... -> Lk -> A1 -> ... -> Am (ranks ascending in each group), pipelined in chunks: the
/// late ranks reduce their data L, each active rank computes Out = P (+) L as a chunk lands and
/// forwards L, and Am's result streams back Am -> Lk -> ... -> L1. Every directed link carries one
/// stream, so with one late rank phase 2 costs one pass of the data over a link plus the chain's
/// fill. Float results are bitwise identical everywhere (P from the generator is, L is forwarded,
/// late ranks receive Am's bits). The partition is the generator's blocks each split into g, with
/// g such that there are about bytes / segment_bytes blocks (at most kMaxSubsetChunks, at least
/// the generator's); one block is one chunk of phase 2. All active: phase 2 is empty; none
/// active: phase 1 is empty. only_rank as in relay_schedules. Throws cclx::Error for another
/// collective or a malformed request (and whatever the generator throws).
[[nodiscard]] RelayPlan subset_relay_schedules(std::string_view algorithm,
                                               const ScheduleRequest& req,
                                               const std::vector<bool>& active,
                                               std::size_t segment_bytes = kSubsetSegmentBytes);

/// The most late ranks' blocks an owner lands at a time in an owner plan (its Scratch copies).
inline constexpr long long kOwnerLandings = 4;
/// Smaller than the subset plans' blocks: phase 2 is a two-stage pipeline (late rank to owner,
/// owner to everyone) whose fill costs one round of blocks. On the testbed (8 hosts, 4 MiB, one
/// late rank) phase 2 took 0.181 s with 16 KiB blocks against 0.192 s with 64 KiB (simulated 0.186
/// and 0.195 s); docs/algorithms/adaptive.md, "Limits".
inline constexpr std::size_t kOwnerSegmentBytes = std::size_t{16} << 10;
/// Owner plans (allreduce only): phase 1 is the ring's reduce-scatter over the k active ranks
/// (ranks ascending), after which the i-th active rank holds chunk i of their reduction P in Out;
/// phase 2 sends each chunk of every late rank's data to its owner, which folds the late ranks in
/// (in rank order) and sends the finished chunk to every other rank, pipelined in blocks of about
/// segment_bytes (at most kMaxSubsetChunks blocks in all). A late rank's data leaves it once, and
/// phase 1 moves half of what a ring subset plan's does; the price is that an owner sends
/// (n - 1) / k of the data in phase 2. Float results are bitwise identical everywhere (each result
/// block is computed on its owner only). Late ranks land at most kOwnerLandings at a time, which
/// bounds Scratch to that many copies. Throws cclx::Error when no rank is active, and as
/// subset_relay_schedules does.
[[nodiscard]] RelayPlan owner_relay_schedules(const ScheduleRequest& req,
                                              const std::vector<bool>& active,
                                              std::size_t segment_bytes = kOwnerSegmentBytes);

/// The relay plans of a partial active set, by index, in order of preference on ties: 0
/// relay_schedules on `trees`; for allreduce 1.. the subset plans (kSubsetAlgorithms), then the
/// owner plan. The one list algo::Adaptive's model prices, its decisions name and tools take.
[[nodiscard]] int partial_relay_plans(Collective c);
/// "trees", "subset-ring", "subset-rhd", "owners"; throws cclx::Error for an index out of range.
[[nodiscard]] std::string partial_relay_plan_name(Collective c, int index);
/// The index of the plan partial_relay_plan_name() calls `name`; throws cclx::Error naming the
/// known plans otherwise.
[[nodiscard]] int partial_relay_plan_index(Collective c, std::string_view name);
/// Plan `index` of partial_relay_plans() for the ranks `active` marks (`trees` serves plan 0
/// only); throws cclx::Error for an index out of range.
[[nodiscard]] RelayPlan partial_relay_plan(int index, const TreeSet& trees,
                                           const ScheduleRequest& req,
                                           const std::vector<bool>& active);

/// The all-active schedule (relay_schedules' phase 1 with every rank active).
[[nodiscard]] Schedule tree_schedule(const TreeSet& trees, const ScheduleRequest& req);

}  // namespace cclx::sched
