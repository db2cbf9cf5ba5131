// The MPI library's own collectives ("native"): blocking, nonblocking (MPI_I*) and persistent
// (MPI-4's MPI_*_init where trusted_persistent(), else MPI_I* issued at each start), with the
// workarounds for MPI bugs applied to all three: the op comes from mpi_op() (MPICH's unsigned
// max/min, Open MPI's saturating 8/16-bit sum), and MPICH's in-place reduce at a root other than 0
// is staged (below).
#include <climits>
#include <cstring>
#include <string>
#include <type_traits>

#include "cclx/backend/mpi.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "mpi_large_count.hpp"
#include "mpi_native_v.hpp"
#include "mpi_pending.hpp"
#include "mpi_state.hpp"

// MPI-4's persistent collectives (MPI_Allreduce_init, ...): MPICH 4; not Open MPI 4.1.
#if MPI_VERSION >= 4
#define CCLX_MPI_INIT(fn) fn
#else
#define CCLX_MPI_INIT(fn) nullptr
#endif
// Nonblocking and persistent calls beyond INT_MAX elements need MPI-4's large-count functions.
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
#define CCLX_LARGE_FORMS(form, req, blocking, nonblocking, persistent, ...) \
  forms(form, req, blocking, nonblocking, persistent, __VA_ARGS__)
#else
#define CCLX_LARGE_FORMS(form, req, blocking, nonblocking, persistent, ...) \
  (large::unsupported(a.rank, "native nonblocking or persistent call", a.count), MPI_ERR_COUNT)
#endif

namespace cclx {

using detail::current_user_kernel;
using detail::mpi_check;
using detail::wait_until_deadline;
namespace large = detail::large;
using sched::Collective;

namespace {

enum class Form { blocking, nonblocking, persistent };

// What a native call passes to MPI on this rank, with MPI_IN_PLACE's conventions applied.
struct NativeArgs {
  const void* send = nullptr;
  void* recv = nullptr;
  std::size_t count = 0;
  MPI_Datatype dt = MPI_DATATYPE_NULL;
  MPI_Op op = MPI_OP_NULL;
  int root = 0;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0;
};

// MPICH 4.0.2 (ch4:ucx) segfaults in MPI_Reduce(MPI_IN_PLACE, ...) at a root other than 0 from
// about 1000 floats on (tests/mpi/test_mpich_workarounds.cpp shows it): the root's input is
// staged in pooled scratch and the reduce runs out of place instead. Bytes to stage, or 0.
std::size_t staged_bytes(const CollectiveCall& c, int rank) {
  if (coll::has_variable_counts(c.collective))
    return detail::native_v_staging(c) * c.kernel.elem_size;  // mpi_native_v.hpp
  const bool stage =
      c.collective == Collective::reduce && c.in_place && rank == c.root && c.root != 0 && c.count;
  return stage ? c.count * c.kernel.elem_size : 0;
}

// `staged`: where the root's in-place reduce input is staged (staged_bytes() > 0), else null.
NativeArgs native_args(const CollectiveCall& c, MPI_Op op, MPI_Comm comm, int rank,
                       const void* staged) {
  NativeArgs a;
  a.send = c.in_place ? MPI_IN_PLACE : c.in;
  a.recv = c.out;
  a.count = c.count;
  a.dt = mpi_datatype(c.type);
  a.op = op;
  a.root = c.root;
  a.comm = comm;
  a.rank = rank;
  const bool root = rank == c.root;
  switch (c.collective) {
    case Collective::reduce:
    case Collective::gather:
      // MPI_IN_PLACE is the root's send buffer; the others pass their buffer as input.
      if (c.in_place && !root) a.send = c.in;
      if (staged) a.send = staged;
      break;
    case Collective::scatter:
      // MPI_IN_PLACE is the root's receive buffer; its one buffer is the send buffer.
      if (c.in_place && root) {
        a.send = c.out;
        a.recv = MPI_IN_PLACE;
      } else {
        a.send = c.in;
      }
      break;
    default:
      break;
  }
  return a;
}

// Calls the form's function with `args` (+ the request, + MPI_INFO_NULL for persistent).
template <class B, class I, class P, class... Args>
int forms(Form form, MPI_Request* req, B blocking, I nonblocking, [[maybe_unused]] P persistent,
          Args... args) {
  switch (form) {
    case Form::blocking:
      return blocking(args...);
    case Form::nonblocking:
      return nonblocking(args..., req);
    case Form::persistent:
      if constexpr (std::is_null_pointer_v<P>)
        return MPI_ERR_OTHER;  // not reached: without MPI-4, persistent requests use nonblocking
      else
        return persistent(args..., MPI_INFO_NULL, req);
  }
  return MPI_ERR_OTHER;
}

// Issues `a` as equal-block collective `coll` in `form`; `fn` names the MPI function for messages.
int issue_equal(Collective coll, Form form, const NativeArgs& a, MPI_Request* req,
                const char** fn) {
  const bool small = a.count <= INT_MAX;
  const int n = static_cast<int>(a.count);
  [[maybe_unused]] const auto nc = static_cast<MPI_Count>(a.count);
  const bool blocking = form == Form::blocking;
  const int r = a.rank;
  switch (coll) {
    case Collective::allreduce:
      *fn = "MPI_Allreduce";
      if (small)
        return forms(form, req, MPI_Allreduce, MPI_Iallreduce, CCLX_MPI_INIT(MPI_Allreduce_init),
                     a.send, a.recv, n, a.dt, a.op, a.comm);
      if (blocking) return large::allreduce(a.send, a.recv, a.count, a.dt, a.op, a.comm);
      return CCLX_LARGE_FORMS(form, req, MPI_Allreduce_c, MPI_Iallreduce_c, MPI_Allreduce_init_c,
                              a.send, a.recv, nc, a.dt, a.op, a.comm);
    case Collective::reduce:
      *fn = "MPI_Reduce";
      if (small)
        return forms(form, req, MPI_Reduce, MPI_Ireduce, CCLX_MPI_INIT(MPI_Reduce_init), a.send,
                     a.recv, n, a.dt, a.op, a.root, a.comm);
      if (blocking) return large::reduce(a.send, a.recv, a.count, a.dt, a.op, a.root, a.comm);
      return CCLX_LARGE_FORMS(form, req, MPI_Reduce_c, MPI_Ireduce_c, MPI_Reduce_init_c, a.send,
                              a.recv, nc, a.dt, a.op, a.root, a.comm);
    case Collective::bcast:
      *fn = "MPI_Bcast";
      if (small)
        return forms(form, req, MPI_Bcast, MPI_Ibcast, CCLX_MPI_INIT(MPI_Bcast_init), a.recv, n,
                     a.dt, a.root, a.comm);
      if (blocking) return large::bcast(a.recv, a.count, a.dt, a.root, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Bcast_c, MPI_Ibcast_c, MPI_Bcast_init_c, a.recv, nc,
                              a.dt, a.root, a.comm);
    case Collective::reduce_scatter:
      *fn = "MPI_Reduce_scatter_block";
      if (small)
        return forms(form, req, MPI_Reduce_scatter_block, MPI_Ireduce_scatter_block,
                     CCLX_MPI_INIT(MPI_Reduce_scatter_block_init), a.send, a.recv, n, a.dt, a.op,
                     a.comm);
      if (blocking)
        return large::reduce_scatter_block(a.send, a.recv, a.count, a.dt, a.op, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Reduce_scatter_block_c, MPI_Ireduce_scatter_block_c,
                              MPI_Reduce_scatter_block_init_c, a.send, a.recv, nc, a.dt, a.op,
                              a.comm);
    case Collective::allgather:
      *fn = "MPI_Allgather";
      if (small)
        return forms(form, req, MPI_Allgather, MPI_Iallgather, CCLX_MPI_INIT(MPI_Allgather_init),
                     a.send, n, a.dt, a.recv, n, a.dt, a.comm);
      if (blocking) return large::allgather(a.send, a.recv, a.count, a.dt, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Allgather_c, MPI_Iallgather_c, MPI_Allgather_init_c,
                              a.send, nc, a.dt, a.recv, nc, a.dt, a.comm);
    case Collective::gather:
      *fn = "MPI_Gather";
      if (small)
        return forms(form, req, MPI_Gather, MPI_Igather, CCLX_MPI_INIT(MPI_Gather_init), a.send, n,
                     a.dt, a.recv, n, a.dt, a.root, a.comm);
      if (blocking) return large::gather(a.send, a.recv, a.count, a.dt, a.root, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Gather_c, MPI_Igather_c, MPI_Gather_init_c, a.send, nc,
                              a.dt, a.recv, nc, a.dt, a.root, a.comm);
    case Collective::scatter:
      *fn = "MPI_Scatter";
      if (small)
        return forms(form, req, MPI_Scatter, MPI_Iscatter, CCLX_MPI_INIT(MPI_Scatter_init), a.send,
                     n, a.dt, a.recv, n, a.dt, a.root, a.comm);
      if (blocking) return large::scatter(a.send, a.recv, a.count, a.dt, a.root, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Scatter_c, MPI_Iscatter_c, MPI_Scatter_init_c, a.send,
                              nc, a.dt, a.recv, nc, a.dt, a.root, a.comm);
    case Collective::alltoall:
      *fn = "MPI_Alltoall";
      if (small)
        return forms(form, req, MPI_Alltoall, MPI_Ialltoall, CCLX_MPI_INIT(MPI_Alltoall_init),
                     a.send, n, a.dt, a.recv, n, a.dt, a.comm);
      if (blocking) return large::alltoall(a.send, a.recv, a.count, a.dt, a.comm, r);
      return CCLX_LARGE_FORMS(form, req, MPI_Alltoall_c, MPI_Ialltoall_c, MPI_Alltoall_init_c,
                              a.send, nc, a.dt, a.recv, nc, a.dt, a.comm);
    case Collective::barrier:
      *fn = "MPI_Barrier";
      return forms(form, req, MPI_Barrier, MPI_Ibarrier, CCLX_MPI_INIT(MPI_Barrier_init), a.comm);
    default:  // the v-collectives: issue()
      break;
  }
  return MPI_ERR_OTHER;
}

// Issues call `c` (arguments `a`) in `form` (blocking or nonblocking; a v-collective's persistent
// request issues the nonblocking form at each start, trusted_persistent()). `staged`: the staged
// input of staged_bytes(), else null. A nonblocking v-collective's int arrays go to `keep`, which
// must live until it completes.
int issue(const CollectiveCall& c, Form form, const NativeArgs& a, const void* staged,
          MPI_Request* req, const char** fn, std::unique_ptr<detail::NativeVArrays>& keep) {
  if (!coll::has_variable_counts(c.collective)) return issue_equal(c.collective, form, a, req, fn);
  *fn = detail::native_v_function(c.collective);
  // MPICH's in-place reduce_scatter with overlapping moves (mpi_native_v.hpp): out of place from
  // the staged copy of the input.
  CollectiveCall vc = c;
  if (staged) {
    vc.in = staged;
    vc.in_place = false;
  }
  return detail::native_v(vc, a.dt, a.op, a.comm, a.rank, detail::native_v_fits_int(vc),
                          form == Form::blocking ? nullptr : req, keep);
}

// Whether a persistent request of `coll` uses MPI-4's MPI_*_init (else MPI_I* at each start).
// MPICH 4.0.2's persistent allgather, gather and scatter are wrong from the second start on: a
// standalone C program (3 starts, new data each time, mpiexec -n 1..5) gets only the first
// start's data from the other ranks (allgather at n = 2 and 4, gather at every n, scatter at
// n = 2) or hangs with "Invalid communicator" (scatter at n >= 3); its allreduce, reduce, bcast,
// reduce_scatter_block and alltoall were right in every case and in the persistent grid. The
// nonblocking calls are right for all eight, so the others take that path, on every MPI (a probe
// would cost collectives at every init and could miss size-dependent failures); collectives not
// listed here take it too until they are checked.
constexpr bool trusted_persistent(Collective coll) {
  switch (coll) {
    case Collective::allreduce:
    case Collective::reduce:
    case Collective::bcast:
    case Collective::reduce_scatter:
    case Collective::alltoall:
      return MPI_VERSION >= 4;
    default:
      return false;
  }
}

// A builtin op's MPI_Op; user-defined ops are refused for nonblocking and persistent calls.
MPI_Op builtin_op(const CollectiveCall& c, int rank, const char* form) {
  if (!c.has_op) return MPI_OP_NULL;
  if (c.kernel.op == OpId::user)
    throw Error(rank, std::string("native ") + form + sched::to_string(c.collective).data() +
                          " does not support user-defined ops (MPI would call the op during "
                          "later progress); use a scheduled algorithm such as algo::Ring");
  return mpi_op(c.kernel.op, c.type);
}

}  // namespace

void MpiBackend::native(const CollectiveCall& c) const {
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

  const int r = s_->rank;
  // With a deadline, the nonblocking collective polled against it (docs/faults.md); without, the
  // blocking call (cheaper at small sizes). Large counts and user-defined ops are always blocking,
  // without a deadline: an abandoned collective would call the trampoline later, when this call's
  // kernel is gone.
  const bool timed = s_->timeout_s > 0 && c.count <= INT_MAX && !user;
  MPI_Request req = MPI_REQUEST_NULL;
  // Staged input of a workaround (staged_bytes()) and the v-collectives' int arrays; they live
  // until the collective completes.
  engine::ScratchPool::Lease staged;
  if (const std::size_t bytes = staged_bytes(c, r)) {
    staged = s_->scratch.acquire(bytes);
    std::memcpy(staged.data(), c.out, bytes);
  }
  std::unique_ptr<detail::NativeVArrays> v_arrays;
  const NativeArgs a = native_args(c, op, s_->user, r, staged.data());
  const char* fn = "";
  const int rc =
      issue(c, timed ? Form::nonblocking : Form::blocking, a, staged.data(), &req, &fn, v_arrays);
  const auto what = [&] { return std::string(sched::to_string(c.collective)) + " (native)"; };
  if (rc != MPI_SUCCESS) mpi_check(rc, r, (what() + ": " + fn).c_str());
  if (!timed) return;
  bool done = false;
  try {
    done = wait_until_deadline(req, s_->timeout_s, s_->wait, r, "MPI_Test", *s_->roll);
  } catch (const Error& e) {  // MPI reported an error (a peer died): who else is missing
    s_->abandoned_collective = true;
    throw Error(r, what() + ": " + e.detail() + s_->roll->verdict(s_->timeout_s));
  }
  if (!done) {
    // A nonblocking collective can be neither cancelled nor freed: it stays with MPI, and the
    // staged scratch with it (deliberately leaked, never back to the pool).
    detail::leak(std::move(staged), std::move(v_arrays));
    s_->abandoned_collective = true;
    throw Error(r, what() + " did not complete within " + engine::format_seconds(s_->timeout_s) +
                       s_->roll->verdict(s_->timeout_s));
  }
}

Request MpiBackend::native_start(const CollectiveCall& c, std::shared_ptr<void> keepalive) const {
  const MPI_Op op = builtin_op(c, s_->rank, "i");
  auto p = State::pending(s_, "native i", -1);
  p->collective = c.collective;
  p->keepalive = std::move(keepalive);
  if (const std::size_t bytes = staged_bytes(c, s_->rank)) {
    p->staged = s_->scratch.acquire(bytes);
    std::memcpy(p->staged.data(), c.out, bytes);
  }
  const NativeArgs a = native_args(c, op, s_->user, s_->rank, p->staged.data());
  const char* fn = "";
  const int rc = issue(c, Form::nonblocking, a, p->staged.data(), &p->req, &fn, p->native_v_arrays);
  if (rc != MPI_SUCCESS)
    mpi_check(rc, s_->rank,
              (std::string("native i") + sched::to_string(c.collective).data() + ": " + fn +
               " (nonblocking)")
                  .c_str());
  return Request(std::move(p));
}

namespace {

// A native persistent collective on its own duplicate of the private communicator.
class NativePersistent final : public detail::PersistentOp {
 public:
  NativePersistent(std::shared_ptr<MpiBackend::State> state, const CollectiveCall& c,
                   std::shared_ptr<void> keepalive)
      : s_(std::move(state)), call_(c), keepalive_(std::move(keepalive)) {
    const MPI_Op op = builtin_op(c, s_->rank, "persistent ");
#if !defined(CCLX_HAVE_MPI_LARGE_COUNT)
    if (c.count > INT_MAX) large::unsupported(s_->rank, "native persistent collective", c.count);
#endif
    if (const std::size_t bytes = staged_bytes(c, s_->rank)) {
      staged_bytes_ = bytes;
      staged_ = s_->scratch.acquire(bytes);
    }
    comm_ = s_->dup_private();
    args_ = native_args(c, op, comm_, s_->rank, staged_.data());
    if (mpi4_) {
      const char* fn = "";
      const int rc = issue(c, Form::persistent, args_, staged_.data(), &req_, &fn, v_arrays_);
      if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&comm_);
        mpi_check(rc, s_->rank, (name() + ": " + fn + "_init").c_str());
      }
    }
  }
  ~NativePersistent() override {
    if (abandoned_) {
      // Left to MPI with everything it uses (as MpiPending does for a nonblocking collective).
      detail::leak(std::move(s_), std::move(keepalive_), std::move(staged_), std::move(v_arrays_));
      return;
    }
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized) return;
    if (mpi4_ && req_ != MPI_REQUEST_NULL) MPI_Request_free(&req_);  // inactive: may be freed
    MPI_Comm_free(&comm_);
  }

  void start() override {
    s_->roll->calls.enter(call_.collective);
    // The staged copy is the root's input as it is now (the buffer is bound, its contents not).
    if (staged_bytes_) std::memcpy(staged_.data(), call_.out, staged_bytes_);
    if (mpi4_) {
      if (const int rc = MPI_Start(&req_); rc != MPI_SUCCESS)
        mpi_check(rc, s_->rank, (name() + ": MPI_Start").c_str());
      return;
    }
    const char* fn = "";
    const int rc = issue(call_, Form::nonblocking, args_, staged_.data(), &req_, &fn, v_arrays_);
    if (rc != MPI_SUCCESS) mpi_check(rc, s_->rank, (name() + ": " + fn + " (nonblocking)").c_str());
  }
  bool test() override {
    s_->roll->serve_sometimes();  // a caller polling test() answers roll calls as wait() does
    int flag = 0;
    const detail::CompletionScope scope;
    if (const int rc = MPI_Test(&req_, &flag, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
      mpi_check(rc, s_->rank, (name() + ": MPI_Test").c_str());
    return flag != 0;
  }
  void wait() override {
    if (s_->timeout_s <= 0) {
      const detail::CompletionScope scope;
      if (const int rc = MPI_Wait(&req_, MPI_STATUS_IGNORE); rc != MPI_SUCCESS)
        mpi_check(rc, s_->rank, (name() + ": MPI_Wait").c_str());
      return;
    }
    bool done = false;
    try {
      done = wait_until_deadline(req_, s_->timeout_s, s_->wait, s_->rank, "MPI_Test", *s_->roll);
    } catch (const Error& e) {
      throw Error(s_->rank, "persistent " + name() + ": " + e.detail());
    }
    if (!done)
      throw Error(s_->rank, "persistent " + name() + " did not complete within " +
                                engine::format_seconds(s_->timeout_s) +
                                s_->roll->verdict(s_->timeout_s));
  }
  void abandon() noexcept override {
    abandoned_ = true;
  }
  [[nodiscard]] std::string name() const override {
    return std::string(sched::to_string(call_.collective)) + " (native)";
  }
  [[nodiscard]] int rank() const override {
    return s_->rank;
  }

 private:
  std::shared_ptr<MpiBackend::State> s_;
  CollectiveCall call_;
  std::shared_ptr<void> keepalive_;
  engine::ScratchPool::Lease staged_;
  std::size_t staged_bytes_ = 0;
  std::unique_ptr<detail::NativeVArrays> v_arrays_;  // a v-collective's, for the started request
  MPI_Comm comm_ = MPI_COMM_NULL;
  NativeArgs args_;
  MPI_Request req_ = MPI_REQUEST_NULL;
  const bool mpi4_ = trusted_persistent(call_.collective);  // else MPI_I* at each start
  bool abandoned_ = false;
};

}  // namespace

std::unique_ptr<detail::PersistentOp> MpiBackend::native_init(const CollectiveCall& c,
                                                              std::shared_ptr<void> keepalive) {
  return std::make_unique<NativePersistent>(s_, c, std::move(keepalive));
}

}  // namespace cclx
