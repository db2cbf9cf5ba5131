// The MPI backend: wraps an MPI_Comm, provides point-to-point on it, the MPI library's own
// collectives ("native"), and a transport on a private duplicate for executing schedules.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "cclx/backend/backend.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/transport.hpp"
#include "cclx/engine/wait_policy.hpp"
#include "cclx/persistent.hpp"
#include "cclx/request.hpp"
#include "cclx/types.hpp"

namespace cclx {

/// The MPI datatype of `t` (MPI_INT8_T ... MPI_UINT64_T, MPI_FLOAT, MPI_DOUBLE,
/// MPI_LONG_DOUBLE, MPI_C_BOOL).
[[nodiscard]] MPI_Datatype mpi_datatype(DataType t);
/// The MPI_Op that computes `op` on `t`: the builtin one, except where the MPI library gets it
/// wrong (MPICH 4.0.2's MPI_MAX/MPI_MIN on unsigned types, found by a probe once per process),
/// where it is a cclx-defined op. Throws cclx::Error for OpId::user.
[[nodiscard]] MPI_Op mpi_op(OpId op, DataType t);

namespace detail {
/// True when mpi_op(op, t) replaces the builtin MPI_MAX/MPI_MIN because the probe found it wrong.
[[nodiscard]] bool mpi_unsigned_minmax_workaround(DataType t, OpId op);
}  // namespace detail

/// The MPI backend: point-to-point on the user's communicator, MPI's own collectives, and a
/// transport for schedules on a private duplicate.
class MpiBackend {
 public:
  /// Collective over `comm`: both modes also duplicate a private communicator for schedule traffic
  /// so that the library's messages never match the application's. The communicators the backend
  /// creates return MPI errors (MPI_ERRORS_RETURN), which become cclx::Error; a borrowed one keeps
  /// the caller's error handler. Throws cclx::Error before any MPI call if MPI is not initialized
  /// or already finalized.
  explicit MpiBackend(MPI_Comm comm = MPI_COMM_WORLD, Ownership own = Ownership::duplicate);
  ~MpiBackend();
  /// Takes over the other backend's state; a moved-from backend may only be destroyed or assigned.
  MpiBackend(MpiBackend&&) noexcept;
  /// Drops this backend's state (freed once no request holds it) and takes over the other's.
  MpiBackend& operator=(MpiBackend&&) noexcept;

  /// This process's rank in the communicator.
  [[nodiscard]] int rank() const;
  /// The number of ranks in the communicator.
  [[nodiscard]] int size() const;
  /// The user's communicator: the duplicate (Ownership::duplicate) or the borrowed one.
  [[nodiscard]] MPI_Comm native_handle() const;
  /// A host id per rank of the communicator, for the hierarchical policies (docs/hierarchical.md):
  /// equal ids share a host. From CCLX_HOSTS or CCLX_RANKS_PER_HOST when set (emulated hosts, on
  /// MPI_COMM_WORLD's ranks), else MPI_Comm_split_type(MPI_COMM_TYPE_SHARED). Collective on its
  /// first call, which keeps the map for the backend's lifetime; throws cclx::Error on a bad
  /// setting.
  [[nodiscard]] std::span<const int> host_ids() const;

  /// Point-to-point on the user's communicator (its tags are the application's): a blocking send
  /// of `count` elements of type `t`.
  void send(const void* data, std::size_t count, DataType t, int dest, int tag) const;
  /// Blocking receive of at most `count` elements of type `t`.
  void recv(void* data, std::size_t count, DataType t, int source, int tag) const;
  /// Nonblocking send; the request's wait() is bounded by the timeout in force at this call.
  Request isend(const void* data, std::size_t count, DataType t, int dest, int tag) const;
  /// Nonblocking receive; the request's wait() is bounded by the timeout in force at this call.
  Request irecv(void* data, std::size_t count, DataType t, int source, int tag) const;
  /// The MPI library's barrier on the user's communicator.
  void barrier() const;

  /// The MPI library's collective for `call` (any collective, builtin or user op).
  void native(const CollectiveCall& call) const;
  /// Its nonblocking form (MPI_Iallreduce, ...); `keepalive` (e.g. the op) lives until completion.
  /// Builtin ops only: MPI would call a user-defined op during later progress.
  Request native_start(const CollectiveCall& call, std::shared_ptr<void> keepalive) const;
  /// Its persistent form on a new duplicate of the private communicator (collective): MPI-4's
  /// MPI_Allreduce_init etc. where the MPI has them, else the nonblocking call issued at each
  /// start on the bound arguments. Builtin ops only.
  std::unique_ptr<detail::PersistentOp> native_init(const CollectiveCall& call,
                                                    std::shared_ptr<void> keepalive);

  /// Deadline in seconds of every blocking collective and Request::wait(); 0 means none. From
  /// CCLX_TIMEOUT at construction (default: none). See docs/faults.md.
  [[nodiscard]] double timeout() const;
  void set_timeout(double seconds);  ///< throws cclx::Error if negative or not finite

  /// Schedule execution support.
  engine::Transport& transport();
  /// A persistent request running `plan` on `buffers` with `kernel` (collective, bounded by the
  /// timeout), under a tag that no other live request holds, on a communicator for persistent
  /// requests only, so that its messages can never match another call's (mpi_persistent.cpp);
  /// `keepalive` (the op) lives as long as the request. Each start reads the wait policy and the
  /// timeout then in force.
  std::unique_ptr<detail::PersistentOp> persistent_execution(
      std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
      const ReduceKernel& kernel, std::shared_ptr<void> keepalive);
  /// A nonblocking scheduled call's Request: `exec`, started on transport(), progresses in its
  /// test() and wait(); the request keeps the backend's state and `keepalive` (the op) alive.
  Request execution_request(std::unique_ptr<engine::Execution> exec,
                            std::shared_ptr<void> keepalive);
  /// The hook before each call (cclx::Backend): counts the collectives this rank entered, for
  /// the roll call that names the missing ranks when one times out (docs/faults.md).
  void begin_call(const CollectiveCall& call);
  void end_call() const {}  ///< the hook after a call: nothing to do on host memory
  /// After a collective failed because ranks died or stalled: agrees with the other survivors on
  /// who they are and returns their new communicator (MPI_Comm_create_group; the caller frees
  /// it). Collective over the survivors only; a round of the agreement waits for a silent rank at
  /// most twice the timeout and the roll call's window (10 s without a timeout). Throws cclx::Error
  /// if the others count this rank as failed. Once per backend. See docs/faults.md.
  MPI_Comm survivors();
  /// The roll call after a wait of one's own gave up (the preload library's): asks every rank
  /// where it is, for at most the roll call's window, and returns what cclx appends to its own
  /// timeout errors ("; missing: rank 2 (...)"). See docs/faults.md.
  [[nodiscard]] std::string roll_call() const;
  /// Keeps the backend's communicators, transport and scratch alive while a Request holds it, so
  /// that a request may outlive its Communicator (it still completes normally).
  [[nodiscard]] std::shared_ptr<void> keepalive() const;
  /// Host memory for the scheduled collectives' temporary data, kept for reuse across calls.
  engine::ScratchPool& scratch();
  /// Channel number for the next collective; every rank calls it once per collective, in order.
  unsigned next_channel();
  /// How this backend's waits poll for completion: spin, yield or back off. From CCLX_WAIT at
  /// construction (default: spin).
  [[nodiscard]] const engine::WaitPolicy& wait_policy() const;
  /// Replaces the wait policy for the calls started afterwards.
  void set_wait_policy(const engine::WaitPolicy& p);
  /// Receiver-ready handshake threshold of scheduled collectives (engine::ExecOptions); from
  /// CCLX_HANDSHAKE_BYTES at construction, 0 (off) by default. Must be equal on all ranks.
  [[nodiscard]] std::size_t handshake_bytes() const;
  /// Sets the threshold in bytes (0: off) for the calls made afterwards; set it alike on all ranks.
  void set_handshake_bytes(std::size_t bytes);

  /// Seconds on a clock common to all ranks (MPI_Wtime plus an offset to rank 0's clock, measured
  /// by ping-pong on first use; the first call is collective).
  double clock();

  /// CCLX_VALIDATE=1 (read at construction) or set_validation(true).
  [[nodiscard]] bool validation() const { return validate_; }  // inline: read on every call
  /// Turns the agreement before each call on or off; set it alike on all ranks.
  void set_validation(bool on) { validate_ = on; }
  /// What one rank brings to the agreement besides the call itself.
  struct Agreement {
    std::string_view algorithm;  ///< the policy's name
    std::string params;          ///< algo::wire_params() of a scheduled policy; empty for Native
    std::string local_error;     ///< this rank's argument or schedule error; empty when fine
    bool persistent = false;     ///< a persistent request's init (*_init), not a one-shot call
  };
  /// Collective check that every rank passes the same call with the same algorithm, algorithm
  /// parameters and communicator-wide wire settings (handshake threshold, ...), in step (same
  /// number of scheduled collectives so far), and that no rank found an error (`local_error`).
  /// Throws cclx::Error on every rank, naming the fields and ranks.
  void agree(const CollectiveCall& call, const Agreement& mine) const;
  /// The same check for a call without a scheduled policy's parameters (a one-shot call).
  void agree(const CollectiveCall& call, std::string_view algorithm,
             const std::string& local_error) const {
    agree(call, Agreement{algorithm, {}, local_error});
  }

  struct State;  ///< backend-internal (lib/backend/mpi_state.hpp)
  /// The state itself, for the library's own modules (the relay runtime, lib/relay/runtime.cpp).
  [[nodiscard]] const std::shared_ptr<State>& state() const { return s_; }

 private:
  /// agree()'s check of alltoallv's counts: rank i's sendcounts[j] == rank j's recvcounts[i].
  void agree_pairwise_counts(const CollectiveCall& call) const;

  std::shared_ptr<State> s_;
  bool validate_ = false;
};

static_assert(Backend<MpiBackend>);

}  // namespace cclx
