// Topologies as JSON, for cclx-topo output and cclx-sim --topology input.
//
// Explicit form (what to_json writes):
//   {"format": "cclx-topology", "version": 1, "hosts": ["nodeA", ...],
//    "vertices": [{"kind": "rank", "name": "r0", "rank": 0, "host": 0, "ports": 1},
//                 {"kind": "nic", "name": "nodeA/nic0", "host": 0}, {"kind": "switch", ...}],
//    "links": [{"from": 0, "to": 1, "alpha": 3e-06, "beta": 2.2e-12, "kind": "direct"}, ...]}
// Vertices are referred to by their index in "vertices"; rank vertices must appear in rank order.
// A link may give "bw" (bytes/s) instead of "beta", and "duplex": true for both directions.
// A rank vertex may give "overhead" (seconds per message, Vertex::overhead; written when > 0).
//
// Builder form (read only), for large homogeneous shapes:
//   {"builder": "full_mesh", "nranks": 256, "alpha": 3e-6, "bw": 450e9}
//   {"builder": "two_level", "hosts": 32, "ranks_per_host": 8,
//    "intra": {"alpha": 1e-6, "bw": 450e9}, "inter": {"alpha": 5e-6, "bw": 50e9},
//    "pcie": {...}, "nics_per_host": 1, "host_inter": [{...}, ...], "placement": "block"}
//   (placement: "block", the default, or "cyclic": rank r on host r mod hosts)
// Both builders take "ports" (per rank) and "overhead" (every rank's, seconds per message).
#pragma once

#include <string>
#include <string_view>

#include "cclx/topology/topology.hpp"

namespace cclx::topo {

/// `t` in the explicit form, indented by `indent` spaces per level (-1: on one line).
[[nodiscard]] std::string to_json(const Topology& t, int indent = 2);
/// Throws cclx::Error on malformed input.
[[nodiscard]] Topology topology_from_json(std::string_view json);
/// Reads a file; throws cclx::Error when it cannot be read or parsed.
[[nodiscard]] Topology load_topology(const std::string& path);

}  // namespace cclx::topo
