// GraphViz export (boost::write_graphviz) with α/bandwidth labels. A pair of opposite links with
// the same cost is drawn as one double-headed edge.
#pragma once

#include <iosfwd>
#include <string>

#include "cclx/topology/topology.hpp"

namespace cclx::topo {

/// Writes `t` to `os` as a GraphViz digraph: ranks as ellipses, NICs as boxes, switches as
/// diamonds, each link labeled with cost_label().
void write_dot(std::ostream& os, const Topology& t);
/// What write_dot() writes, as a string.
[[nodiscard]] std::string to_dot(const Topology& t);
/// "3 µs\n450 GB/s" style label of one link cost.
[[nodiscard]] std::string cost_label(double alpha, double beta);

}  // namespace cclx::topo
