// Symbolic verifier: runs a schedule without data, tracking for every block of every buffer which
// ranks' contributions (and which source block) it holds, and proves the collective's
// postcondition plus the execution rules of schedule.hpp. No MPI.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// What the symbolic verifier found: whether the schedule is correct, the first problems, and
/// what each rank sends.
struct VerifyReport {
  bool ok = true;                       ///< true when every check passed (then `errors` is empty)
  std::vector<std::string> errors;      ///< first problems found, each naming rank/step/op
  std::size_t rounds = 0;               ///< steps that move data, over all ranks
  std::vector<std::size_t> bytes_sent;  ///< per rank, for the verified element count and size
  /// Per rank: the messages the engine posts (non-empty transfers; every transfer of a
  /// synchronizing collective, barrier's empty ones included).
  std::vector<std::size_t> messages_sent;
  /// The largest entry of bytes_sent (0 when empty): the busiest sender's bytes.
  [[nodiscard]] std::size_t max_bytes_sent() const;
};

/// `count` elements of `elem_size` bytes, split into the schedule's blocks as in partition.hpp
/// (alltoall: a multiple of nranks, since every pair exchanges the same count / n elements).
/// Error messages name "rank R step S op I", I counting within the step.
/// Checks (each failure is reported with rank, step and op index):
///  - every program exists and regions stay inside their buffer windows; no writes to In unless
///    the schedule is in place; Out is not touched on ranks without one;
///  - sends and receives match one to one, per (sender, receiver) pair in the same step and in
///    order, with equal byte sizes; peers are valid and not the rank itself;
///  - a rank sends and reduces only data it holds; reduce operands hold the same source block and
///    disjoint contributor sets (nothing counted twice);
///  - within a step, no receive lands on data a send of that step reads or another receive
///    writes, and no local action writes what a send or receive of that step uses;
///  - in-place schedules are checked on the aliased storage;
///  - the postcondition of the collective holds on every rank (see partition.hpp for shapes); for a
///    synchronizing collective (barrier) it is causal: every rank's completion depends, through the
///    messages it received directly or transitively, on every rank's entry.
VerifyReport verify(const Schedule& schedule, std::size_t count, std::size_t elem_size = 1);

/// Per-rank block sizes in elements, for the v-collectives (counts given per call): in[r][b] is
/// block b of rank r's In, out[r][b] of its Out (Scratch follows Out). For alltoallv in[r] is rank
/// r's sendcounts and out[r] its recvcounts (out[j][i] == in[i][j] when the call is consistent);
/// for the other v-collectives every row of both is the one counts array. In place, a rank's one
/// buffer has Out's layout, so In's blocks are sized by out[r] there. A transfer whose two ends
/// differ in size is reported like any other size mismatch.
struct BlockSizes {
  /// in[r][b]: elements of block b of rank r's In.
  std::vector<std::vector<std::size_t>> in, out;  ///< out[r][b]: elements of block b of r's Out
};
/// With nranks rows of nblocks entries in both tables (else the report says what is wrong).
VerifyReport verify(const Schedule& schedule, const BlockSizes& sizes, std::size_t elem_size = 1);

/// Two phases run one after the other on the same Scratch (relay.hpp): verifies phase 1 followed by
/// phase 2 as one schedule (phase 2's step s is checked as step L1 + s, L1 = phase 1's rounds, so
/// no message matches across the phases) against the collective's postcondition, and that in
/// phase 1 no rank with started[r] == false reads or writes In or Out (Scratch only). Both phases
/// must agree on collective, nranks, root, in_place, nblocks and scratch_copies.
VerifyReport verify_phases(const Schedule& phase1, const Schedule& phase2,
                           const std::vector<bool>& started, std::size_t count,
                           std::size_t elem_size = 1);

/// Throws cclx::Error listing the problems when verification fails.
void verify_or_throw(const Schedule& schedule, std::size_t count, std::size_t elem_size = 1);

}  // namespace cclx::sched
