// Which links a message between two ranks crosses, and what that costs.
//
// A route is a minimum-hop path; among those, the one with the smallest Σα (ties: lowest vertex
// numbers, so routes are deterministic). Its cost model, used by the simulator:
//   alpha = Σ α over the route's links        (latencies add up along the path)
//   beta  = max β over the route's links      (the bottleneck link sets the rate)
// so s bytes alone on the route cost alpha + s·beta.
//
// Rows (all routes from one source) are computed by one BFS that stops as soon as every rank is
// settled, so a full mesh costs O(n) per source, not O(n²). Up to `precompute_limit` ranks the
// table is filled at construction; above it rows are filled on first use.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "cclx/topology/topology.hpp"

namespace cclx::topo {

/// The links a message between two ranks crosses.
struct Route {
  std::span<const std::uint32_t> links;  ///< link ids in path order; empty from a rank to itself
  double alpha = 0;                      ///< seconds: Σ α over the route's links
  double beta = 0;                       ///< seconds per byte: the largest β on the route
};

/// The routes between every pair of ranks, and what they cost.
class RouteTable {
 public:
  /// The routes of `t`, which must outlive the table unchanged. With at most
  /// `precompute_limit` ranks all rows are computed here; otherwise each on its first route().
  explicit RouteTable(const Topology& t, int precompute_limit = 1024);
  /// Throws cclx::Error when dst is unreachable from src. Lazily computed rows make this non-const
  /// in effect: do not call concurrently from several threads.
  [[nodiscard]] Route route(int src, int dst) const;
  /// The topology's rank count at construction.
  [[nodiscard]] int nranks() const { return n_; }

 private:
  /// One entry per destination, packed so that a lookup touches one cache line.
  struct Entry {
    std::uint32_t begin = 0, length = 0;  ///< into Row::links
    double alpha = 0, beta = 0;
    bool reachable = false;
  };
  struct Row {
    bool done = false;
    std::vector<Entry> to;
    std::vector<std::uint32_t> links;
  };
  void fill(int src) const;

  const Topology* t_;
  int n_;
  mutable std::vector<Row> rows_;
};

}  // namespace cclx::topo
