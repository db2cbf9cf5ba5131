// The roll call: when a collective times out, which ranks never joined it, asked of every rank
// on a communicator of its own, so that every waiting rank names the same culprits (not only
// the peer it happened to wait for). Also the survivors' agreement of MpiBackend::survivors().
// docs/faults.md describes what each rank learns.
#pragma once

#include <mpi.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::detail {

class RollCall {
 public:
  /// Collective over `parent`: duplicates it (errors return).
  RollCall(MPI_Comm parent, int rank, int size);
  ~RollCall();
  RollCall(const RollCall&) = delete;
  RollCall& operator=(const RollCall&) = delete;

  /// Every rank counts the collectives it enters on the communicator, in the same order (the
  /// backend's call hooks write it directly: a member, not a function, on every call's path).
  struct Calls {
    std::uint64_t entered = 0;  ///< collectives entered so far
    std::int32_t last = -1;     ///< the last one's sched::Collective; -1: none yet
    void enter(sched::Collective c) {
      ++entered;
      last = static_cast<std::int32_t>(c);
    }
  } calls;
  /// Answers the roll calls of other ranks that arrived (one MPI_Iprobe when none did). Wait
  /// loops call it every few milliseconds while nothing completes.
  void serve() noexcept;
  /// serve() on every 128th call: for test(), which callers may poll in a tight loop.
  void serve_sometimes() noexcept {
    if ((++polls_ & 127u) == 0) serve();
  }
  /// After this rank's collective failed (its deadline `timeout_s` passed, or a transfer
  /// failed): asks every rank where it is and waits for the answers at most half the deadline,
  /// between 0.2 and 2 s. Returns the text for the error message ("; missing: ...") and
  /// remembers the ranks it names, the suspects of a later survivors(). Further failures before
  /// this rank enters another collective (its other pending requests) get the same text at once.
  std::string verdict(double timeout_s);

  /// The survivors' agreement (collective over the survivors): every survivor proposes the ranks
  /// it suspects; rounds until all proposals are equal, a rank silent for a whole round (twice
  /// the deadline `timeout_s` and the verdict's window; 10 s without a deadline) joining the
  /// suspects. Returns the communicator of the others (MPI_Comm_create_group, ranks in order).
  /// Throws cclx::Error if this rank is among the suspects of the others.
  MPI_Comm survivors(double timeout_s);

  /// What one rank says of itself (sent as bytes).
  struct Status {
    std::uint64_t entered = 0;   ///< collectives entered on the communicator
    std::int32_t last = -1;      ///< the last one's sched::Collective; -1: none yet
    std::int32_t kind = 0;       ///< query or answer (the tags, mpi_roll_call.cpp)
    std::int32_t shrinking = 0;  ///< 1: in survivors(), after a failure it saw
    std::int32_t unused = 0;     ///< padding, so that no byte sent is uninitialized
  };

 private:
  static double window(double timeout_s);  // verdict()'s wait for answers
  void send(int peer, int tag, const void* data, int bytes);
  void reap() noexcept;  // frees the buffers of sends that completed
  void take(const Status& s, int from) noexcept;

  struct Outgoing;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, size_ = 1;
  bool used_ = false;          // a roll call ran: peers may still send; the communicator is kept
  bool shrunk_ = false;        // survivors() was called
  unsigned polls_ = 0;         // serve_sometimes() calls
  std::vector<Status> known_;  // per rank: the newest status heard (kind 0: none)
  std::vector<std::uint64_t> heard_in_;  // per rank: calls.entered when that status arrived
  std::vector<std::unique_ptr<Outgoing>> outgoing_;
  std::vector<int> suspects_;
  std::string last_verdict_;  // verdict()'s text, and calls.entered when it was made
  std::uint64_t verdict_in_ = 0;
};

}  // namespace cclx::detail
