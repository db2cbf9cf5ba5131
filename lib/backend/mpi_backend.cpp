// MpiBackend: lifetime of the communicators, settings, and point-to-point on the user's
// communicator. Native collectives: mpi_native.cpp; validation: mpi_validate.cpp; clock:
// mpi_clock.cpp; datatypes: mpi_datatype.cpp.
#include <climits>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <utility>

#include "cclx/backend/mpi.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "mpi_large_count.hpp"
#include "mpi_pending.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::mpi_check;
namespace large = detail::large;

MpiBackend::MpiBackend(MPI_Comm comm, Ownership own) : s_(std::make_shared<State>()) {
  // MPI_Finalized and MPI_Initialized are the only MPI calls allowed after MPI_Finalize.
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized)
    throw Error(
        "MpiBackend: MPI is already finalized (construct communicators before "
        "MPI_Finalize)");
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("MpiBackend: MPI is not initialized (call MPI_Init first)");
  if (comm == MPI_COMM_NULL) throw Error("MpiBackend: communicator is MPI_COMM_NULL");
  detail::install_world_errhandler();
  if (own == Ownership::duplicate) {
    mpi_check(MPI_Comm_dup(comm, &s_->user), -1, "MPI_Comm_dup");
    s_->owns_user = true;
    // Ours: errors come back as codes and become cclx::Error. A borrowed communicator keeps the
    // caller's handler (changing it would change the application's own MPI calls).
    mpi_check(MPI_Comm_set_errhandler(s_->user, MPI_ERRORS_RETURN), -1, "MPI_Comm_set_errhandler");
  } else {
    s_->user = comm;
  }
  mpi_check(MPI_Comm_dup(comm, &s_->internal), -1, "MPI_Comm_dup");
  mpi_check(MPI_Comm_set_errhandler(s_->internal, MPI_ERRORS_RETURN), -1,
            "MPI_Comm_set_errhandler");
  MPI_Comm_rank(s_->user, &s_->rank);
  MPI_Comm_size(s_->user, &s_->size);
  // The settings this communicator reads, agreed before any is used: a bad value on one rank
  // must not leave the others waiting for it in a collective; what goes over the wire must be cut
  // alike on every rank; and every rank must validate (one more collective per call), or none,
  // and reduce in canonical order, or none (another schedule). The relay's fault time-out is read
  // when a relay request is made, a collective step the others would wait in for a rank that threw.
  using settings::Id;
  detail::agree_settings(
      s_->internal, s_->rank, s_->size, {Id::timeout, Id::wait, Id::adaptive_fault},
      {Id::handshake_bytes, Id::max_message_bytes, Id::validate, Id::reproducible});
  s_->timeout_s = engine::timeout_from_env();
  s_->wait = engine::WaitPolicy::from_env();
  s_->handshake_bytes = engine::handshake_bytes_from_env();
  validate_ = settings::get<bool>(Id::validate);
  s_->roll = std::make_unique<detail::RollCall>(s_->internal, s_->rank, s_->size);
  s_->transport = std::make_unique<MpiTransport>(s_->internal, s_->roll.get());
}

MpiBackend::~MpiBackend() = default;
MpiBackend::MpiBackend(MpiBackend&&) noexcept = default;
MpiBackend& MpiBackend::operator=(MpiBackend&&) noexcept = default;

int MpiBackend::rank() const {
  return s_->rank;
}
int MpiBackend::size() const {
  return s_->size;
}
MPI_Comm MpiBackend::native_handle() const {
  return s_->user;
}
engine::Transport& MpiBackend::transport() {
  return *s_->transport;
}
engine::ScratchPool& MpiBackend::scratch() {
  return s_->scratch;
}
unsigned MpiBackend::next_channel() {
  return s_->channel++;
}
const engine::WaitPolicy& MpiBackend::wait_policy() const {
  return s_->wait;
}
void MpiBackend::set_wait_policy(const engine::WaitPolicy& p) {
  s_->wait = p;
}
double MpiBackend::timeout() const {
  return s_->timeout_s;
}
void MpiBackend::set_timeout(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0)
    throw Error(s_->rank, "set_timeout(" + std::to_string(seconds) +
                              "): the timeout must be a finite number of seconds >= 0 (0: none)");
  s_->timeout_s = seconds;
}
void MpiBackend::begin_call(const CollectiveCall& call) {
  // Written here, not through Calls::enter(): one file fewer on every call's path.
  detail::RollCall::Calls& calls = s_->roll->calls;
  ++calls.entered;
  calls.last = static_cast<std::int32_t>(call.collective);
}
MPI_Comm MpiBackend::survivors() {
  return s_->roll->survivors(s_->timeout_s);
}
std::string MpiBackend::roll_call() const {
  return s_->roll->verdict(s_->timeout_s);
}
std::shared_ptr<void> MpiBackend::keepalive() const {
  return s_;
}

namespace {
// A scheduled execution behind a Request. `backend` is declared first so that it is released
// last: the execution uses its transport and scratch.
struct ExecutionPending final : detail::PendingOp {
  std::shared_ptr<void> backend;
  std::unique_ptr<engine::Execution> exec;
  std::shared_ptr<void> keepalive;
  detail::RollCall* roll = nullptr;  // the backend's (kept alive by `backend`)
  bool test() override {
    roll->serve_sometimes();  // a caller polling test() answers roll calls as wait() does
    return exec->test();
  }
  void wait() override { exec->wait(); }
};
}  // namespace

Request MpiBackend::execution_request(std::unique_ptr<engine::Execution> exec,
                                      std::shared_ptr<void> keepalive) {
  auto p = std::make_unique<ExecutionPending>();
  p->backend = s_;
  p->roll = s_->roll.get();
  p->exec = std::move(exec);
  p->keepalive = std::move(keepalive);
  return Request(std::move(p));
}
std::size_t MpiBackend::handshake_bytes() const {
  return s_->handshake_bytes;
}
void MpiBackend::set_handshake_bytes(std::size_t bytes) {
  s_->handshake_bytes = bytes;
}

void MpiBackend::send(const void* data, std::size_t count, DataType t, int dest, int tag) const {
  if (count > INT_MAX) {
    mpi_check(large::send(data, count, mpi_datatype(t), dest, tag, s_->user, s_->rank), s_->rank,
              "MPI_Send (large count)");
  } else if (s_->timeout_s <= 0) {
    mpi_check(MPI_Send(data, static_cast<int>(count), mpi_datatype(t), dest, tag, s_->user),
              s_->rank, "MPI_Send");
  } else {  // against the deadline
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(MPI_Isend(data, static_cast<int>(count), mpi_datatype(t), dest, tag, s_->user, &req),
              s_->rank, "MPI_Isend");
    s_->finish(req, true, [&] { return "send to rank " + std::to_string(dest); });
  }
}

void MpiBackend::recv(void* data, std::size_t count, DataType t, int source, int tag) const {
  if (count > INT_MAX) {
    mpi_check(large::recv(data, count, mpi_datatype(t), source, tag, s_->user, MPI_STATUS_IGNORE,
                          s_->rank),
              s_->rank, "MPI_Recv (large count)");
  } else if (s_->timeout_s <= 0) {
    mpi_check(MPI_Recv(data, static_cast<int>(count), mpi_datatype(t), source, tag, s_->user,
                       MPI_STATUS_IGNORE),
              s_->rank, "MPI_Recv");
  } else {  // against the deadline
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(
        MPI_Irecv(data, static_cast<int>(count), mpi_datatype(t), source, tag, s_->user, &req),
        s_->rank, "MPI_Irecv");
    s_->finish(req, true, [&] { return "recv from rank " + std::to_string(source); });
  }
}

Request MpiBackend::isend(const void* data, std::size_t count, DataType t, int dest,
                          int tag) const {
  auto p = State::pending(s_, "isend to", dest);
  if (count <= INT_MAX)
    mpi_check(
        MPI_Isend(data, static_cast<int>(count), mpi_datatype(t), dest, tag, s_->user, &p->req),
        s_->rank, "MPI_Isend");
  else
    mpi_check(large::isend(data, count, mpi_datatype(t), dest, tag, s_->user, &p->req, s_->rank),
              s_->rank, "MPI_Isend (large count)");
  return Request(std::move(p));
}

Request MpiBackend::irecv(void* data, std::size_t count, DataType t, int source, int tag) const {
  auto p = State::pending(s_, "irecv from", source);
  if (count <= INT_MAX)
    mpi_check(
        MPI_Irecv(data, static_cast<int>(count), mpi_datatype(t), source, tag, s_->user, &p->req),
        s_->rank, "MPI_Irecv");
  else
    mpi_check(large::irecv(data, count, mpi_datatype(t), source, tag, s_->user, &p->req, s_->rank),
              s_->rank, "MPI_Irecv (large count)");
  return Request(std::move(p));
}

void MpiBackend::barrier() const {
  CollectiveCall c;
  c.collective = sched::Collective::barrier;
  native(c);
}

}  // namespace cclx
