// An in-process engine::Transport for unit tests: N ranks in one thread, messages matched in
// posting order per (source, destination, channel) and completed a few polls of the receiving
// channel after they match (World::latency), so that an execution really waits for them.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "cclx/engine/transport.hpp"

namespace cclx::test {

using Log = std::vector<std::string>;

// In-process host transport: a message completes `latency` polls of its channel after it matched.
struct World {
  struct Post {
    int rank;
    unsigned chan;
    std::size_t id;
    std::byte* data;
    std::size_t bytes;
  };
  std::map<std::tuple<int, int, unsigned>, std::deque<Post>> sends, recvs;  // (src, dst, channel)
  std::map<std::pair<int, unsigned>, std::vector<std::pair<std::size_t, int>>> matched;
  int latency = 3;
  Log* log = nullptr;
  std::size_t largest_message = 0;  ///< the most bytes of any posted message

  void match(int src, int dst, unsigned chan) {
    auto& s = sends[{src, dst, chan}];
    auto& r = recvs[{src, dst, chan}];
    while (!s.empty() && !r.empty()) {
      REQUIRE_MESSAGE(s.front().bytes == r.front().bytes,
                      "message sizes differ: chunks mismatched");
      if (s.front().bytes) std::memcpy(r.front().data, s.front().data, s.front().bytes);
      matched[{src, chan}].push_back({s.front().id, latency});
      matched[{dst, chan}].push_back({r.front().id, latency});
      s.pop_front();
      r.pop_front();
    }
  }
};

class LoopChannel final : public cclx::engine::Channel {
 public:
  LoopChannel(World& w, int rank, unsigned chan) : w_(&w), rank_(rank), chan_(chan) {}
  std::size_t post_send(const void* data, std::size_t bytes, int peer) override {
    return post(w_->sends, rank_, peer, const_cast<void*>(data), bytes, "send");
  }
  std::size_t post_recv(void* data, std::size_t bytes, int peer) override {
    return post(w_->recvs, peer, rank_, data, bytes, "recv");
  }
  void poll(std::vector<std::size_t>& completed) override {
    auto& m = w_->matched[{rank_, chan_}];
    for (auto it = m.begin(); it != m.end();) {
      if (--it->second <= 0) {
        completed.push_back(it->first);
        if (w_->log)
          w_->log->push_back("r" + std::to_string(rank_) + " " + kinds_[it->first] + " " +
                             std::to_string(it->first) + " done");
        it = m.erase(it);
      } else {
        ++it;
      }
    }
  }
  void clear() override {
    next_ = 0;
    kinds_.clear();
  }
  void reopen(unsigned number) override { chan_ = number; }

 private:
  template <class Map>
  std::size_t post(Map& map, int src, int dst, void* data, std::size_t bytes, const char* kind) {
    const std::size_t id = next_++;
    w_->largest_message = std::max(w_->largest_message, bytes);
    kinds_.push_back(kind);
    map[{src, dst, chan_}].push_back({rank_, chan_, id, static_cast<std::byte*>(data), bytes});
    if (w_->log)
      w_->log->push_back("r" + std::to_string(rank_) + " " + kind + " " + std::to_string(id) +
                         " posted");
    w_->match(src, dst, chan_);
    return id;
  }
  World* w_;
  int rank_;
  unsigned chan_;
  std::size_t next_ = 0;
  std::vector<std::string> kinds_;
};

class LoopTransport final : public cclx::engine::Transport {
 public:
  LoopTransport(World& w, int rank, int size, std::size_t max_message = 0)
      : w_(&w), rank_(rank), size_(size), max_message_(max_message) {}
  [[nodiscard]] int rank() const override { return rank_; }
  [[nodiscard]] int size() const override { return size_; }
  [[nodiscard]] std::size_t max_message_bytes() const override { return max_message_; }
  std::unique_ptr<cclx::engine::Channel> open_channel(unsigned number) override {
    return std::make_unique<LoopChannel>(*w_, rank_, number);
  }

 private:
  World* w_;
  int rank_, size_;
  std::size_t max_message_;
};

}  // namespace cclx::test
