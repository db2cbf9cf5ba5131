// Hand-built topologies: the shapes the simulator studies and the detector produces.
#pragma once

#include <string>
#include <vector>

#include "cclx/topology/topology.hpp"

namespace cclx::topo {

/// n ranks, every ordered pair joined by its own link of cost `c` (n(n-1) links). With single-port
/// ranks no two messages ever share a link, so every message costs exactly α + s·β.
[[nodiscard]] Topology full_mesh(int nranks, LinkCost c, int ports = 1);

/// Ranks grouped into hosts. Inside a host every ordered pair of ranks has an `intra` link. Across
/// hosts a message goes rank -> NIC -> switch -> NIC -> rank:
///   rank -> NIC, NIC -> rank   `pcie` (default free: α = β = 0)
///   NIC -> switch (uplink)     α = inter.alpha, β = inter.beta (or the host's override)
///   switch -> NIC (downlink)   α = 0,           β = the same as the uplink
/// so an uncontended inter-host message costs α_inter + s·max(β_inter, β_pcie) and the ranks of a
/// host share its NIC bandwidth when they send (or receive) off-host at the same time. The switch
/// itself is non-blocking.
struct Hierarchy {
  LinkCost intra{};                  ///< between two ranks of one host, each direction
  LinkCost inter{};                  ///< NIC -> switch uplink; the downlink gets its β with α = 0
  LinkCost pcie{};                   ///< rank -> NIC and NIC -> rank; default free
  int nics_per_host = 1;             ///< local rank i uses NIC i mod nics_per_host
  std::vector<LinkCost> host_inter;  ///< optional per-host uplink cost (overrides `inter`)
  int ports = 1;                     ///< per rank
};

/// host_of_rank[r] in [0, host_names.size()); hosts need not be contiguous in rank order.
[[nodiscard]] Topology hierarchical(const std::vector<int>& host_of_rank,
                                    const std::vector<std::string>& host_names, const Hierarchy& h);
/// Where a two-level machine's ranks sit: in blocks of ranks_per_host (rank r on host
/// r / ranks_per_host, mpiexec's default) or dealt round the hosts (rank r on host r mod hosts,
/// `mpirun --map-by node`).
enum class Placement { block, cyclic };
/// hosts x ranks_per_host, placed as `placement` says.
[[nodiscard]] Topology two_level(int hosts, int ranks_per_host, const Hierarchy& h,
                                 Placement placement = Placement::block);
/// Two-level with one uplink bandwidth per host (bytes/s), e.g. a host with a slower NIC.
[[nodiscard]] Topology per_host_bandwidth(int ranks_per_host, LinkCost intra, double inter_alpha,
                                          const std::vector<double>& host_bytes_per_s);

}  // namespace cclx::topo
