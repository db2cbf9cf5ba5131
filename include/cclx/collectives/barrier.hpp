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

struct Barrier {
  static constexpr Collective id = Collective::barrier;
  static constexpr std::string_view name = "barrier";
  static constexpr bool reduces = false, rooted = false, blocks_are_ranks = false,
                        equal_blocks = false, root_out_is_input = false;
  static constexpr bool synchronizes = true;

  static std::size_t count(std::size_t, std::size_t, bool, int, bool) { return 0; }
  static std::size_t partition_count(std::size_t, int) { return 0; }
  static Windows windows(int, int, int, std::uint32_t) { return {}; }
  static InPlaceLayout in_place(int, int) { return {false, 0}; }
  static Expectation expected(int, int, std::uint32_t) { return {}; }
  static std::string check_sizes(std::size_t, std::size_t, bool, bool, int) { return {}; }
};

}  // namespace cclx::coll
