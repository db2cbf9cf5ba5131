#include "cclx/device/staging_transport.hpp"

#include <algorithm>
#include <deque>
#include <string>

#include "cclx/error.hpp"

namespace cclx::device {

namespace {

using Queue = Device::Queue;
using Marker = Device::Marker;

// One outer transfer (the engine's), by its id.
struct Xfer {
  std::byte* data;
  std::size_t bytes;
  std::size_t chunks_left;
  bool recv;
  bool guarded = false;  // recv: `guard` marks the compute work queued before it was posted
  Marker guard = 0;
};

// One host message of a transfer: [offset, offset + len) of its data.
struct Chunk {
  enum class State : std::uint8_t { queued, copying, ready, posted, landing, done };
  std::size_t xfer;
  std::size_t offset, len;
  State state = State::queued;
  std::byte* slot = nullptr;
  bool marked = false;
  Marker m = 0;
};

// The chunks to or from one peer in one direction, in the engine's posting order.
struct PeerQueue {
  std::deque<Chunk> chunks;
  std::size_t slots_used = 0;
};

class StagingChannel final : public engine::Channel {
 public:
  StagingChannel(StagingTransport& t, Device& dev, std::unique_ptr<engine::Channel> host)
      : t_(&t), dev_(&dev), host_(std::move(host)), sends_(size()), recvs_(size()) {}
  ~StagingChannel() override { reset(); }

  std::size_t post_send(const void* data, std::size_t bytes, int peer) override {
    return post(const_cast<std::byte*>(static_cast<const std::byte*>(data)), bytes, peer, false);
  }
  std::size_t post_recv(void* data, std::size_t bytes, int peer) override {
    return post(static_cast<std::byte*>(data), bytes, peer, true);
  }
  void poll(std::vector<std::size_t>& completed) override;
  void clear() override {
    for (const auto& qs : {&sends_, &recvs_})
      for (const PeerQueue& q : *qs)
        if (!q.chunks.empty())
          throw Error(t_->rank(), "staging transport: channel cleared with transfers in flight");
    reset();
    host_->clear();
  }
  void reopen(unsigned number) override { host_->reopen(number); }

 private:
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(t_->size()); }
  std::size_t post(std::byte* data, std::size_t bytes, int peer, bool recv);
  void pump(PeerQueue& q, int peer, bool recv);  // starts what the queue's order allows
  void on_host_done(std::size_t host_id);
  void finish(Chunk& c, std::vector<std::size_t>& completed);
  void reset() noexcept;

  StagingTransport* t_;
  Device* dev_;
  std::unique_ptr<engine::Channel> host_;
  std::vector<PeerQueue> sends_, recvs_;  // by peer
  std::vector<Xfer> xfers_;               // by outer id
  std::vector<Chunk*> by_host_id_;        // the chunk of each host transfer
  std::vector<std::size_t> host_done_;
  std::vector<std::size_t> finished_;  // outer ids completed but not yet reported
};

std::size_t StagingChannel::post(std::byte* data, std::size_t bytes, int peer, bool recv) {
  if (peer < 0 || static_cast<std::size_t>(peer) >= size())
    throw Error(t_->rank(), "staging transport: peer " + std::to_string(peer) + " out of range");
  const std::size_t id = xfers_.size();
  const StagingOptions& o = t_->options();
  // Empty transfers (tokens, barriers) and direct ones are one host message; staged ones are cut
  // into chunks of chunk_bytes, the same cut on both sides.
  const std::size_t chunk =
      (bytes == 0 || o.direct) ? std::max<std::size_t>(bytes, 1) : o.chunk_bytes;
  const std::size_t n = bytes == 0 ? 1 : (bytes + chunk - 1) / chunk;
  Xfer x{data, bytes, n, recv};
  if (recv && bytes) {
    x.guard = dev_->mark(Queue::compute);
    x.guarded = true;
  }
  xfers_.push_back(x);
  PeerQueue& q = (recv ? recvs_ : sends_)[static_cast<std::size_t>(peer)];
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t b = i * chunk;
    q.chunks.push_back(Chunk{id, b, bytes == 0 ? 0 : std::min(chunk, bytes - b)});
  }
  pump(q, peer, recv);
  return id;
}

void StagingChannel::pump(PeerQueue& q, int peer, bool recv) {
  const StagingOptions& o = t_->options();
  // Start chunks in order while slots last: a send's device-to-host copy is queued at once, so
  // it overlaps the host transfer of the chunk before.
  for (Chunk& c : q.chunks) {
    if (c.state != Chunk::State::queued) continue;
    const bool staged = c.len && !o.direct;
    if (staged && q.slots_used >= o.depth) break;  // later chunks wait for a slot, in order
    if (staged) {
      c.slot = t_->take_slot();
      ++q.slots_used;
      if (!recv) dev_->copy(Queue::compute, c.slot, xfers_[c.xfer].data + c.offset, c.len);
    }
    if (c.len && !recv) {  // a send reads what the compute work before it wrote
      c.m = dev_->mark(Queue::compute);
      c.marked = true;
    }
    c.state = Chunk::State::copying;
  }
  // Post host messages in the engine's order: between two ranks they match in posting order.
  for (Chunk& c : q.chunks) {
    if (c.state == Chunk::State::queued) return;
    if (c.state == Chunk::State::copying) {
      const Xfer& x = xfers_[c.xfer];
      if (c.marked && !dev_->reached(c.m)) return;
      // A direct receive waits for the compute work that may still read its destination.
      if (recv && o.direct && x.guarded && !dev_->reached(x.guard)) return;
      if (c.marked) dev_->release(c.m);
      c.marked = false;
      c.state = Chunk::State::ready;
    }
    if (c.state == Chunk::State::ready) {
      std::byte* where = c.slot ? c.slot : xfers_[c.xfer].data + c.offset;
      by_host_id_.push_back(&c);
      const std::size_t hid =
          recv ? host_->post_recv(where, c.len, peer) : host_->post_send(where, c.len, peer);
      if (hid + 1 != by_host_id_.size())
        throw Error(t_->rank(), "staging transport: host transport ids out of order");
      c.state = Chunk::State::posted;
    }
  }
}

void StagingChannel::on_host_done(std::size_t hid) {
  Chunk& c = *by_host_id_.at(hid);
  Xfer& x = xfers_[c.xfer];
  if (x.recv && c.slot) {  // land it: after the compute work that may read the destination
    if (x.guarded) dev_->order_after(Queue::inbound, x.guard);
    dev_->copy(Queue::inbound, x.data + c.offset, c.slot, c.len);
    c.m = dev_->mark(Queue::inbound);
    c.marked = true;
    c.state = Chunk::State::landing;
  } else {
    c.state = Chunk::State::done;
  }
}

void StagingChannel::finish(Chunk& c, std::vector<std::size_t>& completed) {
  Xfer& x = xfers_[c.xfer];
  if (--x.chunks_left) return;
  if (x.guarded) dev_->release(x.guard);
  x.guarded = false;
  completed.push_back(c.xfer);
}

void StagingChannel::poll(std::vector<std::size_t>& completed) {
  host_done_.clear();
  host_->poll(host_done_);
  for (std::size_t hid : host_done_) on_host_done(hid);
  for (int dir = 0; dir < 2; ++dir) {
    const bool recv = dir == 1;
    std::vector<PeerQueue>& qs = recv ? recvs_ : sends_;
    for (std::size_t p = 0; p < qs.size(); ++p) {
      PeerQueue& q = qs[p];
      if (q.chunks.empty()) continue;
      for (Chunk& c : q.chunks) {
        if (c.state == Chunk::State::landing && dev_->reached(c.m)) {
          dev_->release(c.m);
          c.marked = false;
          c.state = Chunk::State::done;
        }
      }
      // Retire finished chunks from the front (later ones stay for their order).
      while (!q.chunks.empty() && q.chunks.front().state == Chunk::State::done) {
        Chunk& c = q.chunks.front();
        if (c.slot) {
          t_->give_slot(c.slot);
          --q.slots_used;
        }
        finish(c, completed);
        q.chunks.pop_front();
      }
      pump(q, static_cast<int>(p), recv);
    }
  }
}

void StagingChannel::reset() noexcept {
  for (auto* qs : {&sends_, &recvs_})
    for (PeerQueue& q : *qs) {
      for (Chunk& c : q.chunks) {
        if (c.marked) dev_->release(c.m);
        if (c.slot) t_->give_slot(c.slot);
      }
      q.chunks.clear();
      q.slots_used = 0;
    }
  for (Xfer& x : xfers_)
    if (x.guarded) dev_->release(x.guard);
  xfers_.clear();
  by_host_id_.clear();
}

}  // namespace

StagingTransport::StagingTransport(engine::Transport& host, Device& dev, engine::LocalOps& ops,
                                   StagingOptions options)
    : host_(&host), dev_(&dev), ops_(&ops), options_(options) {
  if (options_.chunk_bytes == 0 || options_.depth < 2)
    throw Error(host.rank(), "staging transport: chunk_bytes must be > 0 and depth >= 2");
}

StagingTransport::~StagingTransport() {
  for (std::byte* s : all_) dev_->free_pinned(s);
}

std::byte* StagingTransport::take_slot() {
  if (!idle_.empty()) {
    std::byte* s = idle_.back();
    idle_.pop_back();
    return s;
  }
  all_.reserve(all_.size() + 1);
  idle_.reserve(all_.size() + 1);  // room for every slot: give_slot() never allocates
  std::byte* s = dev_->alloc_pinned(options_.chunk_bytes);
  all_.push_back(s);
  ++allocated_;
  return s;
}

std::unique_ptr<engine::Channel> StagingTransport::open_channel(unsigned number) {
  return std::make_unique<StagingChannel>(*this, *dev_, host_->open_channel(number));
}

}  // namespace cclx::device
