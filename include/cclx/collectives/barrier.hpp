// barrier: no rank leaves before every rank has entered.
//   count      none: no user buffers; the partition is empty (0 elements in 1 block)
//   blocks     no In, no Out; a schedule's transfers name sched::token(), the empty region
//   messages   the engine posts every transfer of a synchronizing collective as a message, also
//              one of no bytes (it skips empty transfers of every other collective: they carry
//              nothing, and count < nblocks makes them common). Chosen over a library-owned
//              one-byte scratch token: nothing to allocate, no uninitialised byte on the wire,
//              and the rule hangs on the collective, not on a size that a later change could
//              make 0, so a barrier schedule can never quietly lose its messages.
//   postcondition  causal (the verifier proves it): every rank's completion depends, through the
//              messages it received directly or transitively, on every rank's entry
//   MPI        MPI_Barrier
#pragma once

#include "cclx/collectives/descriptor.hpp"

namespace cclx::coll {

/// Descriptor of barrier: no rank leaves before every rank has entered.
struct Barrier : Flags<FlagValues{}> {
  /// The collective's enum value.
  static constexpr Collective id = Collective::barrier;
  /// The collective's name, as users and messages spell it.
  static constexpr std::string_view name = "barrier";
  /// No rank may leave before every rank has entered (collectives/descriptor.hpp).
  static constexpr bool synchronizes = true;

  /// The count as MPI states it, from the sizes of the user's buffers.
  static std::size_t count(std::size_t, std::size_t, bool, int, bool) { return 0; }
  /// Elements in the schedule's partition (all blocks) for a call of `count`.
  static std::size_t partition_count(std::size_t, int) { return 0; }
  /// The blocks each buffer of `rank` covers (schedule/partition.hpp).
  static Windows windows(int, int, int, std::uint32_t) { return {}; }
  /// Where an in-place call's one buffer holds In and Out on `rank`.
  static InPlaceLayout in_place(int, int) { return {false, 0}; }
  /// What Out block `b` of `rank` holds at the end: the verifier's postcondition.
  static Expectation expected(int, int, std::uint32_t) { return {}; }
  /// The out-of-place buffer rule: "" when the sizes fit, else the message.
  static std::string check_sizes(std::size_t, std::size_t, bool, bool, int) { return {}; }
};

}  // namespace cclx::coll
