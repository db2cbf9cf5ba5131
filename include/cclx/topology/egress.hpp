// How fast a rank can get data out to the other ranks at all: the maximum flow, in bytes per
// second, from its vertex to every other rank vertex, each link carrying at most 1/β (its
// bandwidth). Any schedule that must move s bytes out of the rank takes at least s / egress on
// this topology, whatever its routes, ports or sharing (the adaptive runtime uses it as a floor of
// a relay call's cost, lib/relay/model.cpp).
#pragma once

#include "cclx/topology/topology.hpp"

namespace cclx::topo {

/// Infinity where some path to another rank has only links with β = 0; 0 with one rank.
[[nodiscard]] double egress_bandwidth(const Topology& t, int rank);

}  // namespace cclx::topo
