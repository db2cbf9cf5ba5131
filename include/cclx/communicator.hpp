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
#include <cstring>
#include <memory>
#include <optional>
#include <ranges>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include "cclx/algo/algorithm.hpp"
#include "cclx/algo/auto.hpp"
#include "cclx/api/allgather.hpp"
#include "cclx/api/allgatherv.hpp"
#include "cclx/api/allreduce.hpp"
#include "cclx/api/alltoall.hpp"
#include "cclx/api/alltoallv.hpp"
#include "cclx/api/barrier.hpp"
#include "cclx/api/bcast.hpp"
#include "cclx/api/gather.hpp"
#include "cclx/api/gatherv.hpp"
#include "cclx/api/reduce.hpp"
#include "cclx/api/reduce_scatter.hpp"
#include "cclx/api/reduce_scatterv.hpp"
#include "cclx/api/scatter.hpp"
#include "cclx/api/scatterv.hpp"
#include "cclx/backend/mpi.hpp"
#include "cclx/call/check.hpp"
#include "cclx/call/execute.hpp"
#include "cclx/call/plan.hpp"
#include "cclx/call/policy.hpp"
#include "cclx/call/schedule.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/detail/auto_dispatch.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/ops.hpp"
#include "cclx/persistent.hpp"
#include "cclx/request.hpp"
#include "cclx/types.hpp"

namespace cclx {

namespace detail {
template <class T, class Op>
ReduceKernel kernel_for(const Op& op) {
  static_assert(op_supported<T, Op::id>,
                "cclx: this op is not defined for this element type (bitwise ops need integers; "
                "bool supports min/max/band/bor/bxor)");
  return make_kernel<T>(op);
}
}  // namespace detail

/// The backend (cclx::Backend, backend/backend.hpp) moves the bytes: MpiBackend (host memory) or
/// CudaBackend (device memory, cclx/cuda.hpp).
/// The collectives' calls come from their headers (`api/<name>.hpp`, one per collective, each with
/// its argument lists documented at the top); they all end in invoke() below.
template <Backend B = MpiBackend>
class Communicator : public api::AllreduceCalls<Communicator<B>>,
                     public api::ReduceCalls<Communicator<B>>,
                     public api::BcastCalls<Communicator<B>>,
                     public api::ReduceScatterCalls<Communicator<B>>,
                     public api::AllgatherCalls<Communicator<B>>,
                     public api::AlltoallCalls<Communicator<B>>,
                     public api::GatherCalls<Communicator<B>>,
                     public api::ScatterCalls<Communicator<B>>,
                     public api::BarrierCalls<Communicator<B>>,
                     public api::GathervCalls<Communicator<B>>,
                     public api::ScattervCalls<Communicator<B>>,
                     public api::AllgathervCalls<Communicator<B>>,
                     public api::ReduceScattervCalls<Communicator<B>>,
                     public api::AlltoallvCalls<Communicator<B>> {
 public:
  /// Collective over `comm` (it duplicates communicators, see MpiBackend).
  explicit Communicator(MPI_Comm comm = MPI_COMM_WORLD, Ownership own = Ownership::duplicate)
      : b_(comm, own), reproducible_(call::reproducible_setting(b_.rank())) {}

  /// This process's rank in the communicator.
  [[nodiscard]] int rank() const { return b_.rank(); }
  /// The number of ranks in the communicator.
  [[nodiscard]] int size() const { return b_.size(); }
  /// The backend's MPI communicator: the user's duplicate (Ownership::duplicate) or the borrowed
  /// one.
  [[nodiscard]] auto native_handle() const { return b_.native_handle(); }
  /// A host id per rank (equal ids share a host), as the hierarchical policies see it: the
  /// backend's (MpiBackend::host_ids: MPI's shared-memory split, or CCLX_HOSTS /
  /// CCLX_RANKS_PER_HOST), or empty for a backend without one (every rank its own host).
  /// Collective on its first call, which a communicator's first hierarchical call otherwise makes
  /// (blocking, even in a nonblocking start): call it once beforehand where that matters.
  [[nodiscard]] std::span<const int> host_ids() const {
    if constexpr (requires { b_.host_ids(); }) {
      try {
        return b_.host_ids();
      } catch (const Error& e) {
        throw e.on_rank(rank());
      }
    } else {
      return {};
    }
  }
  /// The backend, for its own settings (wait policy, validation, a CudaBackend's stream, ...).
  [[nodiscard]] B& backend() { return b_; }

  /// Deadline in seconds of every blocking collective and Request::wait() started afterwards; 0
  /// means none (the default, or CCLX_TIMEOUT). On expiry the call throws cclx::Error naming the
  /// ranks it waited for; see docs/faults.md for what may be done afterwards.
  void set_timeout(double seconds) { b_.set_timeout(seconds); }
  /// The deadline in seconds set by set_timeout() or CCLX_TIMEOUT; 0: none.
  [[nodiscard]] double timeout() const { return b_.timeout(); }

  /// Reproducible mode for the calls started afterwards (default: CCLX_REPRODUCIBLE, off): every
  /// floating-point sum or product and every user-defined op combines each element in the
  /// canonical order, so the result has the same bits whatever the algorithm, its segments and
  /// channels, or algo::Auto's choice. Auto then chooses among the algorithms that keep the order;
  /// a policy that does not (Native, Ring, ...) is a cclx::Error. Set it alike on every rank.
  /// See docs/reproducibility.md.
  void set_reproducible(bool on) { reproducible_ = on; }
  /// Whether reproducible mode is on (set_reproducible() or CCLX_REPRODUCIBLE).
  [[nodiscard]] bool reproducible() const { return reproducible_; }

  /// For a layer that waits with a deadline of its own (polling Request::test()) and gives up:
  /// the roll call that cclx's own waits run on a timeout. Asks every rank where it is, for at
  /// most half the timeout (0.2 to 2 s), and returns the text cclx appends to its timeout errors
  /// ("; missing: rank 2 (...)"). See docs/faults.md.
  [[nodiscard]] std::string roll_call() const requires requires(const B& b) { b.roll_call(); }
  { return b_.roll_call(); }

  /// After a collective threw because ranks died or stalled (its timeout): call it on every
  /// surviving rank. The survivors agree on who they are (one suspicion is enough to leave a rank
  /// out, so the group never splits) and get a Communicator of themselves, in the old rank order,
  /// with this one's timeout, wait policy, validation and reproducible mode. Throws cclx::Error
  /// on a rank the others count as failed. Once per communicator; see docs/faults.md.
  Communicator shrink() requires requires(B& b) { b.survivors(); }
  {
    MPI_Comm survivors = b_.survivors();
    Communicator out(survivors, Ownership::duplicate);
    MPI_Comm_free(&survivors);
    out.set_timeout(timeout());
    out.b_.set_wait_policy(b_.wait_policy());
    out.b_.set_validation(b_.validation());
    out.b_.set_handshake_bytes(b_.handshake_bytes());
    out.set_reproducible(reproducible_);
    return out;
  }

  // ---- point-to-point (on the user's communicator; tags are the application's) ----
  /// Blocking send of `data`'s elements to rank `dest`.
  template <ContiguousRange R>
  void send(const R& data, int dest, int tag = 0) const {
    b_.send(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(), dest,
            tag);
  }
  /// Blocking receive from rank `source` into `data` (a message of at most its size).
  template <MutableRange R>
  void recv(R&& data, int source, int tag = 0) const {
    b_.recv(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(), source,
            tag);
  }
  /// Nonblocking send: `data` must stay valid and unchanged until the request completes.
  template <ContiguousRange R>
  Request isend(const R& data, int dest, int tag = 0) const {
    return b_.isend(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(),
                    dest, tag);
  }
  /// Nonblocking receive into `data`, which must stay valid until the request completes.
  template <MutableRange R>
  Request irecv(R&& data, int source, int tag = 0) const {
    return b_.irecv(std::ranges::data(data), std::ranges::size(data), data_type_of<element_t<R>>(),
                    source, tag);
  }

  // Collectives (api/<name>.hpp): one buffer means in place, two mean out of place (MPI_IN_PLACE's
  // conventions). What count, the buffers and in place mean for each collective is stated once,
  // in its descriptor (include/cclx/collectives/<name>.hpp). Every collective comes in three forms:
  //   blocking      comm.allreduce(buf, cclx::sum, algo)
  //   nonblocking   Request r = comm.iallreduce(buf, cclx::sum, algo); ... r.wait();
  //   persistent    PersistentRequest p = comm.allreduce_init(buf, cclx::sum, algo);
  //                 p.start(); ... p.wait();  (any number of times; include/cclx/persistent.hpp)
  // Nonblocking and persistent calls keep using the buffers after they return: they must stay
  // valid and untouched until completion (a persistent request binds them for its whole life).
  // A Request or PersistentRequest may outlive the Communicator. Adaptive policies
  // (StragglerAware) serve blocking calls only; algo::Adaptive (relay collectives) persistent
  // requests only.

  // ---- a call already described without element types ----
  /// For callers that hold a type-erased call (libcclx-mpi builds one from MPI arguments, shim/):
  /// the same argument checks, validation and paths as the typed calls. What those
  /// check at compile time is checked here at run time: `algorithm` must serve c.collective.
  template <algo::Algorithm A>
  void run_call(const CollectiveCall& c, const A& algorithm) {
    check_runtime_policy<A>(c);
    run(in_mode(c), algorithm);
  }
  /// run_call()'s nonblocking form (init_call() is its persistent one). `keepalive` lives as long
  /// as the request: whatever the call points to beyond the buffers (c.blocks, a user op's state)
  /// must be in it. Adaptive policies serve blocking calls only and are refused with a cclx::Error.
  template <algo::Algorithm A>
  Request start_call(const CollectiveCall& c, const A& algorithm, std::shared_ptr<void> keepalive) {
    check_runtime_policy<A>(c);
    if constexpr (algo::AdaptiveAlgorithm<A>)
      throw Error(rank(), "adaptive policies serve blocking calls only");
    else
      return start(in_mode(c), algorithm, std::move(keepalive));
  }
  /// The persistent form of run_call(); `keepalive` as for start_call(). Adaptive policies are
  /// refused, and so is algo::Adaptive on a backend without relay collectives (device buffers).
  template <algo::Algorithm A>
  PersistentRequest init_call(const CollectiveCall& c, const A& algorithm,
                              std::shared_ptr<void> keepalive) {
    check_runtime_policy<A>(c);
    if constexpr (algo::AdaptiveAlgorithm<A>)
      throw Error(rank(), "adaptive policies cannot be persistent");
    else if constexpr (algo::RelayAlgorithm<A> && !RelayBackend<B, A>)
      throw Error(rank(), "algo::Adaptive (relay collectives) does not serve device buffers");
    else if constexpr (algo::RelayAlgorithm<A>)
      return init_relay(in_mode(c), algorithm, std::move(keepalive));
    else
      return init_policy(in_mode(c), call::erase(algorithm), std::move(keepalive));
  }

  /// algo::Auto's decision for `c`, for a caller that runs the call itself (libcclx-mpi, shim/):
  /// calls run(candidate, policy) with the candidate chosen and its policy (null and algo::Native
  /// for native), deciding and, for a blocking call, timing as run_call(c, policy).
  template <class Run>
  void with_auto_choice(const CollectiveCall& c, const algo::Auto& policy, bool blocking,
                        Run&& run);

  /// What algo::Auto runs for a call of `count` elements of T (counted as that call states it, e.g.
  /// one block for allgather) and why: the source, and the candidates with their measured or
  /// predicted times. Local: no communication (CCLX_LOG=tune prints the same at each new decision).
  /// alltoallv: two lines, the one-shot call's decision (the same for every size), then that of an
  /// alltoallv_init whose busiest rank moves `count` elements (the size such an init agrees on).
  template <Element T>
  std::string explain(sched::Collective coll, std::size_t count, int root = 0,
                      bool commutative = true, const algo::Auto& policy = {});

 private:
  // `c` in this communicator's mode (a type-erased call comes without it).
  CollectiveCall in_mode(const CollectiveCall& c) const {
    CollectiveCall m = c;
    m.reproducible = reproducible_;
    return m;
  }

  template <algo::Algorithm A>
  void check_runtime_policy(const CollectiveCall& c) const {
    if (!algo::serves<A>(c.collective))
      throw Error(rank(), "algorithm '" + std::string(A::name) + "' does not serve " +
                              std::string(sched::to_string(c.collective)));
  }

  using NoOp = detail::NoOp;

  // The count a call states: the descriptor's, from the buffer sizes; a v-collective's is the
  // total of Out's counts.
  template <class D>
  std::size_t count_of(const CollectiveCall& c) const {
    if constexpr (coll::variable_counts<D>)
      return detail::counts_total(c.blocks->out_counts);
    else
      return D::count(c.in_size, c.out_size, c.in_place, size(), rank() == c.root);
  }

  template <class T>
  static CollectiveCall base_call(sched::Collective coll) {
    CollectiveCall c;
    c.collective = coll;
    c.type = data_type_of<T>();
    c.kernel.elem_size = sizeof(T);
    return c;
  }

  template <class D, class T, class Op>
  CollectiveCall typed_call(const Op* op, int root) const {
    static_assert(D::reduces == !std::same_as<Op, NoOp>, "cclx: op given to the wrong collective");
    CollectiveCall c = base_call<T>(D::id);
    if constexpr (D::reduces) {
      c.kernel = detail::kernel_for<T>(*op);
      c.has_op = true;
    }
    c.root = D::rooted ? root : 0;
    return c;
  }

  // The one entry of every typed call (api/<name>.hpp): the call's form decides the path.
  friend struct api::Access;
  template <class Form, class D, class T, class Written, class Op, class A>
  api::result_t<Form> invoke(const api::Bound<D, T, Written, Op, A>& b) {
    const detail::BlockCounts* counts = b.counts ? &*b.counts : nullptr;
    if constexpr (std::same_as<Form, api::Blocking>)
      run<D>(make_call(b, b.op, counts), *b.algorithm);
    else
      return later_call<D, Form, Written>(
          b.op, *b.algorithm, counts,
          [&](const Op* o, const detail::BlockCounts* bc) { return make_call(b, o, bc); });
  }

  // The type-erased call of a bound one, with `op` and `counts` where they live for the call.
  template <class D, class T, class Written, class Op, class A>
  CollectiveCall make_call(const api::Bound<D, T, Written, Op, A>& b, const Op* op,
                           const detail::BlockCounts* counts) const {
    CollectiveCall c = typed_call<D, T>(op, b.root);
    c.in = b.in;
    c.out = b.out;
    c.in_place = b.in_place;
    c.in_size = b.in_size;
    c.out_size = b.out_size;
    c.blocks = counts;
    c.count = count_of<D>(c);
    c.reproducible = reproducible_;
    return c;
  }

  // The op (a user op's state) and the counts live as long as the request: the kernel and the
  // call point into them. A type per op only, not per call site: each is a shared_ptr control
  // block to compile.
  template <class Op>
  struct KeptArgs {
    std::optional<Op> op;
    std::optional<detail::OwnedBlockCounts> counts;
  };
  // `make(op, counts)` builds the call from the request's own copies of the op and the counts.
  template <class D, class Form, class Written, class Op, class A, class MakeCall>
  auto later_call(const Op* op, const A& algorithm, const detail::BlockCounts* counts,
                  MakeCall&& make) {
    static_assert(std::is_lvalue_reference_v<Written> || std::ranges::borrowed_range<Written>,
                  "cclx: a nonblocking or persistent call uses its buffers after it returns; "
                  "pass a container that outlives it (an lvalue) or a view such as std::span, "
                  "not a temporary");
    using Kept = KeptArgs<Op>;
    std::shared_ptr<Kept> keep;
    const Op* o = nullptr;
    const detail::BlockCounts* bc = nullptr;
    if (!std::same_as<Op, NoOp> || counts) {
      keep = std::make_shared<Kept>();
      if constexpr (!std::same_as<Op, NoOp>) o = &keep->op.emplace(*op);
      if (counts) bc = &keep->counts.emplace(*counts).view;
    }
    if constexpr (std::same_as<Form, api::Start>)
      return start<D>(make(o, bc), algorithm, std::move(keep));
    else
      return init<D>(make(o, bc), algorithm, std::move(keep));
  }

  // ---- The call pipeline (docs/architecture.md, "One call, file by file") ----
  // choose → check → plan (schedule on a miss) → execute. A fixed policy is its own choice and is
  // erased here (call::erase, call/policy.hpp); algo::Auto (communicator_auto.hpp) and the
  // adaptive policies (run_adaptive) choose, then hand their choice to the same stages. Every
  // stage after this point is compiled once, in lib/call/.

  // What the type system can tell about a call is checked here, at compile time.
  template <class D, class A>
  static constexpr void check_policy() {
    static_assert(algo::serves<A>(D::id),
                  "cclx: this algorithm does not serve this collective (see the policy's "
                  "`collectives` and the README's algorithm table)");
  }
  template <class D, class A>
  static constexpr void check_one_shot() {
    static_assert(!algo::RelayAlgorithm<A>,
                  "cclx: algo::Adaptive is persistent only: a rank's start() is its ready notice "
                  "and the request keeps the progress thread's relay state; use "
                  "comm.allreduce_init(buf, op, algo::Adaptive{}) (or reduce_init, bcast_init)");
  }

  // The typed calls (invoke()): compile-time checks, then the path of the policy.
  template <class D, algo::Algorithm A>
  void run(const CollectiveCall& c, const A& algorithm) {
    check_policy<D, A>();
    check_one_shot<D, A>();
    run(c, algorithm);
  }
  template <class D, algo::Algorithm A>
  Request start(const CollectiveCall& c, const A& algorithm, std::shared_ptr<void> keepalive) {
    check_policy<D, A>();
    check_one_shot<D, A>();
    static_assert(!algo::AdaptiveAlgorithm<A>,
                  "cclx: adaptive policies (StragglerAware) serve blocking calls only: they "
                  "choose from the arrival times of the previous blocking calls and learn from "
                  "each call's completion; use its fallback or StragglAR for nonblocking calls");
    return start(c, algorithm, std::move(keepalive));
  }
  template <class D, algo::Algorithm A>
  PersistentRequest init(const CollectiveCall& c, const A& algorithm,
                         std::shared_ptr<void> keepalive) {
    check_policy<D, A>();
    static_assert(!algo::RelayAlgorithm<A> || RelayBackend<B, A>,
                  "cclx: algo::Adaptive (relay collectives) does not serve device buffers "
                  "(CudaBackend; docs/cuda.md): it needs a RelayBackend (MpiBackend, with "
                  "cclx/relay/adaptive.hpp)");
    static_assert(!algo::AdaptiveAlgorithm<A>,
                  "cclx: adaptive policies (StragglerAware) cannot be persistent: they choose an "
                  "algorithm per call from the arrival times of earlier calls, while a persistent "
                  "request fixes its algorithm at init; use its fallback or StragglAR");
    if constexpr (algo::AutoAlgorithm<A>)
      return init_auto<D>(c, algorithm, std::move(keepalive));
    else if constexpr (algo::AdaptiveAlgorithm<A> ||
                       (algo::RelayAlgorithm<A> && !RelayBackend<B, A>))
      return {};  // refused above; nothing more to report
    else if constexpr (algo::RelayAlgorithm<A>)
      return init_relay(c, algorithm, std::move(keepalive));
    else
      return init_policy(c, call::erase(algorithm), std::move(keepalive));
  }

  // Every policy's path, typed or not (run_call()): the choosers choose, the rest is erased.
  template <algo::Algorithm A>
  void run(const CollectiveCall& c, const A& algorithm) {
    if constexpr (algo::AutoAlgorithm<A>)
      run_auto(c, algorithm);
    else if constexpr (algo::AdaptiveAlgorithm<A>)
      run_adaptive(c, algorithm);
    else if constexpr (algo::RelayAlgorithm<A>)
      throw Error(rank(), "algo::Adaptive is persistent only (use the *_init call)");
    else if constexpr (std::same_as<A, algo::Native>)
      run_native(c);  // the same stages, known at compile time: MPI's per-call cost is ~0.3 us
    else
      run_scheduled(c, call::erase(algorithm));
  }
  template <algo::Algorithm A>
  Request start(const CollectiveCall& c, const A& algorithm, std::shared_ptr<void> keepalive) {
    if constexpr (algo::AutoAlgorithm<A>)
      return start_auto(c, algorithm, std::move(keepalive));
    else if constexpr (algo::AdaptiveAlgorithm<A>)
      throw Error(rank(), "adaptive policies serve blocking calls only");
    else if constexpr (algo::RelayAlgorithm<A>)
      throw Error(rank(), "algo::Adaptive is persistent only (use the *_init call)");
    else
      return start_policy(c, call::erase(algorithm), std::move(keepalive));
  }

  // The stages of a chosen policy, per form.
  void run_native(const CollectiveCall& c) {
    check(c, call::erase(algo::Native{}));
    b_.native(c);  // MPI matches its own collectives: no channel needed
  }
  void run_policy(const CollectiveCall& c, const call::Policy& p) {
    if (p.native()) return run_native(c);
    run_scheduled(c, p);
  }
  void run_scheduled(const CollectiveCall& c, const call::Policy& p) {
    check(c, p);
    engine::Buffers buffers;
    call::Plans::Entry& e = plans_.plan(c, p, site(p), buffers);
    call::execute(e, buffers, c.kernel, engine_for_call(), &end_call, &b_);
  }
  Request start_policy(const CollectiveCall& c, const call::Policy& p,
                       std::shared_ptr<void> keepalive) {
    check(c, p);
    if (p.native()) return b_.native_start(c, std::move(keepalive));
    engine::Buffers buffers;
    call::Plans::Entry& e = plans_.plan(c, p, site(p), buffers);
    return b_.execution_request(call::start(e, buffers, c.kernel, engine_for_call()),
                                std::move(keepalive));
  }
  PersistentRequest init_policy(const CollectiveCall& c, const call::Policy& p,
                                std::shared_ptr<void> keepalive) {
    check(c, p, true);
    if (p.native()) return PersistentRequest(b_.native_init(c, std::move(keepalive)));
    engine::Buffers buffers;
    std::shared_ptr<const engine::Plan> plan = plans_.plan(c, p, site(p), buffers).plan;
    return PersistentRequest(
        b_.persistent_execution(std::move(plan), buffers, c.kernel, std::move(keepalive)));
  }
  // algo::Adaptive: relay_init() (cclx/relay/adaptive.hpp, found by argument-dependent lookup)
  // synthesizes the trees once (collective, like every init); the relay runtime
  // (lib/relay/runtime.cpp) makes the schedules of each active set when it occurs.
  template <algo::RelayAlgorithm A>
  requires RelayBackend<B, A> PersistentRequest init_relay(const CollectiveCall& c,
                                                           const A& algorithm,
                                                           std::shared_ptr<void> keepalive) {
    check(c, call::erase(algorithm), true);
    return PersistentRequest(relay_init(b_, c, algorithm, std::move(keepalive)));
  }

  // The check stage (call/check.hpp), after the backend's begin_call hook; with validation
  // (CCLX_VALIDATE) the agreement across ranks, which names every rank's error. The common
  // allreduce leaves here, inline; the rest goes on out of line.
  void check(const CollectiveCall& c, const call::Policy& p, bool persistent = false) {
    b_.begin_call(c);
    if (!b_.validation() && call::plainly_valid(c)) return;
    check_further(c, p, persistent);
  }
  [[gnu::noinline]] void check_further(const CollectiveCall& c, const call::Policy& p,
                                       bool persistent) {
    if (!b_.validation()) return call::check(c, p, rank(), size());
    const call::Validation v =
        call::validation(c, p, call::request(c, rank(), size(), hosts_for(p)), rank(), size());
    b_.agree(c, typename B::Agreement{p.name(), v.params, v.local_error, persistent});
  }

  // The host map where p's schedule depends on it (its first use is collective, as the call is).
  std::span<const int> hosts_for(const call::Policy& p) const {
    return p.type->uses_hosts ? host_ids() : std::span<const int>{};
  }
  call::Site site(const call::Policy& p) const {
    return {rank(), size(), b_.handshake_bytes(), hosts_for(p)};
  }
  // The engine of a scheduled call started now: its channel, wait policy and deadline.
  call::Engine engine_for_call() {
    call::Engine x;
    x.transport = &b_.transport();
    x.scratch = &b_.scratch();
    x.channel = b_.next_channel();
    x.options.wait = b_.wait_policy();
    x.options.timeout_s = b_.timeout();
    return x;
  }
  static void end_call(const void* backend) { static_cast<const B*>(backend)->end_call(); }

  // Runs the adaptive policy's choice, then shares every rank's arrival and completion time (one
  // small allgather) so that all ranks update the policy's state identically.
  template <algo::AdaptiveAlgorithm A>
  void run_adaptive(const CollectiveCall& c, const A& algorithm) {
    const double arrived = b_.clock();
    bool fallback = false;
    algorithm.dispatch([&](const auto& choice) {
      fallback = std::same_as<std::decay_t<decltype(choice)>, decltype(algorithm.fallback)>;
      run_policy(c, call::erase(choice));
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

  // algo::Auto's choice (detail/communicator_auto.hpp), handed to run_policy() or start_policy()
  // (or init_policy()) with the candidate erased.
  tune::Workload auto_workload(const CollectiveCall& c);
  template <class T>
  T max_over_ranks(T value);
  template <class Run>
  void auto_miss(const CollectiveCall& c, const algo::Auto& policy, bool blocking,
                 const detail::AutoKey& key, Run&& run);
  template <algo::AutoAlgorithm A>
  void run_auto(const CollectiveCall& c, const A& policy);
  template <algo::AutoAlgorithm A>
  Request start_auto(const CollectiveCall& c, const A& policy, std::shared_ptr<void> keepalive);
  template <class D, algo::AutoAlgorithm A>
  PersistentRequest init_auto(const CollectiveCall& c, const A& policy,
                              std::shared_ptr<void> keepalive);
  template <algo::AutoAlgorithm A>
  tune::Candidate untimed_choice(const CollectiveCall& c, const tune::Workload& w, const A& policy);
  B b_;
  call::Plans plans_;         // one-shot scheduled calls (call/plan.hpp)
  detail::AutoContext auto_;  // algo::Auto's state on this communicator
  bool reproducible_;         // set_reproducible()
};

/// `cclx::Communicator comm(c);` makes an MpiBackend communicator.
Communicator(MPI_Comm)->Communicator<MpiBackend>;
/// `cclx::Communicator comm(c, own);` makes an MpiBackend communicator.
Communicator(MPI_Comm, Ownership)->Communicator<MpiBackend>;

}  // namespace cclx

#include "cclx/detail/communicator_auto.hpp"
