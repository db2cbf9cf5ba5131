#include "flow_network.hpp"

#include <algorithm>
#include <limits>

namespace cclx::sim::detail {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

FlowNetwork::FlowNetwork(std::vector<double> capacity, Sharing sharing)
    : links_(capacity.size()), sharing_(sharing) {
  for (std::size_t l = 0; l < capacity.size(); ++l) links_[l].capacity = capacity[l];
}

void FlowNetwork::attach(std::uint32_t l, int f) {
  LinkState& s = links_[l];
  if (s.count == 0) {
    s.sole = f;
  } else {
    if (s.count == 1) {
      if (free_lists_.empty()) {
        s.list = static_cast<std::int32_t>(lists_.size());
        lists_.emplace_back();
      } else {
        s.list = free_lists_.back();
        free_lists_.pop_back();
      }
      lists_[static_cast<std::size_t>(s.list)].assign(1, s.sole);
    }
    lists_[static_cast<std::size_t>(s.list)].push_back(f);
  }
  ++s.count;
}

void FlowNetwork::detach(std::uint32_t l, int f) {
  LinkState& s = links_[l];
  if (s.count == 1) {
    s.sole = -1;
  } else {
    auto& v = lists_[static_cast<std::size_t>(s.list)];
    v.erase(std::find(v.begin(), v.end(), f));
    if (v.size() == 1) {
      s.sole = v.front();
      free_lists_.push_back(s.list);
      s.list = -1;
    }
  }
  --s.count;
}

int FlowNetwork::add(double now, std::span<const std::uint32_t> links, double bytes, double beta,
                     int owner) {
  int f;
  if (!free_.empty()) {
    f = free_.back();
    free_.pop_back();
  } else {
    f = static_cast<int>(flows_.size());
    flows_.emplace_back();
  }
  Flow& fl = flows_[static_cast<std::size_t>(f)];
  const std::uint32_t version = fl.version + 1;
  fl = Flow{links, bytes, 0, now, kInf, 0, version, 0, owner, true};
  changed_.clear();
  bool alone = true;
  for (const auto l : links)
    if (limited(l)) {
      alone = alone && links_[l].count == 0;
      attach(l, f);
    }
  if (alone) {
    // Nobody else is affected and the flow gets its bottleneck's full capacity; s·β (not s/rate)
    // keeps closed-form results exact.
    fl.rate = beta > 0 ? 1.0 / beta : kInf;
    fl.finish = now + bytes * beta;
    changed_.push_back(f);
    return f;
  }
  pending_.push_back(f);
  return f;
}

void FlowNetwork::remove(int f, double now) {
  Flow& fl = flows_[static_cast<std::size_t>(f)];
  (void)now;
  changed_.clear();
  for (const auto l : fl.links) {
    if (!limited(l)) continue;
    detach(l, f);
    const auto rest = flows_on(l);
    pending_.insert(pending_.end(), rest.begin(), rest.end());
  }
  ++fl.version;  // invalidates any pending finish event
  fl.active = false;
  free_.push_back(f);
}

void FlowNetwork::flush(double now) {
  changed_.clear();
  seeds_.clear();
  // Seeds may have ended since they were queued (their ids possibly reused: harmless).
  for (const int f : pending_)
    if (flows_[static_cast<std::size_t>(f)].active) seeds_.push_back(f);
  pending_.clear();
  if (!seeds_.empty()) recompute(now);
}

void FlowNetwork::recompute(double now) {
  ++rate_updates_;
  // The connected component of the seeds through shared links.
  const std::uint32_t epoch = ++epoch_;
  comp_flows_.clear();
  comp_links_.clear();
  for (const int s : seeds_)
    if (flows_[static_cast<std::size_t>(s)].mark != epoch) {
      flows_[static_cast<std::size_t>(s)].mark = epoch;
      comp_flows_.push_back(s);
    }
  for (std::size_t i = 0; i < comp_flows_.size(); ++i) {
    for (const auto l : flows_[static_cast<std::size_t>(comp_flows_[i])].links) {
      if (!limited(l) || links_[l].mark == epoch) continue;
      links_[l].mark = epoch;
      comp_links_.push_back(l);
      for (const int g : flows_on(l))
        if (flows_[static_cast<std::size_t>(g)].mark != epoch) {
          flows_[static_cast<std::size_t>(g)].mark = epoch;
          comp_flows_.push_back(g);
        }
    }
  }
  // Bytes moved so far at the old rates.
  for (const int g : comp_flows_) {
    Flow& fl = flows_[static_cast<std::size_t>(g)];
    if (fl.rate > 0 && fl.rate != kInf)
      fl.remaining = std::max(0.0, fl.remaining - fl.rate * (now - fl.last));
    fl.last = now;
    fl.new_rate = kInf;
  }

  if (sharing_ == Sharing::equal) {
    for (const int g : comp_flows_) {
      Flow& fl = flows_[static_cast<std::size_t>(g)];
      for (const auto l : fl.links)
        if (limited(l))
          fl.new_rate =
              std::min(fl.new_rate, links_[l].capacity / static_cast<double>(links_[l].count));
    }
  } else {
    // Progressive filling: repeatedly saturate the link with the smallest fair share (the first
    // of equal ones in comp_links_) and freeze its flows at that share. The shares are kept in
    // comp_links_' order, +inf once a link's flows are all frozen, and updated only for the links
    // of the flows just frozen: a round is a scan of one array, without a division per link.
    // Per-link scratch, allocated by the first contended recomputation only.
    if (cap_left_.size() < links_.size()) {
      cap_left_.assign(links_.size(), 0);
      unfrozen_.assign(links_.size(), 0);
      position_.assign(links_.size(), 0);
    }
    const auto share_of = [&](std::uint32_t l) {
      return unfrozen_[l] > 0 ? cap_left_[l] / unfrozen_[l] : kInf;
    };
    shares_.resize(comp_links_.size());
    for (std::uint32_t i = 0; i < comp_links_.size(); ++i) {
      const auto l = comp_links_[i];
      cap_left_[l] = links_[l].capacity;
      unfrozen_[l] = static_cast<int>(links_[l].count);
      position_[l] = i;
      shares_[i] = share_of(l);
    }
    std::size_t left = comp_flows_.size();
    while (left > 0) {
      double share = kInf;
      std::size_t best_at = 0;
      for (std::size_t i = 0; i < shares_.size(); ++i)
        if (shares_[i] < share) {
          share = shares_[i];
          best_at = i;
        }
      if (share == kInf) break;  // only unlimited flows remain (cannot happen: all have a link)
      for (const int g : flows_on(comp_links_[best_at])) {
        Flow& fl = flows_[static_cast<std::size_t>(g)];
        if (fl.new_rate != kInf) continue;  // frozen already
        fl.new_rate = share;
        --left;
        for (const auto m : fl.links)
          if (limited(m)) {
            cap_left_[m] = std::max(0.0, cap_left_[m] - share);
            --unfrozen_[m];
            shares_[position_[m]] = share_of(m);
          }
      }
    }
  }

  for (const int g : comp_flows_) {
    Flow& fl = flows_[static_cast<std::size_t>(g)];
    if (fl.new_rate == fl.rate) continue;  // its pending finish event stays valid
    fl.rate = fl.new_rate;
    fl.finish = fl.rate == kInf ? now : now + fl.remaining / fl.rate;
    ++fl.version;
    changed_.push_back(g);
  }
}

}  // namespace cclx::sim::detail
