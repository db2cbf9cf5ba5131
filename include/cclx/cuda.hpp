// cclx::CudaBackend: `cclx::Communicator<cclx::CudaBackend>` runs the same collectives, with the
// same algorithm policies, on CUDA device buffers (docs/cuda.md). Link cclx::cuda (built with
// CCLX_WITH_CUDA). This header needs no CUDA headers.
//
//   cudaSetDevice(local_rank);                        // the backend uses the current device
//   cclx::Communicator<cclx::CudaBackend> comm(MPI_COMM_WORLD);
//   comm.backend().set_stream(stream);                // calls start after the work on `stream`
//   comm.allreduce(std::span(dev_ptr, n), cclx::sum, cclx::algo::Ring{});
//
// Transport: device pointers straight into MPI where the MPI takes them (CUDA-aware), otherwise
// pipelined staging through pinned host memory (device/staging_transport.hpp); reductions run as
// CUDA kernels on the backend's stream. Blocking, nonblocking and persistent forms, as on the host.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <memory>

#include "cclx/backend/backend.hpp"
#include "cclx/backend/mpi.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/device/staging_transport.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/engine/scratch_pool.hpp"
#include "cclx/engine/transport.hpp"
#include "cclx/persistent.hpp"
#include "cclx/request.hpp"
#include "cclx/types.hpp"

struct CUstream_st;
typedef struct CUstream_st* cudaStream_t;  // NOLINT(modernize-use-using): as CUDA declares it

namespace cclx {

/// A cclx::Backend by composition: an MpiBackend on the same communicator underneath (host()),
/// which the device paths use for the host side of their transfers.
class CudaBackend {
 public:
  /// What one rank brings to the CCLX_VALIDATE agreement: the host backend's.
  using Agreement = MpiBackend::Agreement;

  /// Collective, like MpiBackend's; uses the calling thread's current CUDA device. Throws
  /// cclx::Error on every rank, naming the ranks without a usable device, if any rank has none.
  explicit CudaBackend(MPI_Comm comm = MPI_COMM_WORLD, Ownership own = Ownership::duplicate);
  ~CudaBackend();
  /// Takes over the other backend's state; a moved-from backend may only be destroyed or assigned.
  CudaBackend(CudaBackend&&) noexcept;
  /// Drops this backend's state (freed once no request holds it) and takes over the other's.
  CudaBackend& operator=(CudaBackend&&) noexcept;

  /// The stream calls are ordered with: each call starts after the work queued on it before the
  /// call, and work queued on it after the call sees the results. Default: the legacy default
  /// stream (0).
  void set_stream(cudaStream_t s);
  /// The stream calls are ordered with (set_stream()).
  [[nodiscard]] cudaStream_t stream() const;
  /// true (default): a call returns once its results are in the buffers, as host calls do. false:
  /// it returns once its messages have moved; the device work left (the last reductions and
  /// copies) stays queued, and the stream waits for it (NCCL-like).
  void set_blocking(bool blocking);
  /// Whether a call returns only once its results are in the buffers (set_blocking()).
  [[nodiscard]] bool blocking() const;
  /// Whether device pointers go straight into MPI (the MPI reports CUDA support, or
  /// CCLX_CUDA_AWARE=1); otherwise everything is staged through pinned host memory.
  [[nodiscard]] bool cuda_aware() const;
  /// How scheduled calls move device buffers: chunk bytes (CCLX_CUDA_CHUNK_BYTES), pinned slots
  /// per peer and direction (CCLX_CUDA_DEPTH), and `direct` when CUDA-aware.
  [[nodiscard]] const device::StagingOptions& staging_options() const;

  /// Point-to-point on device buffers (staged unless CUDA-aware). The nonblocking forms order the
  /// caller's stream like collectives (docs/cuda.md, "Nonblocking and persistent calls").
  void send(const void* data, std::size_t count, DataType t, int dest, int tag) const;
  /// Blocking receive; unless CUDA-aware, into pinned host memory, then copied to the device on
  /// the backend's stream, which the caller's stream is ordered after (waited for when blocking).
  void recv(void* data, std::size_t count, DataType t, int source, int tag) const;
  /// Nonblocking send; unless CUDA-aware, a device buffer is copied to pinned host memory before
  /// it returns.
  Request isend(const void* data, std::size_t count, DataType t, int dest, int tag) const;
  /// Nonblocking receive; unless CUDA-aware, into pinned host memory, copied to the device buffer
  /// once the message is in (the caller's stream is ordered after that copy).
  Request irecv(void* data, std::size_t count, DataType t, int source, int tag) const;

  /// The MPI library's collective on device buffers: direct when CUDA-aware, else staged whole.
  /// Buffers in host memory go straight to MPI (the Communicator's own small exchanges).
  void native(const CollectiveCall& call) const;
  /// Its nonblocking form (MpiBackend's, on pinned host copies unless CUDA-aware).
  Request native_start(const CollectiveCall& call, std::shared_ptr<void> keepalive) const;
  /// The persistent form; unless CUDA-aware, on pinned host copies bound for the request's life
  /// and refreshed from the device at each start.
  std::unique_ptr<detail::PersistentOp> native_init(const CollectiveCall& call,
                                                    std::shared_ptr<void> keepalive);
  /// A nonblocking scheduled call: `exec`, started on transport(), progresses in the request's
  /// test() and wait(); completion orders the caller's stream (and, blocking, waits for it).
  Request execution_request(std::unique_ptr<engine::Execution> exec,
                            std::shared_ptr<void> keepalive);
  /// A persistent scheduled call, on a staging transport of its own communicator (every start()
  /// takes the next channel there: starts are collective and in order, docs/cuda.md).
  std::unique_ptr<detail::PersistentOp> persistent_execution(
      std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
      const ReduceKernel& kernel, std::shared_ptr<void> keepalive);
  /// The backend's state (MpiBackend's and the device's), kept by requests that outlive it.
  [[nodiscard]] std::shared_ptr<void> keepalive() const;
  /// The staging transport of scheduled calls, over the host backend's transport.
  engine::Transport& transport();
  engine::ScratchPool& scratch();  ///< device memory

  /// Communicator hook before each call: refuses what the device cannot do (user-defined ops,
  /// long double reductions) and orders the backend's stream after the caller's.
  void begin_call(const CollectiveCall& call);
  /// Communicator hook after a scheduled call's transfers: orders the caller's stream after the
  /// backend's; blocking: waits for it.
  void end_call() const;

  // The same as MpiBackend's (docs there): the communicator, deadline, wire settings, clock and
  // the CCLX_VALIDATE agreement.
  /// This process's rank in the communicator (the host backend's).
  [[nodiscard]] int rank() const { return host_.rank(); }
  /// The number of ranks in the communicator (the host backend's).
  [[nodiscard]] int size() const { return host_.size(); }
  /// The user's communicator (the host backend's).
  [[nodiscard]] MPI_Comm native_handle() const { return host_.native_handle(); }
  /// The host backend's barrier: MPI's, on the user's communicator.
  void barrier() const { host_.barrier(); }
  /// The deadline in seconds of blocking calls and Request::wait(), 0: none (the host backend's).
  [[nodiscard]] double timeout() const { return host_.timeout(); }
  /// Sets the deadline (the host backend's); throws cclx::Error if negative or not finite.
  void set_timeout(double seconds) { host_.set_timeout(seconds); }
  /// The host backend's channel number for the next collective (once per collective, in order).
  unsigned next_channel() { return host_.next_channel(); }
  /// How waits poll for completion (the host backend's policy).
  [[nodiscard]] const engine::WaitPolicy& wait_policy() const { return host_.wait_policy(); }
  /// Replaces the host backend's wait policy for the calls started afterwards.
  void set_wait_policy(const engine::WaitPolicy& p) { host_.set_wait_policy(p); }
  /// The host backend's receiver-ready handshake threshold in bytes (0: off).
  [[nodiscard]] std::size_t handshake_bytes() const { return host_.handshake_bytes(); }
  /// Sets the host backend's handshake threshold; set it alike on all ranks.
  void set_handshake_bytes(std::size_t bytes) { host_.set_handshake_bytes(bytes); }
  /// The host backend's clock common to all ranks, in seconds (the first call is collective).
  double clock() { return host_.clock(); }
  /// Whether calls run the CCLX_VALIDATE agreement (the host backend's setting).
  [[nodiscard]] bool validation() const { return host_.validation(); }
  /// Turns the host backend's agreement on or off; set it alike on all ranks.
  void set_validation(bool on) { host_.set_validation(on); }
  /// The host backend's agreement check (MpiBackend::agree()).
  void agree(const CollectiveCall& call, const Agreement& mine) const { host_.agree(call, mine); }

  /// The host backend underneath (MPI on host buffers, on the same communicators).
  [[nodiscard]] MpiBackend& host() { return host_; }
  [[nodiscard]] const MpiBackend& host() const { return host_; }  ///< the same, read-only

  struct Impl;

 private:
  MpiBackend host_;
  std::shared_ptr<Impl> d_;
};

/// No relay collectives on device buffers (their progress thread moves host memory): there is no
/// relay_init for this backend (tests/compile_fail/relay_on_device.cpp).
static_assert(Backend<CudaBackend>);

}  // namespace cclx
