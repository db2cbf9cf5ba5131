#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <vector>

#include "cclx/backend/mpi.hpp"
#include "cclx/backend/mpi_transport.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/schedule.hpp"
#include "mpi_check.hpp"

namespace cclx {

using sched::Collective;

namespace {

using detail::mpi_check;

// User-defined ops reach MPI through one trampoline; the kernel of the call in progress is
// published in a thread-local (blocking native calls only run one op at a time per thread).
thread_local const ReduceKernel* current_user_kernel = nullptr;

void user_op_trampoline(void* invec, void* inoutvec, int* len, MPI_Datatype*) {
  // MPI: inoutvec = invec (+) inoutvec, invec holding the lower ranks' contribution.
  (*current_user_kernel)(inoutvec, invec, inoutvec, static_cast<std::size_t>(*len));
}

struct MpiPending final : detail::PendingOp {
  MPI_Request req = MPI_REQUEST_NULL;
  std::shared_ptr<void> keepalive;
  int rank = 0;
  bool test() override {
    int flag = 0;
    mpi_check(MPI_Test(&req, &flag, MPI_STATUS_IGNORE), rank, "MPI_Test");
    return flag != 0;
  }
  void wait() override { mpi_check(MPI_Wait(&req, MPI_STATUS_IGNORE), rank, "MPI_Wait"); }
};

bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v && *v && std::strcmp(v, "0") != 0;
}

}  // namespace

MPI_Datatype mpi_datatype(DataType t) {
  switch (t) {
    case DataType::i8:
      return MPI_INT8_T;
    case DataType::u8:
      return MPI_UINT8_T;
    case DataType::i16:
      return MPI_INT16_T;
    case DataType::u16:
      return MPI_UINT16_T;
    case DataType::i32:
      return MPI_INT32_T;
    case DataType::u32:
      return MPI_UINT32_T;
    case DataType::i64:
      return MPI_INT64_T;
    case DataType::u64:
      return MPI_UINT64_T;
    case DataType::f32:
      return MPI_FLOAT;
    case DataType::f64:
      return MPI_DOUBLE;
    case DataType::f80:
      return MPI_LONG_DOUBLE;
    case DataType::boolean:
      return MPI_C_BOOL;
  }
  return MPI_DATATYPE_NULL;
}

MPI_Op mpi_op(OpId op, DataType t) {
  const bool logical = t == DataType::boolean;  // MPI defines only logical ops on C bool
  switch (op) {
    case OpId::sum:
      return MPI_SUM;
    case OpId::prod:
      return MPI_PROD;
    case OpId::min:
      return logical ? MPI_LAND : MPI_MIN;
    case OpId::max:
      return logical ? MPI_LOR : MPI_MAX;
    case OpId::band:
      return logical ? MPI_LAND : MPI_BAND;
    case OpId::bor:
      return logical ? MPI_LOR : MPI_BOR;
    case OpId::bxor:
      return logical ? MPI_LXOR : MPI_BXOR;
    case OpId::user:
      break;
  }
  throw Error("mpi_op: user-defined ops have no builtin MPI_Op");
}

struct MpiBackend::State {
  MPI_Comm user = MPI_COMM_NULL;
  bool owns_user = false;
  MPI_Comm internal = MPI_COMM_NULL;
  int rank = 0, size = 1;
  std::unique_ptr<MpiTransport> transport;
  engine::ScratchPool scratch;
  unsigned channel = 0;
  engine::WaitPolicy wait;
  std::size_t handshake_bytes = 0;
  MPI_Op user_ops[2] = {MPI_OP_NULL, MPI_OP_NULL};  // [commutative]
  bool clock_calibrated = false;
  double clock_offset = 0.0;

  MPI_Op user_op(bool commutative) {
    MPI_Op& op = user_ops[commutative ? 1 : 0];
    if (op == MPI_OP_NULL)
      mpi_check(MPI_Op_create(&user_op_trampoline, commutative ? 1 : 0, &op), rank,
                "MPI_Op_create");
    return op;
  }
  ~State() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;  // too late to free anything; MPI has released it
    for (auto& op : user_ops)
      if (op != MPI_OP_NULL) MPI_Op_free(&op);
    if (internal != MPI_COMM_NULL) MPI_Comm_free(&internal);
    if (owns_user && user != MPI_COMM_NULL) MPI_Comm_free(&user);
  }
};

MpiBackend::MpiBackend(MPI_Comm comm, Ownership own) : s_(std::make_unique<State>()) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) throw Error("MpiBackend: MPI is not initialized (call MPI_Init first)");
  if (comm == MPI_COMM_NULL) throw Error("MpiBackend: communicator is MPI_COMM_NULL");
  if (own == Ownership::duplicate) {
    mpi_check(MPI_Comm_dup(comm, &s_->user), -1, "MPI_Comm_dup");
    s_->owns_user = true;
  } else {
    s_->user = comm;
  }
  mpi_check(MPI_Comm_dup(comm, &s_->internal), -1, "MPI_Comm_dup");
  MPI_Comm_rank(s_->user, &s_->rank);
  MPI_Comm_size(s_->user, &s_->size);
  s_->transport = std::make_unique<MpiTransport>(s_->internal);
  s_->wait = engine::WaitPolicy::from_env();
  s_->handshake_bytes = engine::handshake_bytes_from_env();
  validate_ = env_flag("CCLX_VALIDATE");
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
std::size_t MpiBackend::handshake_bytes() const {
  return s_->handshake_bytes;
}
void MpiBackend::set_handshake_bytes(std::size_t bytes) {
  s_->handshake_bytes = bytes;
}

double MpiBackend::clock() {
  if (!s_->clock_calibrated) {
    // Ranks on one node read the same system clock: calibrating there would only add the error of
    // ping-pongs that oversubscribed ranks make milliseconds long. Collective, like the rest.
    MPI_Comm node = MPI_COMM_NULL;
    mpi_check(MPI_Comm_split_type(s_->internal, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
              s_->rank, "MPI_Comm_split_type (clock)");
    int node_size = 0;
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    s_->clock_calibrated = node_size == s_->size;
  }
  if (!s_->clock_calibrated) {
    // Cristian's method against rank 0, keeping the exchange with the smallest round trip. Runs on
    // the private communicator under a channel number like any collective.
    const int tag = static_cast<int>(next_channel() % 32768u);
    constexpr int kRounds = 8;
    if (s_->rank == 0) {
      for (int peer = 1; peer < s_->size; ++peer)
        for (int i = 0; i < kRounds; ++i) {
          double t = 0;
          mpi_check(MPI_Recv(&t, 1, MPI_DOUBLE, peer, tag, s_->internal, MPI_STATUS_IGNORE), 0,
                    "MPI_Recv (clock)");
          t = MPI_Wtime();
          mpi_check(MPI_Send(&t, 1, MPI_DOUBLE, peer, tag, s_->internal), 0, "MPI_Send (clock)");
        }
    } else {
      double best_rtt = 1e300;
      for (int i = 0; i < kRounds; ++i) {
        const double t1 = MPI_Wtime();
        double t0 = 0;
        mpi_check(MPI_Send(&t1, 1, MPI_DOUBLE, 0, tag, s_->internal), s_->rank, "MPI_Send (clock)");
        mpi_check(MPI_Recv(&t0, 1, MPI_DOUBLE, 0, tag, s_->internal, MPI_STATUS_IGNORE), s_->rank,
                  "MPI_Recv (clock)");
        const double t2 = MPI_Wtime();
        if (t2 - t1 < best_rtt) {
          best_rtt = t2 - t1;
          s_->clock_offset = t0 - 0.5 * (t1 + t2);
        }
      }
    }
    s_->clock_calibrated = true;
  }
  return MPI_Wtime() + s_->clock_offset;
}

void MpiBackend::send(const void* data, std::size_t count, DataType t, int dest, int tag) const {
  if (count <= INT_MAX)
    mpi_check(MPI_Send(data, static_cast<int>(count), mpi_datatype(t), dest, tag, s_->user),
              s_->rank, "MPI_Send");
  else
    mpi_check(MPI_Send_c(data, static_cast<MPI_Count>(count), mpi_datatype(t), dest, tag, s_->user),
              s_->rank, "MPI_Send_c");
}

void MpiBackend::recv(void* data, std::size_t count, DataType t, int source, int tag) const {
  if (count <= INT_MAX)
    mpi_check(MPI_Recv(data, static_cast<int>(count), mpi_datatype(t), source, tag, s_->user,
                       MPI_STATUS_IGNORE),
              s_->rank, "MPI_Recv");
  else
    mpi_check(MPI_Recv_c(data, static_cast<MPI_Count>(count), mpi_datatype(t), source, tag,
                         s_->user, MPI_STATUS_IGNORE),
              s_->rank, "MPI_Recv_c");
}

Request MpiBackend::isend(const void* data, std::size_t count, DataType t, int dest,
                          int tag) const {
  auto p = std::make_unique<MpiPending>();
  p->rank = s_->rank;
  if (count <= INT_MAX)
    mpi_check(
        MPI_Isend(data, static_cast<int>(count), mpi_datatype(t), dest, tag, s_->user, &p->req),
        s_->rank, "MPI_Isend");
  else
    mpi_check(MPI_Isend_c(data, static_cast<MPI_Count>(count), mpi_datatype(t), dest, tag, s_->user,
                          &p->req),
              s_->rank, "MPI_Isend_c");
  return Request(std::move(p));
}

Request MpiBackend::irecv(void* data, std::size_t count, DataType t, int source, int tag) const {
  auto p = std::make_unique<MpiPending>();
  p->rank = s_->rank;
  if (count <= INT_MAX)
    mpi_check(
        MPI_Irecv(data, static_cast<int>(count), mpi_datatype(t), source, tag, s_->user, &p->req),
        s_->rank, "MPI_Irecv");
  else
    mpi_check(MPI_Irecv_c(data, static_cast<MPI_Count>(count), mpi_datatype(t), source, tag,
                          s_->user, &p->req),
              s_->rank, "MPI_Irecv_c");
  return Request(std::move(p));
}

void MpiBackend::barrier() const {
  mpi_check(MPI_Barrier(s_->user), s_->rank, "MPI_Barrier");
}

void MpiBackend::native(const CollectiveCall& c) const {
  const MPI_Datatype dt = mpi_datatype(c.type);
  MPI_Op op = MPI_OP_NULL;
  if (c.has_op)
    op =
        c.kernel.op == OpId::user ? s_->user_op(c.kernel.commutative) : mpi_op(c.kernel.op, c.type);
  // Only user ops reach the trampoline: publish their kernel for this call, and leave the
  // thread-local alone on the builtin-op hot path.
  const bool user = c.has_op && c.kernel.op == OpId::user;
  struct Restore {
    bool active;
    const ReduceKernel* previous;
    ~Restore() {
      if (active) current_user_kernel = previous;
    }
  } restore{user, user ? current_user_kernel : nullptr};
  if (user) current_user_kernel = &c.kernel;

  const void* sendbuf = c.in_place ? MPI_IN_PLACE : c.in;
  const MPI_Comm comm = s_->user;
  const int r = s_->rank;
  // MPI's int-count functions where they suffice (they are what applications call), the MPI-4
  // large-count ones beyond.
  const bool small = c.count <= INT_MAX;
  const int n = static_cast<int>(c.count);
  const auto nc = static_cast<MPI_Count>(c.count);
  switch (c.collective) {
    case Collective::allreduce:
      mpi_check(small ? MPI_Allreduce(sendbuf, c.out, n, dt, op, comm)
                      : MPI_Allreduce_c(sendbuf, c.out, nc, dt, op, comm),
                r, "MPI_Allreduce");
      break;
    case Collective::reduce: {
      // Non-roots pass their buffer as input even in place (MPI_IN_PLACE is for the root only).
      const void* sb = c.in_place && r != c.root ? c.in : sendbuf;
      // MPICH 4.0.2 (ch4:ucx) segfaults in MPI_Reduce(MPI_IN_PLACE, ...) at a root other than 0
      // from about 1000 floats on (tests/mpi/test_api.cpp shows it): stage the root's input in
      // pooled scratch and reduce out of place instead.
      engine::ScratchPool::Lease staged;
      if (c.in_place && r == c.root && c.root != 0 && c.count) {
        const std::size_t bytes = c.count * c.kernel.elem_size;
        staged = s_->scratch.acquire(bytes);
        std::memcpy(staged.data(), c.out, bytes);
        sb = staged.data();
      }
      mpi_check(small ? MPI_Reduce(sb, c.out, n, dt, op, c.root, comm)
                      : MPI_Reduce_c(sb, c.out, nc, dt, op, c.root, comm),
                r, "MPI_Reduce");
      break;
    }
    case Collective::bcast:
      mpi_check(
          small ? MPI_Bcast(c.out, n, dt, c.root, comm) : MPI_Bcast_c(c.out, nc, dt, c.root, comm),
          r, "MPI_Bcast");
      break;
    case Collective::reduce_scatter:
      mpi_check(small ? MPI_Reduce_scatter_block(sendbuf, c.out, n, dt, op, comm)
                      : MPI_Reduce_scatter_block_c(sendbuf, c.out, nc, dt, op, comm),
                r, "MPI_Reduce_scatter_block");
      break;
    case Collective::allgather:
      mpi_check(small ? MPI_Allgather(sendbuf, n, dt, c.out, n, dt, comm)
                      : MPI_Allgather_c(sendbuf, nc, dt, c.out, nc, dt, comm),
                r, "MPI_Allgather");
      break;
    case Collective::alltoall:
      mpi_check(small ? MPI_Alltoall(sendbuf, n, dt, c.out, n, dt, comm)
                      : MPI_Alltoall_c(sendbuf, nc, dt, c.out, nc, dt, comm),
                r, "MPI_Alltoall");
      break;
  }
}

Request MpiBackend::native_iallreduce(const CollectiveCall& c,
                                      std::shared_ptr<void> keepalive) const {
  if (c.kernel.op == OpId::user)
    throw Error(s_->rank,
                "native iallreduce does not support user-defined ops (MPI would call the op "
                "during later progress); use a scheduled algorithm such as algo::Ring");
  auto p = std::make_unique<MpiPending>();
  p->rank = s_->rank;
  p->keepalive = std::move(keepalive);
  const void* sendbuf = c.in_place ? MPI_IN_PLACE : c.in;
  const MPI_Datatype dt = mpi_datatype(c.type);
  const MPI_Op op = mpi_op(c.kernel.op, c.type);
  mpi_check(c.count <= INT_MAX ? MPI_Iallreduce(sendbuf, c.out, static_cast<int>(c.count), dt, op,
                                                s_->user, &p->req)
                               : MPI_Iallreduce_c(sendbuf, c.out, static_cast<MPI_Count>(c.count),
                                                  dt, op, s_->user, &p->req),
            s_->rank, "MPI_Iallreduce");
  return Request(std::move(p));
}

namespace {
// What every rank must agree on; exchanged as bytes.
struct CallRecord {
  std::int64_t collective, count, type, op, commutative, root, in_place, has_error;
  char algorithm[48];
};

std::string list_ranks(const std::vector<int>& ranks) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
  return s.str();
}
}  // namespace

void MpiBackend::agree(const CollectiveCall& c, std::string_view algorithm,
                       const std::string& local_error) const {
  const bool rooted = c.collective == Collective::reduce || c.collective == Collective::bcast;
  CallRecord mine{};
  mine.collective = static_cast<std::int64_t>(c.collective);
  mine.count = static_cast<std::int64_t>(c.count);
  mine.type = static_cast<std::int64_t>(c.type);
  mine.op = c.has_op ? static_cast<std::int64_t>(c.kernel.op) : -1;
  mine.commutative = c.has_op ? c.kernel.commutative : -1;
  mine.root = rooted ? c.root : -1;
  mine.in_place = 0;  // in-place is a per-rank choice in MPI (e.g. reduce's root only)
  mine.has_error = local_error.empty() ? 0 : 1;
  std::strncpy(mine.algorithm, std::string(algorithm).c_str(), sizeof mine.algorithm - 1);

  std::vector<CallRecord> all(static_cast<std::size_t>(s_->size));
  mpi_check(
      MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE, s_->internal),
      s_->rank, "MPI_Allgather (validation)");

  std::vector<int> failed;
  for (int i = 0; i < s_->size; ++i)
    if (all[static_cast<std::size_t>(i)].has_error) failed.push_back(i);
  const std::string what(sched::to_string(c.collective));
  if (!local_error.empty()) throw Error(s_->rank, local_error);
  if (!failed.empty())
    throw Error(s_->rank,
                what + ": invalid arguments on rank(s) " + list_ranks(failed) + " (CCLX_VALIDATE)");

  std::ostringstream diff;
  auto field = [&](const char* name, auto get, auto show) {
    std::vector<int> differ;
    for (int i = 1; i < s_->size; ++i)
      if (get(all[static_cast<std::size_t>(i)]) != get(all[0])) differ.push_back(i);
    if (differ.empty()) return;
    diff << "; " << name << ": rank 0 has " << show(all[0]);
    for (int i : differ)
      diff << ", rank " << i << " has " << show(all[static_cast<std::size_t>(i)]);
  };
  auto num = [](auto v) { return std::to_string(v); };
  field(
      "collective", [](const CallRecord& r) { return r.collective; },
      [](const CallRecord& r) {
        return std::string(sched::to_string(static_cast<Collective>(r.collective)));
      });
  field(
      "count", [](const CallRecord& r) { return r.count; },
      [&](const CallRecord& r) { return num(r.count); });
  field(
      "element type", [](const CallRecord& r) { return r.type; },
      [](const CallRecord& r) { return std::string(to_string(static_cast<DataType>(r.type))); });
  field(
      "op", [](const CallRecord& r) { return r.op * 2 + r.commutative; },
      [](const CallRecord& r) {
        return r.op < 0 ? std::string("none") : std::string(to_string(static_cast<OpId>(r.op)));
      });
  field(
      "root", [](const CallRecord& r) { return r.root; },
      [&](const CallRecord& r) { return num(r.root); });
  field(
      "algorithm", [](const CallRecord& r) { return std::string(r.algorithm); },
      [](const CallRecord& r) { return std::string(r.algorithm); });
  const std::string d = diff.str();
  if (!d.empty()) throw Error(s_->rank, what + ": ranks disagree (CCLX_VALIDATE)" + d.substr(1));
}

}  // namespace cclx
