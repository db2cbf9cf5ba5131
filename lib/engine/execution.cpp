#include "cclx/engine/execution.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

#include "cclx/error.hpp"

namespace cclx::engine {

using sched::OpKind;

// A posted transfer: a segment of an op of the step (its byte range in the op's region), or a
// receiver-ready token to or from `peer`.
struct Execution::Pending {
  enum class Kind : std::uint8_t { segment, token_in, token_out };
  Kind kind;
  std::uint32_t op;
  std::size_t begin, end;
  int peer;
  bool done = false;
};

namespace {

// The plan's segment size, or the transport's largest message (rounded down to whole elements, at
// least one) where that is smaller. Both sides of a transfer cut it at the same places: they see
// the same size, element size and (equal on all ranks) transport limit.
std::size_t message_bytes(const Plan& p, const Transport& t) {
  std::size_t limit = t.max_message_bytes();
  if (limit == 0) return p.segment_bytes;
  limit = std::max<std::size_t>(limit / p.elem_size, 1) * p.elem_size;
  return p.segment_bytes == 0 ? limit : std::min(p.segment_bytes, limit);
}

}  // namespace

Execution::Execution(std::shared_ptr<const Plan> plan, Transport& transport, ScratchPool& scratch)
    : plan_(std::move(plan)),
      transport_(&transport),
      scratch_pool_(&scratch),
      local_ops_(transport.local_ops()),
      message_bytes_(message_bytes(*plan_, transport)),
      rank_(transport.rank()) {
  pending_.reserve(plan_->max_posted);
  completed_.reserve(plan_->max_posted);
  local_done_.resize(plan_->max_step_ops);
}

Execution::~Execution() = default;

std::string Execution::name() const {
  std::string c(sched::to_string(plan_->schedule->collective));
  return c + " (" + plan_->schedule->algorithm + ")";
}

void Execution::start(const Buffers& buffers, const ReduceKernel& kernel, unsigned channel,
                      const ExecOptions& options) {
  if (!done_) throw Error(rank_, name() + ": started while still running");
  if (plan_->scratch_bytes && !buffers.scratch && !scratch_lease_.data())
    scratch_lease_ = scratch_pool_->acquire(plan_->scratch_bytes);
  base_[static_cast<int>(sched::Buf::in)] =
      const_cast<std::byte*>(static_cast<const std::byte*>(buffers.in));
  base_[static_cast<int>(sched::Buf::out)] = static_cast<std::byte*>(buffers.out);
  base_[static_cast<int>(sched::Buf::scratch)] =
      buffers.scratch ? static_cast<std::byte*>(buffers.scratch) : scratch_lease_.data();
  kernel_ = kernel;
  options_ = options;
  if (!channel_) {
    channel_ = transport_->open_channel(channel);
  } else if (channel != channel_number_) {
    channel_->reopen(channel);
  }
  channel_number_ = channel;
  step_ = 0;
  done_ = false;
  try {
    start_step();
  } catch (const Error& e) {  // a transfer failed at once (a peer died): who else is missing
    throw Error(rank_, context() + ": " + e.detail() +
                           (options_.timeout_s > 0 ? transport_->on_failure(options_.timeout_s)
                                                   : std::string()));
  }
}

namespace {
[[noreturn, gnu::noinline, gnu::cold]] void ids_out_of_order(int rank) {
  throw Error(rank, "engine: transport returned transfer ids out of order");
}
}  // namespace

inline std::byte* Execution::address(const Plan::Range& r) const {
  return base_[static_cast<int>(r.buf)] + r.offset;
}

inline void Execution::track(std::size_t id, const Pending& p) {
  if (id != pending_.size()) [[unlikely]]
    ids_out_of_order(rank_);
  pending_.push_back(p);
}

void Execution::run_local(const Plan::Op& op, std::size_t byte_begin, std::size_t byte_end) {
  if (byte_end <= byte_begin) return;
  if (local_ops_) {  // device memory: the transport's copies and kernels
    if (op.kind == OpKind::copy)
      local_ops_->copy(address(op.dst) + byte_begin, address(op.src) + byte_begin,
                       byte_end - byte_begin);
    else
      local_ops_->reduce(kernel_, address(op.dst) + byte_begin, address(op.src) + byte_begin,
                         address(op.src2) + byte_begin,
                         (byte_end - byte_begin) / kernel_.elem_size);
    return;
  }
  if (op.kind == OpKind::copy) {
    std::memmove(address(op.dst) + byte_begin, address(op.src) + byte_begin, byte_end - byte_begin);
  } else {
    kernel_(address(op.dst) + byte_begin, address(op.src) + byte_begin,
            address(op.src2) + byte_begin, (byte_end - byte_begin) / kernel_.elem_size);
  }
}

void Execution::post_transfer(std::uint32_t i) {
  const Plan::Op& o = plan_->step_ops(step_)[i];
  const bool recv = o.kind == OpKind::recv;
  const Plan::Range& g = recv ? o.dst : o.src;
  const std::size_t total = g.bytes;
  const std::size_t seg = message_bytes_;
  std::byte* base = address(g);
  if (seg == 0 || total <= seg) {  // one message (the common case)
    // An empty region moves nothing. A synchronizing collective's transfers are its point, so
    // each is still one empty message (a barrier that skipped one would let a rank leave early);
    // any other collective skips it, on both sides alike (both compute the same size).
    if (total || plan_->synchronizes)
      track(recv ? channel_->post_recv(base, total, o.peer)
                 : channel_->post_send(base, total, o.peer),
            {Pending::Kind::segment, i, 0, total, o.peer, false});
    return;
  }
  for (std::size_t b = 0; b < total; b += seg) {
    const std::size_t e = std::min(total, b + seg);
    track(recv ? channel_->post_recv(base + b, e - b, o.peer)
               : channel_->post_send(base + b, e - b, o.peer),
          {Pending::Kind::segment, i, b, e, o.peer, false});
  }
}

void Execution::post_sends_to(int peer) {
  const Plan::Op* ops = plan_->step_ops(step_);
  const std::size_t before = pending_.size();
  for (std::size_t i = 0; i < plan_->step_size(step_); ++i)
    if (ops[i].kind == OpKind::send && ops[i].peer == peer)
      post_transfer(static_cast<std::uint32_t>(i));
  outstanding_ += pending_.size() - before;
}

void Execution::start_step() {
  const Plan& p = *plan_;
  while (step_ < p.num_steps()) {
    const Plan::Op* ops = p.step_ops(step_);
    const std::size_t nops = p.step_size(step_);
    channel_->clear();
    pending_.clear();
    for (std::size_t i = 0; i < nops; ++i) local_done_[i] = 0;
    // Between two ranks messages match in posting order, and every rank posts in this order:
    // token receives, data receives, tokens, data sends (held ones when their token arrives). So
    // per step and pair the token precedes the data on both sides; one tag serves both.
    for (std::uint32_t k = p.held_begin[step_]; k < p.held_begin[step_ + 1]; ++k)
      track(channel_->post_recv(token_, 0, p.held[k]),
            {Pending::Kind::token_in, 0, 0, 0, p.held[k], false});
    for (std::size_t i = 0; i < nops; ++i)
      if (ops[i].kind == OpKind::recv) post_transfer(static_cast<std::uint32_t>(i));
    for (std::uint32_t k = p.ready_begin[step_]; k < p.ready_begin[step_ + 1]; ++k)
      track(channel_->post_send(token_, 0, p.ready[k]),
            {Pending::Kind::token_out, 0, 0, 0, p.ready[k], false});
    for (std::size_t i = 0; i < nops; ++i)
      if (ops[i].kind == OpKind::send && !ops[i].held) post_transfer(static_cast<std::uint32_t>(i));
    outstanding_ = pending_.size();
    if (outstanding_) return;
    finish_step();
  }
  done_ = true;
}

void Execution::finish_step() {
  const Plan::Op* ops = plan_->step_ops(step_);
  const std::size_t nops = plan_->step_size(step_);
  for (std::size_t j = 0; j < nops; ++j) {
    const Plan::Op& l = ops[j];
    if (l.kind == OpKind::send || l.kind == OpKind::recv || local_done_[j]) continue;
    run_local(l, 0, l.dst.bytes);
  }
  ++step_;
}

bool Execution::test() {
  if (done_) return true;
  try {
    return advance(false);
  } catch (const Error& e) {
    throw Error(rank_, context() + ": " + e.detail());
  }
}

bool Execution::advance(bool block) {
  for (;;) {
    completed_.clear();
    if (block)
      channel_->wait_some(completed_);
    else
      channel_->poll(completed_);
    if (completed_.empty()) return false;
    const Plan::Op* ops = plan_->step_ops(step_);
    for (std::size_t id : completed_) {
      pending_[id].done = true;
      const Pending p = pending_[id];  // a copy: post_sends_to may grow pending_
      --outstanding_;
      if (p.kind == Pending::Kind::token_in) post_sends_to(p.peer);
      if (p.kind != Pending::Kind::segment) continue;
      const std::int32_t a = ops[p.op].attached;
      if (ops[p.op].kind == OpKind::recv && a >= 0) {
        run_local(ops[a], p.begin, p.end);
        local_done_[static_cast<std::size_t>(a)] = 1;  // complete once all segments landed
      }
    }
    if (outstanding_) continue;
    finish_step();
    start_step();
    if (done_) return true;
  }
}

void Execution::wait() {
  using Clock = std::chrono::steady_clock;
  if (done_) return;
  const bool timed = options_.timeout_s > 0;
  if (!timed && options_.wait.mode == WaitMode::spin) {
    // Spinning without a deadline: let the transport spin (one MPI_Waitsome per completion
    // instead of a poll loop through the engine).
    try {
      while (!advance(true)) {
      }
    } catch (const Error& e) {
      throw Error(rank_, context() + ": " + e.detail());
    }
    return;
  }
  Backoff backoff(options_.wait);
  // The clock is read (and other ranks' roll calls answered) only every 128 idle polls, so the
  // deadline costs nothing while data flows and is noticed within a few milliseconds of passing
  // (polls are microseconds apart). A backing-off wait checks every 8: its polls sleep, and on a
  // loaded machine each sleep may last a time slice, so 128 of them could take a second.
  const std::uint32_t every = options_.wait.mode == WaitMode::backoff ? 7u : 127u;
  const Clock::time_point start = timed ? Clock::now() : Clock::time_point{};
  std::uint32_t idle = 0;
  while (!done_) {
    const std::size_t before = outstanding_;
    const std::size_t step = step_;
    try {
      if (test()) return;
    } catch (const Error& e) {  // a transfer failed (a peer died): who else is missing
      if (!timed) throw;
      throw Error(rank_, e.detail() + transport_->on_failure(options_.timeout_s));
    }
    if (outstanding_ != before || step_ != step) {
      backoff.reset();
    } else {
      backoff.idle();
      if (timed && (++idle & every) == 0) {
        transport_->idle();
        const double waited = std::chrono::duration<double>(Clock::now() - start).count();
        if (waited >= options_.timeout_s)
          throw Error(rank_, timeout_message(waited) + transport_->on_failure(options_.timeout_s));
      }
    }
  }
}

std::string Execution::context() const {
  return name() + " step " + std::to_string(step_);
}

std::string Execution::timeout_message(double waited) const {
  // Outstanding receives (data or a receiver-ready token) name the peers we wait for; if only
  // sends are left, their receivers have not taken them.
  std::vector<int> from, to;
  const Plan::Op* ops = plan_->step_ops(step_);
  for (const Pending& p : pending_) {
    if (p.done) continue;
    const bool in = p.kind == Pending::Kind::token_in ||
                    (p.kind == Pending::Kind::segment && ops[p.op].kind == OpKind::recv);
    auto& list = in ? from : to;
    if (std::find(list.begin(), list.end(), p.peer) == list.end()) list.push_back(p.peer);
  }
  std::string m = context() + ": ";
  if (!from.empty())
    m += "no data from " + rank_list(from);
  else if (!to.empty())
    m += rank_list(to) + " did not take our data";
  else
    m += "no progress";
  m += " after " + format_seconds(waited) + " (timeout " + format_seconds(options_.timeout_s) + ")";
  return m;
}

}  // namespace cclx::engine
