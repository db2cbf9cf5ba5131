// topo::egress_bandwidth (include/cclx/topology/egress.hpp), with Boost.Graph's Edmonds-Karp
// maximum flow on integer capacities (bytes per second, rounded up so that the result is never
// below the true flow and a floor computed from it stays a floor).
#include "cclx/topology/egress.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/edmonds_karp_max_flow.hpp>
#include <cmath>
#include <cstdint>
#include <limits>

namespace cclx::topo {

namespace {

using Capacity = std::int64_t;
using FlowTraits = boost::adjacency_list_traits<boost::vecS, boost::vecS, boost::directedS>;
using FlowGraph = boost::adjacency_list<
    boost::vecS, boost::vecS, boost::directedS, boost::no_property,
    boost::property<
        boost::edge_capacity_t, Capacity,
        boost::property<boost::edge_residual_capacity_t, Capacity,
                        boost::property<boost::edge_reverse_t, FlowTraits::edge_descriptor>>>>;

// Stands for an unlimited link (β = 0); a flow this large means "no bandwidth limit".
constexpr Capacity kUnlimited = Capacity{1} << 50;

void add_arc(FlowGraph& g, std::size_t from, std::size_t to, Capacity c) {
  auto cap = get(boost::edge_capacity, g);
  auto rev = get(boost::edge_reverse, g);
  const auto e = add_edge(from, to, g).first;
  const auto r = add_edge(to, from, g).first;
  cap[e] = c;
  cap[r] = 0;
  rev[e] = r;
  rev[r] = e;
}

}  // namespace

double egress_bandwidth(const Topology& t, int rank) {
  if (t.nranks() <= 1) return 0;
  const Graph& tg = t.graph();
  const std::size_t nv = num_vertices(tg);
  FlowGraph g(nv + 1);  // + the sink every other rank drains into
  const std::size_t sink = nv;
  for (auto [e, end] = edges(tg); e != end; ++e) {
    const double beta = tg[*e].beta;
    const Capacity c = beta > 0 ? static_cast<Capacity>(std::min(std::ceil(1.0 / beta),
                                                                 static_cast<double>(kUnlimited)))
                                : kUnlimited;
    add_arc(g, source(*e, tg), target(*e, tg), c);
  }
  for (int q = 0; q < t.nranks(); ++q)
    if (q != rank) add_arc(g, t.rank_vertex(q), sink, kUnlimited);
  const Capacity flow = boost::edmonds_karp_max_flow(g, t.rank_vertex(rank), sink);
  return flow >= kUnlimited ? std::numeric_limits<double>::infinity() : static_cast<double>(flow);
}

}  // namespace cclx::topo
