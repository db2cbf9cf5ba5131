// Fluid flows over links of finite capacity (bytes/s), with max-min fair or equal sharing.
// Internal to the simulator. Rates are recomputed only for the connected component of flows that
// share links with the flow that started or ended: a flow alone on its links never triggers a
// recomputation, so contention-free runs (a full mesh with single-port ranks) cost O(path) per
// message.
#pragma once

#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "cclx/sim/simulator.hpp"

namespace cclx::sim::detail {

class FlowNetwork {
 public:
  // capacity[l] = 1/β_l; +inf for links that never limit (β = 0).
  FlowNetwork(std::vector<double> capacity, Sharing sharing);

  // Starts a flow of `bytes` at `now` over `links`; beta = max β of those links. Returns its id.
  // A flow alone on its links gets its finish time at once; otherwise rates are recomputed by the
  // next flush(), so that many flows starting or ending at one instant cost one recomputation.
  int add(double now, std::span<const std::uint32_t> links, double bytes, double beta, int owner);
  // Ends flow f at `now` (its finish time); the flows it shared links with wait for flush().
  void remove(int f, double now);
  // Whether add/remove left rates to recompute; the caller must flush() before time advances.
  [[nodiscard]] bool dirty() const { return !pending_.empty(); }
  void flush(double now);

  // Flows whose finish time was (re)computed by the last add/remove/flush.
  [[nodiscard]] const std::vector<int>& changed() const { return changed_; }
  [[nodiscard]] double finish(int f) const { return flows_[static_cast<std::size_t>(f)].finish; }
  [[nodiscard]] std::uint32_t version(int f) const {
    return flows_[static_cast<std::size_t>(f)].version;
  }
  [[nodiscard]] int owner(int f) const { return flows_[static_cast<std::size_t>(f)].owner; }
  [[nodiscard]] std::uint64_t rate_updates() const { return rate_updates_; }

 private:
  struct Flow {
    std::span<const std::uint32_t> links;
    double remaining = 0;  // bytes left at time `last`
    double rate = 0;       // bytes/s; +inf when no link limits it
    double last = 0;
    double finish = 0;
    double new_rate = 0;
    std::uint32_t version = 0;
    std::uint32_t mark = 0;
    int owner = -1;
    bool active = false;
  };

  // Per link: capacity and the active flows. A link with one flow keeps it inline; a list from
  // lists_ is attached only while several share it, so contention-free runs touch one small
  // record per link and allocate nothing.
  struct LinkState {
    double capacity = 0;
    std::uint32_t count = 0;
    std::int32_t sole = -1;  // the flow when count == 1
    std::int32_t list = -1;  // index into lists_ when count >= 2
    std::uint32_t mark = 0;
  };

  void recompute(double now);
  [[nodiscard]] bool limited(std::uint32_t l) const {
    return links_[l].capacity != std::numeric_limits<double>::infinity();
  }
  [[nodiscard]] std::span<const int> flows_on(std::uint32_t l) const {
    const LinkState& s = links_[l];
    if (s.count == 0) return {};
    if (s.count == 1) return {&s.sole, 1};
    return lists_[static_cast<std::size_t>(s.list)];
  }
  void attach(std::uint32_t l, int f);
  void detach(std::uint32_t l, int f);

  std::vector<LinkState> links_;
  Sharing sharing_;
  std::vector<Flow> flows_;
  std::vector<int> free_;
  std::vector<std::vector<int>> lists_;
  std::vector<std::int32_t> free_lists_;
  std::vector<double> cap_left_;
  std::vector<int> unfrozen_;
  std::vector<std::uint32_t> position_;  // a link's index in comp_links_
  std::vector<double> shares_;           // fair share per comp_links_ entry (+inf: all frozen)
  std::uint32_t epoch_ = 0;
  std::vector<int> pending_, seeds_, comp_flows_;
  std::vector<std::uint32_t> comp_links_;
  std::vector<int> changed_;
  std::uint64_t rate_updates_ = 0;
};

}  // namespace cclx::sim::detail
