// Persistent requests of scheduled algorithms: the plan's execution, restarted by every start(),
// on the backend's communicator for persistent requests under a tag of its own (native ones:
// mpi_native.cpp).
//
// Isolation: one-shot calls run on the private communicator with a tag per call that wraps at
// MPI_TAG_UB, so a request living arbitrarily long could not keep a tag there. Persistent
// requests run on another duplicate (made at the first one), where a request's tag is one that
// no live request holds on any rank: at init every rank contributes which tags of a window it
// still holds, one bitwise-or allreduce of 64 bits, and the first tag free everywhere is taken.
// A tag held nowhere has no message in flight (a rank gives it up only once its request is
// inactive, i.e. all its transfers completed on every rank, or never started), so a request's
// messages can never match another request's, however long it lives. A request abandoned after
// an error keeps its tag for good (peers may still send under it).
#include <climits>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "cclx/backend/mpi.hpp"
#include "cclx/backend/mpi_transport.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "mpi_pending.hpp"
#include "mpi_state.hpp"

namespace cclx {

namespace {

using detail::mpi_check;

// The persistent communicator (made at the first call, collectively) and a tag free on every
// rank, now held by this rank.
int reserve_tag(MpiBackend::State& s) {
  if (!s.persistent) {
    s.persistent_comm = s.dup_private();
    s.persistent = std::make_unique<MpiTransport>(s.persistent_comm, s.roll.get());
  }
  const auto tags = static_cast<std::uint64_t>(s.persistent->tag_ub()) + 1;
  for (std::uint64_t searched = 0; searched < tags; searched += 64) {
    const std::uint64_t base = s.persistent_next % tags;
    std::uint64_t mine = 0;
    {
      const std::lock_guard lock(s.persistent_mu);
      for (unsigned j = 0; j < 64; ++j)
        if (s.persistent_live.count(static_cast<int>((base + j) % tags))) mine |= 1ull << j;
    }
    // Nonblocking, polled with the wait policy and against the deadline. Its buffers must outlive
    // an allreduce abandoned at the deadline: heap, leaked then.
    auto bufs = std::make_unique<std::uint64_t[]>(2);
    bufs[0] = mine;
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(MPI_Iallreduce(&bufs[0], &bufs[1], 1, MPI_UINT64_T, MPI_BOR, s.persistent_comm, &req),
              s.rank, "persistent init: MPI_Iallreduce");
    try {
      s.finish(req, false, [] { return std::string("persistent init: tag agreement"); });
    } catch (const Error&) {
      s.persistent_abandoned = true;
      (void)bufs.release();
      throw;
    }
    const std::uint64_t held = bufs[1];
    if (held != ~std::uint64_t{0}) {
      unsigned j = 0;
      while (held & (1ull << j)) ++j;
      const auto tag = static_cast<int>((base + j) % tags);
      s.persistent_next = static_cast<unsigned>((base + j + 1) % tags);
      const std::lock_guard lock(s.persistent_mu);
      s.persistent_live.insert(tag);
      return tag;
    }
    s.persistent_next = static_cast<unsigned>((base + 64) % tags);
  }
  throw Error(s.rank, "persistent init: every tag (MPI_TAG_UB " +
                          std::to_string(s.persistent->tag_ub()) +
                          ") is held by a live persistent request");
}

class ScheduledPersistent final : public detail::PersistentOp {
 public:
  ScheduledPersistent(std::shared_ptr<MpiBackend::State> state,
                      std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
                      const ReduceKernel& kernel, std::shared_ptr<void> keepalive)
      : s_(std::move(state)),
        keepalive_(std::move(keepalive)),
        buffers_(buffers),
        kernel_(kernel),
        tag_(reserve_tag(*s_)) {
    try {
      exec_ = std::make_unique<engine::Execution>(std::move(plan), *s_->persistent, s_->scratch);
    } catch (...) {
      release();
      throw;
    }
  }

  ~ScheduledPersistent() override {
    exec_.reset();  // cancels what an abandoned run still has posted
    if (abandoned_) {
      // Peers may still send under the tag: it stays held, and the communicator is not freed
      // (freed, its context id could go to a new communicator that would then see stale data).
      s_->persistent_abandoned = true;
      return;
    }
    release();
  }

  void start() override {
    s_->roll->calls.enter(exec_->plan().schedule->collective);
    engine::ExecOptions o;
    o.wait = s_->wait;
    o.timeout_s = s_->timeout_s;
    exec_->start(buffers_, kernel_, static_cast<unsigned>(tag_), o);
  }
  bool test() override {
    s_->roll->serve_sometimes();  // a caller polling test() answers roll calls as wait() does
    return exec_->test();
  }
  void wait() override { exec_->wait(); }
  void abandon() noexcept override { abandoned_ = true; }
  [[nodiscard]] std::string name() const override { return exec_->name(); }
  [[nodiscard]] int rank() const override { return s_->rank; }

 private:
  void release() noexcept {
    const std::lock_guard lock(s_->persistent_mu);
    s_->persistent_live.erase(tag_);
  }

  // Declared first, so released last: the scratch lease returns to its pool, the transport lives.
  std::shared_ptr<MpiBackend::State> s_;
  std::shared_ptr<void> keepalive_;
  engine::Buffers buffers_;
  ReduceKernel kernel_;
  int tag_;
  std::unique_ptr<engine::Execution> exec_;
  bool abandoned_ = false;
};

}  // namespace

int detail::reserve_persistent_tag(MpiBackend::State& s) {
  return reserve_tag(s);
}

void detail::release_persistent_tag(MpiBackend::State& s, int tag) noexcept {
  const std::lock_guard lock(s.persistent_mu);
  s.persistent_live.erase(tag);
}

std::unique_ptr<detail::PersistentOp> MpiBackend::persistent_execution(
    std::shared_ptr<const engine::Plan> plan, const engine::Buffers& buffers,
    const ReduceKernel& kernel, std::shared_ptr<void> keepalive) {
  return std::make_unique<ScheduledPersistent>(s_, std::move(plan), buffers, kernel,
                                               std::move(keepalive));
}

}  // namespace cclx
