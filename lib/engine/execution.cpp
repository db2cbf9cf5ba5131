#include "cclx/engine/execution.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <sstream>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::engine {

using sched::Buf;
using sched::Op;
using sched::OpKind;
using sched::Region;

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
struct ByteRange {
  const std::byte* lo;
  const std::byte* hi;
  [[nodiscard]] bool overlaps(const ByteRange& o) const { return lo < o.hi && o.lo < hi; }
};
}  // namespace

Execution::Execution(std::shared_ptr<const sched::Schedule> schedule, const Buffers& buffers,
                     const ReduceKernel& kernel, Transport& transport, unsigned channel,
                     ScratchPool& scratch, const ExecOptions& options)
    : schedule_(std::move(schedule)),
      part_{buffers.count, schedule_->nblocks},
      in_(static_cast<const std::byte*>(buffers.in)),
      out_(static_cast<std::byte*>(buffers.out)),
      kernel_(kernel),
      options_(options),
      rank_(transport.rank()),
      synchronizes_(coll::synchronizes(schedule_->collective)) {
  const auto& s = *schedule_;
  if (s.nranks != transport.size() || static_cast<int>(s.programs.size()) != s.nranks)
    throw Error(rank_, "schedule '" + s.algorithm + "' is for " + std::to_string(s.nranks) +
                           " ranks, communicator has " + std::to_string(transport.size()));
  program_ = &s.programs[static_cast<std::size_t>(rank_)];
  if (buffers.out_counts) {
    // v-collective: own copies of the block offsets (a nonblocking call outlives its arguments).
    const std::size_t k = std::size_t{s.nblocks} + 1;
    const detail::IntArray* in = buffers.in_counts;
    if (buffers.out_counts->size + 1 != k || (in && in->size + 1 != k))
      throw Error(rank_, "engine: block counts for " + std::to_string(buffers.out_counts->size) +
                             " blocks, schedule has " + std::to_string(s.nblocks));
    offsets_.resize(in ? 2 * k : k);
    sched::prefix_offsets(*buffers.out_counts, s.nblocks, offsets_.data());
    if (in) sched::prefix_offsets(*in, s.nblocks, offsets_.data() + k);
    part_ = {offsets_[k - 1], s.nblocks, offsets_.data()};
    in_part_ = in ? sched::Partition{offsets_.back(), s.nblocks, offsets_.data() + k} : part_;
  } else {
    in_part_ = part_;
  }
  const sched::Windows w = coll::windows_of(s.collective, s.nranks, rank_, s.root, s.nblocks);
  in_first_ = w.in.present && w.in.first ? in_part_.block_offset(w.in.first) : 0;
  out_first_ = w.out.present && w.out.first ? part_.block_offset(w.out.first) : 0;

  // Scratch is laid out like the partition; only the prefix the program touches is allocated.
  std::size_t scratch_elems = 0;
  for (const Op& op : program_->ops)
    for (const Region* g : {&op.dst, &op.src, &op.src2})
      if (g->buf == Buf::scratch && g->count) {
        const std::uint32_t copy = g->first / s.nblocks;
        scratch_elems = std::max(
            scratch_elems, copy * part_.count + part_.block_offset(g->end() - copy * s.nblocks));
      }
  if (scratch_elems) {
    scratch_lease_ = scratch.acquire(scratch_elems * kernel_.elem_size);
    scratch_ = scratch_lease_.data();
  }
  if (options_.segment_bytes) {
    // Segments hold whole elements.
    const std::size_t es = kernel_.elem_size;
    options_.segment_bytes = std::max(es, options_.segment_bytes / es * es);
  }
  if (s.one_sender_per_receiver) options_.handshake_bytes = 0;  // nothing to interfere with
  channel_ = transport.open_channel(channel);
  try {
    start_step();
  } catch (const Error& e) {
    throw Error(rank_, context() + ": " + e.detail());
  }
}

Execution::~Execution() = default;

std::byte* Execution::address(const Region& g) const {
  const std::size_t es = kernel_.elem_size;
  switch (g.buf) {
    case Buf::in:
      return const_cast<std::byte*>(in_) + (in_part_.block_offset(g.first) - in_first_) * es;
    case Buf::out:
      return out_ + (part_.block_offset(g.first) - out_first_) * es;
    case Buf::scratch: {
      // Copy j of the partition starts at j * count elements.
      const std::uint32_t copy = g.first / part_.nblocks;
      return scratch_ +
             (copy * part_.count + part_.block_offset(g.first - copy * part_.nblocks)) * es;
    }
  }
  return nullptr;
}

std::size_t Execution::bytes(const Region& g) const {
  // Scratch copy j's blocks have the sizes of the partition's blocks (a region stays in one copy).
  Region local = g;
  if (g.buf == Buf::scratch) local.first = g.first % part_.nblocks;
  return (g.buf == Buf::in ? in_part_ : part_).region_size(local) * kernel_.elem_size;
}

void Execution::run_local(const Op& op, std::size_t elem_begin, std::size_t elem_end) {
  if (elem_end <= elem_begin) return;
  const std::size_t es = kernel_.elem_size;
  const std::size_t off = elem_begin * es;
  if (op.kind == OpKind::copy) {
    std::memmove(address(op.dst) + off, address(op.src) + off, (elem_end - elem_begin) * es);
  } else {
    kernel_(address(op.dst) + off, address(op.src) + off, address(op.src2) + off,
            elem_end - elem_begin);
  }
}

void Execution::post_transfer(std::uint32_t i) {
  const Op& o = program_->step_data(step_)[i];
  const Region& g = o.kind == OpKind::recv ? o.dst : o.src;
  const std::size_t total = bytes(g);
  const std::size_t seg = options_.segment_bytes ? options_.segment_bytes : total;
  std::byte* base = address(g);
  if (total == 0) {
    // Nothing to move. A synchronizing collective's transfers are its point, so each is still one
    // empty message (a barrier that skipped one would let a rank leave early); any other
    // collective skips it, on both sides alike (both compute the same size).
    if (synchronizes_)
      track(o.kind == OpKind::recv ? channel_->post_recv(base, 0, o.peer)
                                   : channel_->post_send(base, 0, o.peer),
            {Pending::Kind::segment, i, 0, 0, o.peer, false});
    return;
  }
  for (std::size_t b = 0; b < total; b += seg) {
    const std::size_t e = std::min(total, b + seg);
    track(o.kind == OpKind::recv ? channel_->post_recv(base + b, e - b, o.peer)
                                 : channel_->post_send(base + b, e - b, o.peer),
          {Pending::Kind::segment, i, b, e, o.peer, false});
  }
}

void Execution::track(std::size_t id, const Pending& p) {
  if (id != pending_.size())
    throw Error(rank_, "engine: transport returned transfer ids out of order");
  pending_.push_back(p);
}

void Execution::post_sends_to(int peer) {
  const Op* ops = program_->step_data(step_);
  const std::size_t before = pending_.size();
  for (std::size_t i = 0; i < program_->step_size(step_); ++i)
    if (ops[i].kind == OpKind::send && ops[i].peer == peer)
      post_transfer(static_cast<std::uint32_t>(i));
  outstanding_ += pending_.size() - before;
}

void Execution::start_step() {
  while (step_ < program_->num_steps()) {
    const Op* ops = program_->step_data(step_);
    const std::size_t nops = program_->step_size(step_);
    channel_->clear();
    pending_.clear();
    attached_.assign(nops, -1);
    local_done_.assign(nops, 0);

    auto range = [&](const Region& g) {
      const std::byte* p = address(g);
      return ByteRange{p, p + bytes(g)};
    };
    // Pipelining: a local that consumes exactly one receive's landing region may run segment by
    // segment as the data lands, if running it early cannot change the result: nothing else of
    // the step writes what it reads or reads/writes what it writes.
    for (std::size_t j = 0; j < nops; ++j) {
      const Op& l = ops[j];
      if (l.is_transfer() || bytes(l.dst) == 0) continue;
      std::int32_t recv = -1;
      for (std::size_t i = 0; i < nops && recv < 0; ++i)
        if (ops[i].kind == OpKind::recv && attached_[i] < 0 &&
            (ops[i].dst == l.src || (l.kind == OpKind::reduce && ops[i].dst == l.src2)))
          recv = static_cast<std::int32_t>(i);
      if (recv < 0) continue;
      const Region& landed = ops[recv].dst;
      if (bytes(landed) != bytes(l.dst)) continue;
      // A destination that partially overlaps an operand (in-place reduce_scatterv: the result
      // goes to the buffer's start, below its own block) is right only front to back in one
      // piece, as finish_step runs it.
      const auto shifted = [&](const Region& a) {
        const ByteRange x = range(l.dst), y = range(a);
        return x.overlaps(y) && x.lo != y.lo;
      };
      if (shifted(l.src) || (l.kind == OpKind::reduce && shifted(l.src2))) continue;
      const Region& other = (l.kind == OpKind::reduce && landed == l.src) ? l.src2 : l.src;
      bool safe = true;
      for (std::size_t i = 0; i < nops && safe; ++i) {
        const Op& o = ops[i];
        if (i == j || static_cast<std::int32_t>(i) == recv) continue;
        if (o.kind == OpKind::recv) {
          safe = !range(o.dst).overlaps(range(other)) && !range(o.dst).overlaps(range(l.dst));
        } else if (o.kind == OpKind::send) {
          safe = !range(o.src).overlaps(range(l.dst));
        } else if (i < j) {
          safe = !range(o.dst).overlaps(range(l.src)) && !range(o.dst).overlaps(range(l.dst)) &&
                 !range(l.dst).overlaps(range(o.src)) &&
                 (o.kind != OpKind::reduce || !range(l.dst).overlaps(range(o.src2))) &&
                 (l.kind != OpKind::reduce || !range(o.dst).overlaps(range(l.src2)));
        }
      }
      if (safe) attached_[static_cast<std::size_t>(recv)] = static_cast<std::int32_t>(j);
    }

    // Per peer, the bytes this step sends to it and receives from it: pairs that move at least
    // handshake_bytes one way do the receiver-ready handshake (both sides compute the same sums).
    held_peers_.clear();
    std::vector<int> ready_to;  // peers to tell that our receives from them are posted
    if (options_.handshake_bytes) {
      auto total = [&](OpKind kind, int peer) {
        std::size_t b = 0;
        for (std::size_t i = 0; i < nops; ++i)
          if (ops[i].kind == kind && ops[i].peer == peer)
            b += bytes(kind == OpKind::recv ? ops[i].dst : ops[i].src);
        return b;
      };
      for (std::size_t i = 0; i < nops; ++i) {
        const Op& o = ops[i];
        if (!o.is_transfer()) continue;
        auto& list = o.kind == OpKind::send ? held_peers_ : ready_to;
        if (std::find(list.begin(), list.end(), o.peer) == list.end() &&
            total(o.kind, o.peer) >= options_.handshake_bytes)
          list.push_back(o.peer);
      }
    }
    // Between two ranks messages match in posting order, and every rank posts in this order:
    // token receives, data receives, tokens, data sends (held ones when their token arrives). So
    // per step and pair the token precedes the data on both sides; one tag serves both.
    for (int peer : held_peers_)
      track(channel_->post_recv(token_, 0, peer), {Pending::Kind::token_in, 0, 0, 0, peer, false});
    for (std::size_t i = 0; i < nops; ++i)
      if (ops[i].kind == OpKind::recv) post_transfer(static_cast<std::uint32_t>(i));
    for (int peer : ready_to)
      track(channel_->post_send(token_, 0, peer), {Pending::Kind::token_out, 0, 0, 0, peer, false});
    for (std::size_t i = 0; i < nops; ++i)
      if (ops[i].kind == OpKind::send &&
          std::find(held_peers_.begin(), held_peers_.end(), ops[i].peer) == held_peers_.end())
        post_transfer(static_cast<std::uint32_t>(i));
    outstanding_ = pending_.size();
    if (outstanding_) return;
    finish_step();
  }
  done_ = true;
}

void Execution::finish_step() {
  const Op* ops = program_->step_data(step_);
  const std::size_t nops = program_->step_size(step_);
  for (std::size_t j = 0; j < nops; ++j) {
    const Op& l = ops[j];
    if (l.is_transfer() || local_done_[j]) continue;
    run_local(l, 0, bytes(l.dst) / kernel_.elem_size);
  }
  ++step_;
}

bool Execution::test() {
  if (done_) return true;
  try {
    return advance();
  } catch (const Error& e) {
    throw Error(rank_, context() + ": " + e.detail());
  }
}

bool Execution::advance() {
  const std::size_t es = kernel_.elem_size;
  for (;;) {
    completed_.clear();
    channel_->poll(completed_);
    if (completed_.empty()) return false;
    const Op* ops = program_->step_data(step_);
    for (std::size_t id : completed_) {
      pending_[id].done = true;
      const Pending p = pending_[id];  // a copy: post_sends_to may grow pending_
      --outstanding_;
      if (p.kind == Pending::Kind::token_in) post_sends_to(p.peer);
      if (p.kind != Pending::Kind::segment) continue;
      const std::int32_t a = attached_[p.op];
      if (ops[p.op].kind == OpKind::recv && a >= 0) {
        run_local(ops[a], p.begin / es, p.end / es);
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
  Backoff backoff(options_.wait);
  // The clock is read only every 128 idle polls, so the deadline costs nothing while data flows
  // and is noticed within a few milliseconds of passing (polls are microseconds apart, backoff
  // sleeps at most max_sleep_us).
  const bool timed = options_.timeout_s > 0;
  const Clock::time_point start = timed ? Clock::now() : Clock::time_point{};
  std::uint32_t idle = 0;
  while (!done_) {
    const std::size_t before = outstanding_;
    const std::size_t step = step_;
    if (test()) return;
    if (outstanding_ != before || step_ != step) {
      backoff.reset();
    } else {
      backoff.idle();
      if (timed && (++idle & 127u) == 0) {
        const double waited = std::chrono::duration<double>(Clock::now() - start).count();
        if (waited >= options_.timeout_s) throw Error(rank_, timeout_message(waited));
      }
    }
  }
}

std::string Execution::context() const {
  std::string c(sched::to_string(schedule_->collective));
  c += " (" + schedule_->algorithm + ") step " + std::to_string(step_);
  return c;
}

std::string Execution::timeout_message(double waited) const {
  // Outstanding receives (data or a receiver-ready token) name the peers we wait for; if only
  // sends are left, their receivers have not taken them.
  std::vector<int> from, to;
  const Op* ops = program_->step_data(step_);
  for (const Pending& p : pending_) {
    if (p.done) continue;
    const bool in = p.kind == Pending::Kind::token_in ||
                    (p.kind == Pending::Kind::segment && ops[p.op].kind == OpKind::recv);
    auto& list = in ? from : to;
    if (std::find(list.begin(), list.end(), p.peer) == list.end()) list.push_back(p.peer);
  }
  auto ranks = [](std::vector<int> v) {
    std::sort(v.begin(), v.end());
    std::ostringstream s;
    s << (v.size() == 1 ? "rank " : "ranks ");
    for (std::size_t i = 0; i < v.size(); ++i) s << (i ? ", " : "") << v[i];
    return s.str();
  };
  std::string m = context() + ": ";
  if (!from.empty())
    m += "no data from " + ranks(from);
  else if (!to.empty())
    m += ranks(to) + " did not take our data";
  else
    m += "no progress";
  m += " after " + format_seconds(waited) + " (timeout " + format_seconds(options_.timeout_s) + ")";
  return m;
}

}  // namespace cclx::engine
