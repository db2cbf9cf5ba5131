// MpiBackend's state, shared by the backend's source files (one per concern: lifetime and
// point-to-point, native collectives, validation, clock, datatypes, user ops).
#pragma once

#include <mpi.h>

#include <initializer_list>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include "cclx/backend/mpi.hpp"
#include "cclx/backend/mpi_transport.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/settings.hpp"
#include "mpi_check.hpp"
#include "mpi_pending.hpp"
#include "mpi_roll_call.hpp"
#include "mpi_user_op.hpp"

namespace cclx {

namespace detail {
class RelayHub;  // relay/runtime.cpp

// Collective over `comm` (one MPI_Allgather), at a backend's construction: where some rank finds
// one of `read` or `wire` invalid, or sees a value of one of `wire` (booleans, integers, byte
// sizes) other than rank 0's, every rank throws the same cclx::Error naming the variable and the
// ranks (mpi_validate.cpp).
void agree_settings(MPI_Comm comm, int rank, int size, std::initializer_list<settings::Id> read,
                    std::initializer_list<settings::Id> wire);
}  // namespace detail

struct MpiBackend::State {
  MPI_Comm user = MPI_COMM_NULL;
  bool owns_user = false;
  MPI_Comm internal = MPI_COMM_NULL;
  int rank = 0, size = 1;
  // Who is missing when a collective times out (declared before the transports that ask it).
  std::unique_ptr<detail::RollCall> roll;
  std::unique_ptr<MpiTransport> transport;
  engine::ScratchPool scratch;
  unsigned channel = 0;
  engine::WaitPolicy wait;
  std::size_t handshake_bytes = 0;
  double timeout_s = 0;                             // 0: none
  MPI_Op user_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};  // [commutative]
  bool clock_calibrated = false;
  double clock_offset = 0.0;
  // The host map (MpiBackend::host_ids, mpi_hosts.cpp), made at its first use.
  std::vector<int> host_ids;
  bool host_ids_known = false;
  // A nonblocking collective on these communicators was abandoned at its deadline. MPI can neither
  // cancel nor free it, and Open MPI's progress engine touches its communicator later (freeing it
  // made the next unrelated MPI call crash in libnbc), so the communicators are then never freed.
  mutable bool abandoned_collective = false;
  // Scheduled persistent requests (mpi_persistent.cpp): their own duplicate of the private
  // communicator, made at the first such request, where each request holds a tag that no other
  // live request holds on any rank.
  std::unique_ptr<MpiTransport> persistent;
  MPI_Comm persistent_comm = MPI_COMM_NULL;
  unsigned persistent_next = 0;   // where the search for a free tag starts (equal on all ranks)
  std::mutex persistent_mu;       // guards persistent_live (requests may die on any thread)
  std::set<int> persistent_live;  // tags of this rank's live requests (and abandoned ones)
  bool persistent_abandoned = false;
  // Relay collectives (algo::Adaptive, relay/runtime.cpp): the control communicator and the
  // progress thread, made at the first adaptive init; stopped first when the state dies.
  std::shared_ptr<detail::RelayHub> relay;

  MPI_Op user_op(bool commutative) {
    MPI_Op& op = user_ops[commutative ? 1 : 0];
    if (op == MPI_OP_NULL)
      detail::mpi_check(MPI_Op_create(&detail::user_op_trampoline, commutative ? 1 : 0, &op), rank,
                        "MPI_Op_create");
    return op;
  }
  ~State() {
    relay.reset();  // joins the progress thread before the communicators go
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;             // too late to free anything; MPI has released it
    if (abandoned_collective) return;  // deliberately leaked (see abandoned_collective)
    // Likewise after a scheduled execution was abandoned (MpiTransport::abandoned()).
    if (transport && transport->abandoned()) return;
    persistent.reset();
    // After an abandoned request a late peer may still send on it (see mpi_persistent.cpp).
    if (persistent_comm != MPI_COMM_NULL && !persistent_abandoned) MPI_Comm_free(&persistent_comm);
    for (auto& op : user_ops)
      if (op != MPI_OP_NULL) MPI_Op_free(&op);
    if (internal != MPI_COMM_NULL) MPI_Comm_free(&internal);
    if (owns_user && user != MPI_COMM_NULL) MPI_Comm_free(&user);
  }

  // Completes `req` (started by the caller), polling with the wait policy, against the deadline
  // if one is set. On expiry a point-to-point request (`p2p`) is cancelled (a collective one
  // cannot be) and the call throws cclx::Error with `message()` + " did not complete within T s",
  // and for a collective the roll call's verdict.
  template <class Message>
  void finish(MPI_Request& req, bool p2p, Message&& message) const {
    if (detail::wait_until_deadline(req, timeout_s, wait, rank, "MPI_Test", *roll)) return;
    if (p2p) {
      MPI_Cancel(&req);
      MPI_Request_free(&req);
    } else {
      abandoned_collective = true;
    }
    throw Error(rank, message() + " did not complete within " + engine::format_seconds(timeout_s) +
                          (p2p ? "" : roll->verdict(timeout_s)));
  }

  // A new duplicate of the private communicator (errors return), for persistent requests.
  // Collective; waits with the wait policy (MPI_Comm_dup spins, which starves oversubscribed
  // ranks) and against the deadline, like a collective.
  MPI_Comm dup_private() const {
    // MPI writes the handle when the duplication completes: if it never does, it must outlive
    // this call, so it lives on the heap and is leaked then.
    auto out = std::make_unique<MPI_Comm>(MPI_COMM_NULL);
    MPI_Request req = MPI_REQUEST_NULL;
    detail::mpi_check(MPI_Comm_idup(internal, out.get(), &req), rank, "MPI_Comm_idup");
    try {
      finish(req, false, [] { return std::string("persistent init: MPI_Comm_idup"); });
    } catch (const Error&) {
      (void)out.release();
      throw;
    }
    return *out;
  }

  // A pending MPI request of `s` for a Request: keeps the state alive and carries the deadline.
  static std::unique_ptr<detail::MpiPending> pending(const std::shared_ptr<State>& s,
                                                     const char* what, int peer) {
    auto p = std::make_unique<detail::MpiPending>();
    p->backend = s;
    p->rank = s->rank;
    p->peer = peer;
    p->what = what;
    p->timeout_s = s->timeout_s;
    p->policy = s->wait;
    p->roll = s->roll.get();
    return p;
  }
};

namespace detail {
// A tag of the persistent requests' communicator that no live request holds on any rank, now
// held by this rank (collective; makes the communicator at the first call), and its release.
int reserve_persistent_tag(MpiBackend::State& s);
void release_persistent_tag(MpiBackend::State& s, int tag) noexcept;
}  // namespace detail

}  // namespace cclx
