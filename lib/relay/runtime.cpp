// Relay collectives (algo::Adaptive): the runtime of docs/algorithms/adaptive.md ("Runtime").
//
// Per backend, at the first adaptive init (collective): a control communicator (a duplicate of
// the private one; control messages never share it with data) and a progress thread, which
//   - receives every control message of this rank (MPI_Improbe + MPI_Mrecv, one tag),
//   - on rank 0, coordinates: collects ready notices, asks the wait-or-proceed policy
//     (wait_or_proceed.hpp: ski rental, the last-rank rule, the prediction of late ranks) when to
//     proceed and with which plan, tells every rank the active set and plan, and declares
//     missing ranks failed after the fault time-out,
//   - runs this rank's phase 1 as a relay (scratch only) when the rank is not active in a call.
// Protocol per request and call ("epoch": the k-th start() of the request, the same on every
// rank): start() sends READY(request, epoch) to rank 0; rank 0 sends DECISION(request, epoch,
// active flags) to every rank once, and FAULT(request, epoch, missing flags, text) if some rank
// stays missing past the time-out. Phase 1 and phase 2 run under two tags of their own on the
// persistent requests' communicator (mpi_persistent.cpp), so they never match other calls.
// The thread stops and is joined when the backend dies, and at MPI_Finalize (an attribute on
// MPI_COMM_SELF, whose delete callback MPI runs first thing in MPI_Finalize).
#include <mpi.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "../backend/mpi_state.hpp"
#include "cclx/backend/mpi.hpp"
#include "cclx/call/check.hpp"
#include "cclx/call/plan.hpp"
#include "cclx/call/schedule.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/late_prediction.hpp"
#include "cclx/relay/model.hpp"
#include "cclx/settings.hpp"
#include "wait_or_proceed.hpp"

namespace cclx {

namespace detail {

namespace {

using Clock = std::chrono::steady_clock;

enum class Msg : std::int32_t { ready = 1, decision = 2, fault = 3 };
// Every control message: this header, then (decision, fault) one byte per rank, then (decision)
// the plan's index (RelayModel::phases) or (fault) the message text.
struct Header {
  std::int32_t kind, request, epoch, rank;
};
constexpr int kControlTag = 0;

std::atomic<std::uint64_t> partial_decisions{0}, predicted_decisions{0}, last_rank_decisions{0},
    relays_run{0};

std::string thread_level_name(int level) {
  switch (level) {
    case MPI_THREAD_SINGLE:
      return "MPI_THREAD_SINGLE";
    case MPI_THREAD_FUNNELED:
      return "MPI_THREAD_FUNNELED";
    case MPI_THREAD_SERIALIZED:
      return "MPI_THREAD_SERIALIZED";
    default:
      return "MPI_THREAD_MULTIPLE";
  }
}

}  // namespace

RelayCounters relay_counters() {
  return {partial_decisions.load(), predicted_decisions.load(), last_rank_decisions.load(),
          relays_run.load()};
}

class RelayOp;

// The control communicator, the progress thread and the registry of this backend's requests.
class RelayHub {
 public:
  explicit RelayHub(MpiBackend::State& s);
  RelayHub(const RelayHub&) = delete;
  RelayHub& operator=(const RelayHub&) = delete;
  ~RelayHub();

  // Stops and joins the progress thread (idempotent; also called at MPI_Finalize).
  void stop() noexcept;
  // Registers a request; returns its id (init order: the same on every rank). Caller holds mu.
  int add(RelayOp* op) {
    ops_[next_id_] = op;
    return next_id_++;
  }
  void remove(int id) { ops_.erase(id); }  // caller holds mu
  // Sends a control message (nonblocking; the hub keeps the buffer). Caller holds mu.
  void post(int dest, Msg kind, int request, int epoch, const std::vector<std::uint8_t>& flags = {},
            const std::string& text = {});
  void mark_abandoned() { abandoned_ = true; }
  [[nodiscard]] bool running() const {
    return !stop_.load();
  }  // a late peer may still send: keep the comm
  [[nodiscard]] double now() const {
    return std::chrono::duration<double>(Clock::now() - t0_).count();
  }

  std::mutex mu;  // guards the hub and the shared fields of every RelayOp
  // Signalled by the progress thread after it made progress (a decision, a fault, a relay that
  // ended): a user thread that waits for one of those sleeps on it instead of spinning on `mu`,
  // which would starve the progress thread of the mutex it needs to deliver them.
  std::condition_variable progressed;

 private:
  void loop() noexcept;
  bool poll_control();
  void handle(const std::vector<std::byte>& m);
  bool reap_sends();

  MpiBackend::State& s_;
  MPI_Comm ctrl_ = MPI_COMM_NULL;
  Clock::time_point t0_ = Clock::now();
  std::map<int, RelayOp*> ops_;
  int next_id_ = 0;
  struct Outgoing {
    MPI_Request req = MPI_REQUEST_NULL;
    std::vector<std::byte> buf;
  };
  std::deque<std::unique_ptr<Outgoing>> sends_;
  bool abandoned_ = false;
  std::atomic<bool> stop_{false};
  std::mutex join_mu_;
  std::thread thread_;
};

namespace {

// Hubs alive in this process, stopped by MPI_Finalize through an attribute of MPI_COMM_SELF.
std::mutex hubs_mu;
std::set<RelayHub*> hubs;
int finalize_keyval = MPI_KEYVAL_INVALID;

int stop_hubs_at_finalize(MPI_Comm, int, void*, void*) {
  const std::lock_guard lock(hubs_mu);
  for (RelayHub* h : hubs) h->stop();
  return MPI_SUCCESS;
}

void register_hub(RelayHub* h, int rank) {
  const std::lock_guard lock(hubs_mu);
  if (finalize_keyval == MPI_KEYVAL_INVALID) {
    mpi_check(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, &stop_hubs_at_finalize,
                                     &finalize_keyval, nullptr),
              rank, "MPI_Comm_create_keyval");
    mpi_check(MPI_Comm_set_attr(MPI_COMM_SELF, finalize_keyval, nullptr), rank,
              "MPI_Comm_set_attr");
  }
  hubs.insert(h);
}

void unregister_hub(RelayHub* h) {
  const std::lock_guard lock(hubs_mu);
  hubs.erase(h);
}

}  // namespace

// One adaptive persistent request on one rank.
class RelayOp final : public PersistentOp {
 public:
  RelayOp(std::shared_ptr<MpiBackend::State> s, std::shared_ptr<const RelayModel> model,
          const CollectiveCall& c, const RelayOptions& o, std::shared_ptr<void> keepalive)
      : s_(std::move(s)),
        hub_(s_->relay.get()),
        model_(std::move(model)),
        keepalive_(std::move(keepalive)),
        kernel_(c.kernel),
        options_(o),
        n_(s_->size),
        rank_(s_->rank),
        name_(std::string(sched::to_string(c.collective)) + " (adaptive)"),
        policy_(model_, o, n_, name_) {
    const std::vector<bool> all(static_cast<std::size_t>(n_), true);
    const RelayModel::Phases p = model_->phases(all, rank_, 0);
    call::check_schedule(c, *p.phase1, rank_);  // a non-commutative op is refused here
    buffers_ = call::engine_buffers(c, *p.phase1, rank_);
    {
      const std::lock_guard lock(hub_->mu);
      id_ = hub_->add(this);
    }
    // Registered before the tag agreement below: once any rank has returned from init, every
    // rank can route this request's control messages.
    try {
      tag1_ = reserve_persistent_tag(*s_);
      tag2_ = reserve_persistent_tag(*s_);
    } catch (...) {
      const std::lock_guard lock(hub_->mu);
      hub_->remove(id_);
      if (tag1_ >= 0) release_persistent_tag(*s_, tag1_);
      throw;
    }
  }

  ~RelayOp() override {
    // Rank 0: the ready notices of late ranks may still be in flight (every rank has sent its
    // own for every call it started; phase 2 does not wait for them): take them before the
    // request goes, so that no control message stays unreceived. Bounded: an open call is
    // declared failed after the fault time-out.
    while (rank_ == 0 && !abandoned_ && hub_->running()) {
      {
        const std::lock_guard lock(hub_->mu);
        if (std::all_of(rounds_.begin(), rounds_.end(),
                        [](const auto& r) { return r.second.faulted; }))
          break;
      }
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    const std::lock_guard lock(hub_->mu);
    hub_->remove(id_);
    cases_.clear();  // cancels what an abandoned run still has posted
    if (abandoned_) {
      s_->persistent_abandoned = true;
      hub_->mark_abandoned();
      return;
    }
    release_persistent_tag(*s_, tag1_);
    release_persistent_tag(*s_, tag2_);
  }

  void start() override {
    const std::lock_guard lock(hub_->mu);
    epoch_ = started_++;
    stage_ = Stage::deciding;
    hub_->post(0, Msg::ready, id_, epoch_);
  }
  bool test() override { return advance(); }
  void wait() override {
    engine::Backoff backoff(s_->wait);
    const double timeout = s_->timeout_s;
    const Clock::time_point t0 = Clock::now();
    std::uint32_t idle = 0;
    for (;;) {
      const Stage before = stage_;
      if (advance()) return;
      if (stage_ != before) {
        backoff.reset();
        continue;
      }
      if (stage_ == Stage::deciding || stage_ == Stage::relaying) {
        // Only the progress thread moves these stages on (rank 0's decision, this rank's relay).
        std::unique_lock lock(hub_->mu);
        hub_->progressed.wait_for(lock, std::chrono::milliseconds(1),
                                  [&] { return progress_thread_moved_on(); });
        idle = 127;  // check the deadline below: this wait took up to a millisecond
      } else {
        backoff.idle();
      }
      if (timeout > 0 && (++idle & 127u) == 0) {
        const double waited = std::chrono::duration<double>(Clock::now() - t0).count();
        if (waited >= timeout) throw Error(rank_, timeout_message(waited, timeout));
      }
    }
  }
  void abandon() noexcept override { abandoned_ = true; }
  [[nodiscard]] std::string name() const override { return name_; }
  [[nodiscard]] int rank() const override { return rank_; }

  // ---- called by the progress thread, with the hub's mutex held ----
  void on_ready(int epoch, int from, double t) {
    Round& r = rounds_[epoch];
    if (r.ready_at.empty()) r.ready_at.assign(static_cast<std::size_t>(n_), -1.0);
    double& at = r.ready_at[static_cast<std::size_t>(from)];
    if (at >= 0) return;
    at = t;
    if (r.nready++ == 0) r.first = t;
    r.last = t;
  }
  void on_decision(int epoch, std::vector<bool> active, int plan) {
    decisions_[epoch] = std::move(active);
    plans_[epoch] = plan;
  }
  void on_fault(int epoch, std::string text) {
    faults_[epoch] = std::move(text);
    fault_epoch_.store(std::max(fault_epoch_.load(), epoch));
  }
  // Rank 0: the decision (wait_or_proceed.hpp) and the fault time-out of every open call, posted
  // to every rank. True on progress.
  bool coordinate(double now) {
    bool progress = false;
    for (auto it = rounds_.begin(); it != rounds_.end();) {
      Round& r = it->second;
      const int epoch = it->first;
      if (r.faulted) {  // kept so that a late notice does not open the call again
        ++it;
        continue;
      }
      if (!r.decided) {
        const WaitOrProceed::Decision d = policy_.decide(r, now);
        if (d.plan >= 0) {
          decide(epoch, r, d.plan);
          if (d.predicted) predicted_decisions.fetch_add(1);
          if (d.last_rank) last_rank_decisions.fetch_add(1);
          progress = true;
        }
      }
      if (r.decided && r.nready == n_) {
        policy_.learn(r);
        it = rounds_.erase(it);
        continue;
      }
      // Undecided calls too: a predicted cost beyond the time-out must not hide a missing rank.
      const double limit = policy_.fault_limit(r);
      if (now - r.first >= limit) {
        declare_fault(epoch, r, limit);
        progress = true;
      }
      ++it;
    }
    return progress;
  }
  // Starts or advances this rank's relay (phase 1 while inactive). True on progress.
  bool drive_relay() {
    if (relay_ == Relay::running) {
      if (fault_epoch_.load() >= relay_epoch_) {
        relay_ = Relay::failed;
        relay_error_ = faults_[relay_epoch_];
        return true;
      }
      try {
        if (!relay_case_->exec1->test()) return false;
        relay_ = Relay::done;
      } catch (const Error& e) {
        relay_ = Relay::failed;
        relay_error_ = "relay of phase 1: " + e.detail();
      }
      return true;
    }
    // The next call's relay may start once this rank has completed the previous call (its
    // executions and scratch are free then).
    const int epoch = completed_;
    if (relay_epoch_ >= epoch || abandoned_) return false;
    const auto d = decisions_.find(epoch);
    if (d == decisions_.end() || d->second[static_cast<std::size_t>(rank_)]) return false;
    if (fault_epoch_.load() >= epoch) return false;
    relay_epoch_ = epoch;
    try {
      relay_case_ = &case_of(d->second, plans_[epoch]);
      relay_case_->exec1->start(buffers_with_scratch(*relay_case_), kernel_,
                                static_cast<unsigned>(tag1_), exec_options());
      relay_ = Relay::running;
      relays_run.fetch_add(1);
    } catch (const Error& e) {
      relay_ = Relay::failed;
      relay_error_ = "relay of phase 1: " + e.detail();
    }
    return true;
  }

 private:
  enum class Stage : std::uint8_t { idle, deciding, relaying, phase1, phase2 };
  enum class Relay : std::uint8_t { idle, running, done, failed };
  struct Case {
    std::unique_ptr<engine::Execution> exec1, exec2;
    std::size_t scratch_bytes = 0;
  };
  engine::ExecOptions exec_options() const {
    engine::ExecOptions o;
    o.wait = s_->wait;
    o.handshake_bytes = s_->handshake_bytes;
    return o;
  }

  // The plans and executions of an active set and plan, made when they first occur. Caller holds
  // mu.
  Case& case_of(const std::vector<bool>& active, int plan) {
    auto it = cases_.find({active, plan});
    if (it != cases_.end()) return *it->second;
    const RelayModel::Phases p = model_->phases(active, rank_, plan);
    engine::ExecOptions o = exec_options();
    auto c = std::make_unique<Case>();
    auto plan1 = engine::make_plan(p.phase1, rank_, n_, buffers_, kernel_.elem_size, o);
    auto plan2 = engine::make_plan(p.phase2, rank_, n_, buffers_, kernel_.elem_size, o);
    c->scratch_bytes = std::max(plan1->scratch_bytes, plan2->scratch_bytes);
    c->exec1 = std::make_unique<engine::Execution>(std::move(plan1), *s_->persistent, s_->scratch);
    c->exec2 = std::make_unique<engine::Execution>(std::move(plan2), *s_->persistent, s_->scratch);
    return *cases_.emplace(std::make_pair(active, plan), std::move(c)).first->second;
  }
  // The bound buffers with the request's scratch, grown for `c` (only between calls: nothing of
  // this request runs then). Caller holds mu.
  engine::Buffers buffers_with_scratch(const Case& c) {
    if (c.scratch_bytes > scratch_bytes_) {
      scratch_ = s_->scratch.acquire(c.scratch_bytes);
      scratch_bytes_ = c.scratch_bytes;
    }
    engine::Buffers b = buffers_;
    b.scratch = scratch_.data();
    return b;
  }

  // The state machine of one call on the user's thread; true once complete.
  bool advance() {
    if (stage_ == Stage::idle) return true;
    if (fault_epoch_.load() >= epoch_) {
      const std::lock_guard lock(hub_->mu);
      if (const auto f = faults_.find(epoch_); f != faults_.end()) throw Error(rank_, f->second);
    }
    switch (stage_) {
      case Stage::deciding: {
        const std::lock_guard lock(hub_->mu);
        const auto d = decisions_.find(epoch_);
        if (d == decisions_.end()) return false;
        if (!d->second[static_cast<std::size_t>(rank_)]) {
          stage_ = Stage::relaying;  // the progress thread runs phase 1
          return false;
        }
        case_ = &case_of(d->second, plans_[epoch_]);
        case_->exec1->start(buffers_with_scratch(*case_), kernel_, static_cast<unsigned>(tag1_),
                            exec_options());
        stage_ = Stage::phase1;
        return false;
      }
      case Stage::relaying: {
        const std::lock_guard lock(hub_->mu);
        if (relay_epoch_ != epoch_ || relay_ == Relay::running) return false;
        if (relay_ == Relay::failed) throw Error(rank_, name_ + ": " + relay_error_);
        if (relay_ != Relay::done) return false;
        case_ = relay_case_;
        relay_ = Relay::idle;
        start_phase2();
        return false;
      }
      case Stage::phase1:
        if (!case_->exec1->test()) return false;
        start_phase2();
        return false;
      case Stage::phase2: {
        if (!case_->exec2->test()) return false;
        const std::lock_guard lock(hub_->mu);
        decisions_.erase(epoch_);
        plans_.erase(epoch_);
        ++completed_;
        stage_ = Stage::idle;
        return true;
      }
      case Stage::idle:
        break;
    }
    return true;
  }
  // Whether what the user thread waits for in the deciding or relaying stage has happened (the
  // conditions advance() acts on). Caller holds mu.
  [[nodiscard]] bool progress_thread_moved_on() const {
    if (fault_epoch_.load() >= epoch_) return true;
    if (stage_ == Stage::deciding) return decisions_.count(epoch_) != 0;
    return relay_epoch_ == epoch_ && (relay_ == Relay::done || relay_ == Relay::failed);
  }
  void start_phase2() {
    engine::Buffers b = buffers_;
    b.scratch = scratch_.data();
    case_->exec2->start(b, kernel_, static_cast<unsigned>(tag2_), exec_options());
    stage_ = Stage::phase2;
  }

  std::string timeout_message(double waited, double timeout) {
    const std::string after = " after " + engine::format_seconds(waited) + " (timeout " +
                              engine::format_seconds(timeout) + ")";
    switch (stage_) {
      case Stage::deciding:
        return name_ + ": no decision from the coordinator (rank 0)" + after;
      case Stage::relaying:
        return name_ + ": this rank's relay of phase 1 did not finish" + after;
      case Stage::phase1:
        return "phase 1: " + case_->exec1->timeout_message(waited);
      default:
        return "phase 2: " + case_->exec2->timeout_message(waited);
    }
  }

  // ---- rank 0 ----
  // Posts one control message to every rank. A rank that cannot be reached (it died: the send to
  // it fails) must keep neither the others from theirs nor the caller from recording that it was
  // posted: the first failure is rethrown after the last post, for the progress thread to report.
  void post_all(Msg kind, int epoch, const std::vector<std::uint8_t>& flags,
                const std::string& text = {}) {
    std::exception_ptr failed;
    for (int q = 0; q < n_; ++q) {
      try {
        hub_->post(q, kind, id_, epoch, flags, text);
      } catch (...) {
        if (!failed) failed = std::current_exception();
      }
    }
    if (failed) std::rethrow_exception(failed);
  }
  // DECISION: the active flags, then the index of the plan.
  void decide(int epoch, Round& r, int plan) {
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(n_) + 1);
    for (int q = 0; q < n_; ++q) flags[static_cast<std::size_t>(q)] = r.ready_at[q] >= 0 ? 1 : 0;
    flags.back() = static_cast<std::uint8_t>(plan);
    r.decided = true;
    if (r.nready < n_) partial_decisions.fetch_add(1);
    post_all(Msg::decision, epoch, flags);
  }
  void declare_fault(int epoch, Round& r, double limit) {
    std::vector<std::uint8_t> flags(static_cast<std::size_t>(n_));
    std::vector<int> missing;
    for (int q = 0; q < n_; ++q)
      if (r.ready_at[static_cast<std::size_t>(q)] < 0) {
        flags[static_cast<std::size_t>(q)] = 1;
        missing.push_back(q);
      }
    const std::string text = name_ + ": " + rank_list(missing) +
                             " did not start within the fault time-out of " +
                             engine::format_seconds(limit) + " after the first rank was ready";
    r.faulted = true;
    post_all(Msg::fault, epoch, flags, text);
  }

  std::shared_ptr<MpiBackend::State> s_;  // first: released last
  RelayHub* hub_;
  std::shared_ptr<const RelayModel> model_;
  std::shared_ptr<void> keepalive_;
  ReduceKernel kernel_;
  RelayOptions options_;
  int n_, rank_;
  std::string name_;
  engine::Buffers buffers_;
  int id_ = -1, tag1_ = -1, tag2_ = -1;
  std::atomic<bool> abandoned_{false};  // set by the user's thread, read by the progress thread

  // Guarded by the hub's mutex.
  int started_ = 0, completed_ = 0;
  std::map<int, std::vector<bool>> decisions_;  // by epoch, until the call completes here
  std::map<int, int> plans_;                    // the decision's plan index, by epoch
  std::map<int, std::string> faults_;
  std::atomic<int> fault_epoch_{-1};  // the latest faulted epoch (read without the mutex)
  std::map<std::pair<std::vector<bool>, int>, std::unique_ptr<Case>> cases_;
  engine::ScratchPool::Lease scratch_;
  std::size_t scratch_bytes_ = 0;
  int relay_epoch_ = -1;
  Relay relay_ = Relay::idle;
  Case* relay_case_ = nullptr;
  std::string relay_error_;
  // Rank 0's coordination.
  std::map<int, Round> rounds_;
  WaitOrProceed policy_;

  // The user's thread only.
  int epoch_ = -1;
  Stage stage_ = Stage::idle;
  Case* case_ = nullptr;
};

RelayHub::RelayHub(MpiBackend::State& s) : s_(s) {
  ctrl_ = s.dup_private();
  register_hub(this, s.rank);
  thread_ = std::thread([this] { loop(); });
}

RelayHub::~RelayHub() {
  unregister_hub(this);
  stop();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized || abandoned_) return;
  for (auto& o : sends_) {  // to ranks that never took them (a failed call)
    MPI_Cancel(&o->req);
    MPI_Request_free(&o->req);
  }
  MPI_Comm_free(&ctrl_);
}

void RelayHub::stop() noexcept {
  const std::lock_guard lock(join_mu_);
  stop_.store(true);
  if (thread_.joinable()) thread_.join();
}

void RelayHub::post(int dest, Msg kind, int request, int epoch,
                    const std::vector<std::uint8_t>& flags, const std::string& text) {
  auto o = std::make_unique<Outgoing>();
  const Header h{static_cast<std::int32_t>(kind), request, epoch, s_.rank};
  o->buf.resize(sizeof h + flags.size() + text.size());
  std::memcpy(o->buf.data(), &h, sizeof h);
  if (!flags.empty()) std::memcpy(o->buf.data() + sizeof h, flags.data(), flags.size());
  if (!text.empty()) std::memcpy(o->buf.data() + sizeof h + flags.size(), text.data(), text.size());
  mpi_check(MPI_Isend(o->buf.data(), static_cast<int>(o->buf.size()), MPI_BYTE, dest, kControlTag,
                      ctrl_, &o->req),
            s_.rank, "adaptive: control message");
  sends_.push_back(std::move(o));
}

void RelayHub::handle(const std::vector<std::byte>& m) {
  Header h{};
  std::memcpy(&h, m.data(), sizeof h);
  const auto op = ops_.find(h.request);
  if (op == ops_.end()) return;  // a request destroyed here (after a fault): nothing to do
  const auto n = static_cast<std::size_t>(s_.size);
  const auto* flags = reinterpret_cast<const std::uint8_t*>(m.data() + sizeof h);
  switch (static_cast<Msg>(h.kind)) {
    case Msg::ready:
      op->second->on_ready(h.epoch, h.rank, now());
      break;
    case Msg::decision: {
      std::vector<bool> active(n);
      for (std::size_t q = 0; q < n; ++q) active[q] = flags[q] != 0;
      op->second->on_decision(h.epoch, std::move(active), m.size() > sizeof h + n ? flags[n] : 0);
      break;
    }
    case Msg::fault:
      op->second->on_fault(
          h.epoch, std::string(reinterpret_cast<const char*>(flags) + n, m.size() - sizeof h - n));
      break;
  }
}

bool RelayHub::poll_control() {
  bool progress = false;
  std::vector<std::byte> buf;
  for (;;) {
    int flag = 0;
    MPI_Message msg = MPI_MESSAGE_NULL;
    MPI_Status st;
    mpi_check(MPI_Improbe(MPI_ANY_SOURCE, kControlTag, ctrl_, &flag, &msg, &st), s_.rank,
              "adaptive: MPI_Improbe");
    if (!flag) return progress;
    int count = 0;
    MPI_Get_count(&st, MPI_BYTE, &count);
    buf.resize(static_cast<std::size_t>(count));
    mpi_check(MPI_Mrecv(buf.data(), count, MPI_BYTE, &msg, MPI_STATUS_IGNORE), s_.rank,
              "adaptive: MPI_Mrecv");
    if (buf.size() >= sizeof(Header)) handle(buf);
    progress = true;
  }
}

bool RelayHub::reap_sends() {
  bool progress = false;
  for (auto it = sends_.begin(); it != sends_.end();) {
    int done = 0;
    mpi_check(MPI_Test(&(*it)->req, &done, MPI_STATUS_IGNORE), s_.rank, "adaptive: MPI_Test");
    if (done) {
      it = sends_.erase(it);
      progress = true;
    } else {
      ++it;
    }
  }
  return progress;
}

void RelayHub::loop() noexcept {
  // A helper thread must not take a core from the application: it always backs off when idle.
  engine::WaitPolicy p = s_.wait;
  p.mode = engine::WaitMode::backoff;
  engine::Backoff backoff(p);
  bool reported = false;
  while (!stop_.load()) {
    bool progress = false;
    try {
      const std::lock_guard lock(mu);
      progress = poll_control();
      if (s_.rank == 0)
        for (auto& [id, op] : ops_) progress = op->coordinate(now()) || progress;
      for (auto& [id, op] : ops_) progress = op->drive_relay() || progress;
      progress = reap_sends() || progress;
    } catch (const std::exception& e) {
      // An MPI error of the control traffic: the calls waiting on it run into their deadline.
      if (!reported)
        std::fprintf(stderr, "cclx: rank %d: adaptive progress thread: %s\n", s_.rank, e.what());
      reported = true;
    }
    if (progress) {
      progressed.notify_all();
      backoff.reset();
    } else {
      backoff.idle();
    }
  }
}

}  // namespace detail

namespace {

// CCLX_ADAPTIVE_FAULT="factor,floor,cap" (seconds for floor and cap).
void fault_from_env(detail::RelayOptions& o, int rank) {
  std::optional<std::array<double, 3>> x;
  try {
    x = settings::get<std::optional<std::array<double, 3>>>(settings::Id::adaptive_fault);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
  if (!x) return;
  o.fault_factor = (*x)[0];
  o.fault_floor_s = (*x)[1];
  o.fault_cap_s = (*x)[2];
}

}  // namespace

namespace algo {

std::unique_ptr<cclx::detail::PersistentOp> relay_init(MpiBackend& backend,
                                                       const CollectiveCall& call,
                                                       const Adaptive& a,
                                                       std::shared_ptr<void> keepalive) {
  const std::shared_ptr<MpiBackend::State>& state = backend.state();
  MpiBackend::State& s = *state;
  sched::ScheduleRequest req = cclx::call::request(call, s.rank, s.size);
  req.only_rank = -1;
  std::shared_ptr<const cclx::detail::RelayModel> model;
  try {
    model = relay_model(a, req, call.kernel.elem_size);
  } catch (const Error& e) {
    throw e.on_rank(s.rank);
  }
  int provided = MPI_THREAD_SINGLE;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    throw Error(s.rank, std::string(sched::to_string(call.collective)) +
                            " (adaptive): algo::Adaptive needs MPI_THREAD_MULTIPLE (a progress "
                            "thread relays while the application computes), but MPI provides " +
                            cclx::detail::thread_level_name(provided) +
                            "; initialize MPI with MPI_Init_thread(..., MPI_THREAD_MULTIPLE, ...)");
  cclx::detail::RelayOptions o{a.fault_factor, a.fault_floor_s, a.fault_cap_s, a.predict_calls};
  fault_from_env(o, s.rank);
  if (o.predict_calls < 0)
    throw Error(s.rank, std::string(sched::to_string(call.collective)) +
                            " (adaptive): predict_calls is " + std::to_string(o.predict_calls) +
                            "; expected >= 0 (0: no prediction of late ranks)");
  if (!s.relay) s.relay = std::make_shared<cclx::detail::RelayHub>(s);
  return std::make_unique<cclx::detail::RelayOp>(state, std::move(model), call, o,
                                                 std::move(keepalive));
}

}  // namespace algo

}  // namespace cclx
