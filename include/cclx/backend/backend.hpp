// The contract between cclx::Communicator and its backend: everything the Communicator asks of
// one, named once. MpiBackend (host memory) and CudaBackend (device memory) model it; a new
// backend is a class that satisfies cclx::Backend (checked where it is declared, by
// static_assert, and again where a Communicator is instantiated).
//
// The generic Communicator never branches on the kind of backend: what differs between host and
// device memory is carried by the hooks (begin_call, end_call, execution_request), and the relay
// collectives are offered by a backend that also models RelayBackend.
#pragma once

#include <mpi.h>

#include <concepts>
#include <cstddef>
#include <memory>

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

/// How a backend holds the MPI_Comm it is given.
enum class Ownership {
  duplicate,  ///< MPI_Comm_dup the given communicator and free the duplicate on destruction
  borrow,     ///< use the given communicator; the caller keeps it alive and frees it
};

/// What cclx::Communicator asks of a backend (see the top of this file); MpiBackend and
/// CudaBackend model it.
// clang-format off
template <class B>
concept Backend = std::movable<B> && std::constructible_from<B, MPI_Comm, Ownership> &&
    requires(B& b, const B& cb, const CollectiveCall& call, const void* in, void* out,
             std::size_t count, DataType type, int peer, std::shared_ptr<void> keep,
             std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
             const ReduceKernel& kernel, std::unique_ptr<engine::Execution> exec, double seconds,
             const typename B::Agreement& agreement) {
  // The communicator it wraps.
  { cb.rank() } -> std::same_as<int>;
  { cb.size() } -> std::same_as<int>;
  cb.native_handle();
  // Point-to-point on the user's communicator.
  cb.send(in, count, type, peer, peer);
  cb.recv(out, count, type, peer, peer);
  { cb.isend(in, count, type, peer, peer) } -> std::same_as<Request>;
  { cb.irecv(out, count, type, peer, peer) } -> std::same_as<Request>;
  // The MPI library's own collective ("native"), in its three forms.
  cb.native(call);
  { cb.native_start(call, keep) } -> std::same_as<Request>;
  { b.native_init(call, keep) } -> std::same_as<std::unique_ptr<detail::PersistentOp>>;
  // What a schedule's execution needs: transport, scratch memory, a channel per collective, the
  // wait policy and the wire settings every rank must share.
  { b.transport() } -> std::same_as<engine::Transport&>;
  { b.scratch() } -> std::same_as<engine::ScratchPool&>;
  { b.next_channel() } -> std::same_as<unsigned>;
  { cb.wait_policy() } -> std::convertible_to<const engine::WaitPolicy&>;
  { cb.handshake_bytes() } -> std::same_as<std::size_t>;
  { b.persistent_execution(plan, buffers, kernel, keep) }
      -> std::same_as<std::unique_ptr<detail::PersistentOp>>;
  // A nonblocking scheduled call's Request around its started execution.
  { b.execution_request(std::move(exec), keep) } -> std::same_as<Request>;
  // What a request keeps alive so that it may outlive its Communicator.
  { cb.keepalive() } -> std::same_as<std::shared_ptr<void>>;
  // Hooks around each call: before its checks, and after a blocking scheduled call's transfers.
  b.begin_call(call);
  cb.end_call();
  // Deadline, clock common to all ranks, and the CCLX_VALIDATE agreement.
  { cb.timeout() } -> std::same_as<double>;
  b.set_timeout(seconds);
  { b.clock() } -> std::same_as<double>;
  { cb.validation() } -> std::same_as<bool>;
  cb.agree(call, agreement);
};
// clang-format on

/// A backend that runs the relay collectives of the relay policy A (algo::Adaptive: persistent
/// requests whose ranks relay for late ones on a progress thread): relay_init(backend, call,
/// policy, keepalive) exists, found by argument-dependent lookup (cclx/relay/adaptive.hpp declares
/// MpiBackend's).
template <class B, class A>
concept RelayBackend = Backend<B> &&
    requires(B& b, const CollectiveCall& call, const A& policy, std::shared_ptr<void> keep) {
  { relay_init(b, call, policy, keep) } -> std::same_as<std::unique_ptr<detail::PersistentOp>>;
};

}  // namespace cclx
