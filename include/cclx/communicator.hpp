// cclx::Communicator<Backend>: the API edge. Typed ranges, ops and algorithm policies come in
// here; below it everything is bytes, a type-erased kernel and a schedule.
//
//   cclx::Communicator comm(MPI_COMM_WORLD);
//   comm.allreduce(grad, cclx::sum, cclx::algo::Ring{});         // in place
//   comm.allreduce(in, out, cclx::max);                            // out of place, native MPI
//
// One buffer means in place, two mean out of place; results go only where the caller said.
// Collectives are called by every rank in the same order with matching arguments (as in MPI);
// CCLX_VALIDATE=1 checks that before each call.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <concepts>
#include <memory>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "cclx/algo/algorithm.hpp"
#include "cclx/backend/mpi.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/detail/call_support.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/ops.hpp"
#include "cclx/request.hpp"
#include "cclx/types.hpp"

namespace cclx {

template <class R>
concept ContiguousRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    Element<std::remove_cv_t<std::ranges::range_value_t<R>>>;

template <class R>
concept MutableRange = ContiguousRange<R> &&
    !std::is_const_v<std::remove_reference_t<std::ranges::range_reference_t<R>>>;

template <class R>
using element_t = std::remove_cv_t<std::ranges::range_value_t<R>>;

namespace detail {
// A scheduled execution behind a Request; keeps the op (and thus the kernel's state) alive.
struct ExecutionPending final : PendingOp {
  std::unique_ptr<engine::Execution> exec;
  std::shared_ptr<void> keepalive;
  bool test() override { return exec->test(); }
  void wait() override { exec->wait(); }
};

template <class T, class Op>
ReduceKernel kernel_for(const Op& op) {
  static_assert(op_supported<T, Op::id>,
                "cclx: this op is not defined for this element type (bitwise ops need integers; "
                "bool supports min/max/band/bor/bxor)");
  return make_kernel<T>(op);
}
}  // namespace detail

template <class Backend = MpiBackend>
class Communicator {
 public:
  // Collective over `comm` (it duplicates communicators, see MpiBackend).
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD, Ownership own = Ownership::duplicate)
      : b_(comm, own) {}

  [[nodiscard]] int rank() const { return b_.rank(); }
  [[nodiscard]] int size() const { return b_.size(); }
  [[nodiscard]] auto native_handle() const { return b_.native_handle(); }
  [[nodiscard]] Backend& backend() { return b_; }

  // ---- point-to-point (on the user's communicator; tags are the application's) ----
  template <ContiguousRange R>
  void send(const R& data, int dest, int tag = 0) const {
    b_.send(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(), dest,
            tag);
  }
  template <MutableRange R>
  void recv(R&& data, int source, int tag = 0) const {
    b_.recv(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(), source,
            tag);
  }
  template <ContiguousRange R>
  Request isend(const R& data, int dest, int tag = 0) const {
    return b_.isend(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(),
                    dest, tag);
  }
  template <MutableRange R>
  Request irecv(R&& data, int source, int tag = 0) const {
    return b_.irecv(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(),
                    source, tag);
  }
  void barrier() const { b_.barrier(); }

  // ---- allreduce ----
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  void allreduce(R&& buf, const Op& op, const A& algorithm = {}) {
    auto c = in_place_call<R>(sched::Collective::allreduce, buf, op);
    run(c, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  void allreduce(const In& in, Out&& out, const Op& op, const A& algorithm = {}) {
    auto c = out_of_place_call<In, Out>(sched::Collective::allreduce, in, out, op);
    run(c, algorithm);
  }

  // Nonblocking allreduce; the buffers must stay untouched until the request completes, and the
  // Communicator must outlive it.
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  Request iallreduce(R&& buf, const Op& op, const A& algorithm = {}) {
    auto keep = std::make_shared<Op>(op);
    auto c = in_place_call<R>(sched::Collective::allreduce, buf, *keep);
    return start(c, algorithm, keep);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  Request iallreduce(const In& in, Out&& out, const Op& op, const A& algorithm = {}) {
    auto keep = std::make_shared<Op>(op);
    auto c = out_of_place_call<In, Out>(sched::Collective::allreduce, in, out, *keep);
    return start(c, algorithm, keep);
  }

  // ---- reduce: the result lands on `root`; non-roots' buffers are only read ----
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  void reduce(R&& buf, const Op& op, int root, const A& algorithm = {}) {
    auto c = in_place_call<R>(sched::Collective::reduce, buf, op);
    c.root = root;
    run(c, algorithm);
  }
  // `out` matters on the root only (it may be empty elsewhere).
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  void reduce(const In& in, Out&& out, const Op& op, int root, const A& algorithm = {}) {
    auto c = out_of_place_call<In, Out>(sched::Collective::reduce, in, out, op);
    c.root = root;
    run(c, algorithm);
  }

  // ---- bcast: root's buffer to everyone ----
  template <MutableRange R, algo::Algorithm A = algo::Native>
  void bcast(R&& buf, int root, const A& algorithm = {}) {
    using T = element_t<R>;
    CollectiveCall c = base_call<T>(sched::Collective::bcast);
    c.out = std::ranges::data(buf);
    c.in = c.out;
    c.in_place = true;
    c.count = c.in_size = c.out_size = std::ranges::size(buf);
    c.root = root;
    run(c, algorithm);
  }

  // ---- reduce_scatter (equal blocks): rank r gets block r of the reduction ----
  // In place: `buf` holds n blocks; the result goes to its first block (as MPI_IN_PLACE does).
  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  void reduce_scatter(R&& buf, const Op& op, const A& algorithm = {}) {
    auto c = in_place_call<R>(sched::Collective::reduce_scatter, buf, op);
    c.count = c.out_size / static_cast<std::size_t>(size());
    run(c, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  void reduce_scatter(const In& in, Out&& out, const Op& op, const A& algorithm = {}) {
    auto c = out_of_place_call<In, Out>(sched::Collective::reduce_scatter, in, out, op);
    c.count = c.out_size;
    run(c, algorithm);
  }

  // ---- allgather: block r of the output comes from rank r ----
  // In place: `buf` holds n blocks and this rank's contribution is already at block rank().
  template <MutableRange R, algo::Algorithm A = algo::Native>
  void allgather(R&& buf, const A& algorithm = {}) {
    auto c = in_place_data_call<R>(sched::Collective::allgather, buf);
    run(c, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, algo::Algorithm A = algo::Native>
  void allgather(const In& in, Out&& out, const A& algorithm = {}) {
    auto c = out_of_place_data_call<In, Out>(sched::Collective::allgather, in, out);
    c.count = c.in_size;
    run(c, algorithm);
  }

  // ---- alltoall: block i of the input goes to rank i; block i of the output came from rank i --
  template <MutableRange R, algo::Algorithm A = algo::Native>
  void alltoall(R&& buf, const A& algorithm = {}) {
    auto c = in_place_data_call<R>(sched::Collective::alltoall, buf);
    run(c, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, algo::Algorithm A = algo::Native>
  void alltoall(const In& in, Out&& out, const A& algorithm = {}) {
    auto c = out_of_place_data_call<In, Out>(sched::Collective::alltoall, in, out);
    c.count = c.in_size / static_cast<std::size_t>(size());
    run(c, algorithm);
  }

 private:
  template <class T>
  static CollectiveCall base_call(sched::Collective coll) {
    CollectiveCall c;
    c.collective = coll;
    c.type = data_type_of<T>();
    c.kernel.elem_size = sizeof(T);
    return c;
  }

  template <class R, class Op>
  CollectiveCall in_place_call(sched::Collective coll, R& buf, const Op& op) const {
    using T = element_t<R>;
    CollectiveCall c = base_call<T>(coll);
    c.kernel = detail::kernel_for<T>(op);
    c.has_op = true;
    c.out = std::ranges::data(buf);
    c.in = c.out;
    c.in_place = true;
    c.count = c.in_size = c.out_size = std::ranges::size(buf);
    return c;
  }

  template <class In, class Out, class Op>
  CollectiveCall out_of_place_call(sched::Collective coll, const In& in, Out& out,
                                   const Op& op) const {
    static_assert(std::same_as<element_t<In>, element_t<Out>>,
                  "cclx: input and output element types differ");
    using T = element_t<In>;
    CollectiveCall c = base_call<T>(coll);
    c.kernel = detail::kernel_for<T>(op);
    c.has_op = true;
    c.in = std::ranges::data(in);
    c.out = std::ranges::data(out);
    c.count = c.in_size = std::ranges::size(in);
    c.out_size = std::ranges::size(out);
    return c;
  }

  // Data-movement collectives (no op).
  template <class R>
  CollectiveCall in_place_data_call(sched::Collective coll, R& buf) const {
    using T = element_t<R>;
    CollectiveCall c = base_call<T>(coll);
    c.out = std::ranges::data(buf);
    c.in = c.out;
    c.in_place = true;
    c.in_size = c.out_size = std::ranges::size(buf);
    c.count = c.out_size / static_cast<std::size_t>(size());
    return c;
  }
  template <class In, class Out>
  CollectiveCall out_of_place_data_call(sched::Collective coll, const In& in, Out& out) const {
    static_assert(std::same_as<element_t<In>, element_t<Out>>,
                  "cclx: input and output element types differ");
    using T = element_t<In>;
    CollectiveCall c = base_call<T>(coll);
    c.in = std::ranges::data(in);
    c.out = std::ranges::data(out);
    c.in_size = std::ranges::size(in);
    c.out_size = std::ranges::size(out);
    return c;
  }

  // Argument checks, then (with validation) agreement across ranks; throws on bad input.
  // With validation on, a scheduled policy's schedule is made (or fetched from the cache) here,
  // before the agreement, so that a rank whose generator refuses the call (e.g. StragglAR with an
  // out-of-range straggler) still takes part and every rank throws instead of some hanging; the
  // schedule is handed on to execution(). Without validation the schedule is made in execution(),
  // and a generator error that only some ranks hit (their policies differ) leaves the others
  // waiting in the collective, as mismatched arguments do in MPI.
  template <algo::Algorithm A>
  std::shared_ptr<const sched::Schedule> prepare(const CollectiveCall& c,
                                                 [[maybe_unused]] const A& algorithm) {
    if (!b_.validation()) {
      if (!detail::plainly_valid(c))
        if (const std::string err = detail::check_call(c, rank(), size()); !err.empty())
          throw Error(rank(), err);
      return nullptr;
    }
    typename Backend::Agreement mine{A::name, {}, detail::check_call(c, rank(), size())};
    std::shared_ptr<const sched::Schedule> s;
    if constexpr (algo::ScheduledAlgorithm<A>) {
      const sched::ScheduleRequest req = detail::schedule_request(c, rank(), size());
      mine.params = algo::wire_params(algorithm, req);
      if (mine.local_error.empty()) {
        try {
          s = algo::schedule_for(algorithm, req);
          detail::check_schedule(c, *s, rank());
        } catch (const Error& e) {
          mine.local_error = e.detail();
          s.reset();
        }
      }
    }
    b_.agree(c, mine);
    return s;
  }

  // `s`: the schedule prepare() made, or null to make it here.
  template <algo::ScheduledAlgorithm A>
  std::unique_ptr<engine::Execution> execution(const CollectiveCall& c, const A& algorithm,
                                               std::shared_ptr<const sched::Schedule> s) {
    const int r = rank();
    if (!s) {
      try {
        s = algo::schedule_for(algorithm, detail::schedule_request(c, r, size()));
      } catch (const Error& e) {
        throw e.on_rank(r);
      }
      detail::check_schedule(c, *s, r);
    }
    engine::ExecOptions opts = algorithm.exec_options();
    opts.wait = b_.wait_policy();
    opts.handshake_bytes = b_.handshake_bytes();
    return std::make_unique<engine::Execution>(s, detail::engine_buffers(c, *s, r), c.kernel,
                                               b_.transport(), b_.next_channel(), b_.scratch(),
                                               opts);
  }

  template <algo::Algorithm A>
  void run(const CollectiveCall& c, const A& algorithm) {
    auto s = prepare(c, algorithm);
    if constexpr (std::same_as<A, algo::Native>) {
      b_.native(c);  // MPI matches its own collectives; no channel number needed
    } else if constexpr (algo::AdaptiveAlgorithm<A>) {
      run_adaptive(c, algorithm);
    } else {
      execution(c, algorithm, std::move(s))->wait();
    }
  }

  // Runs the adaptive policy's choice, then shares every rank's arrival and completion time (one
  // small allgather) so that all ranks update the policy's state identically.
  template <algo::AdaptiveAlgorithm A>
  void run_adaptive(const CollectiveCall& c, const A& algorithm) {
    if (c.collective != sched::Collective::allreduce)
      throw Error(rank(), std::string(A::name) + " serves allreduce only, not " +
                              std::string(sched::to_string(c.collective)));
    const double arrived = b_.clock();
    bool fallback = false;
    algorithm.dispatch([&](const auto& choice) {
      fallback = std::same_as<std::decay_t<decltype(choice)>, decltype(algorithm.fallback)>;
      run(c, choice);
    });
    const double mine[2] = {arrived, b_.clock()};
    std::vector<double> all(2 * static_cast<std::size_t>(size()));
    CollectiveCall g = base_call<double>(sched::Collective::allgather);
    g.in = mine;
    g.out = all.data();
    g.count = g.in_size = 2;
    g.out_size = all.size();
    b_.next_channel();
    b_.native(g);
    std::vector<double> arrivals(static_cast<std::size_t>(size()));
    double last_arrival = all[0], last_done = all[1];
    for (std::size_t r = 0; r < arrivals.size(); ++r) {
      arrivals[r] = all[2 * r];
      last_arrival = std::max(last_arrival, all[2 * r]);
      last_done = std::max(last_done, all[2 * r + 1]);
    }
    algorithm.detector->observe(arrivals, last_done - last_arrival, fallback);
  }

  template <algo::Algorithm A>
  Request start(const CollectiveCall& c, const A& algorithm, std::shared_ptr<void> keepalive) {
    auto s = prepare(c, algorithm);
    if constexpr (std::same_as<A, algo::Native>) {
      return b_.native_iallreduce(c, std::move(keepalive));
    } else {
      auto p = std::make_unique<detail::ExecutionPending>();
      p->exec = execution(c, algorithm, std::move(s));
      p->keepalive = std::move(keepalive);
      return Request(std::move(p));
    }
  }

  Backend b_;
};

Communicator(MPI_Comm)->Communicator<MpiBackend>;
Communicator(MPI_Comm, Ownership)->Communicator<MpiBackend>;

}  // namespace cclx
