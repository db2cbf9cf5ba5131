#include "cclx/topology/builders.hpp"

#include "cclx/error.hpp"

namespace cclx::topo {

Topology full_mesh(int nranks, LinkCost c, int ports) {
  if (nranks < 1) throw Error("full_mesh: need at least one rank");
  Topology t;
  for (int r = 0; r < nranks; ++r) t.add_rank(-1, ports);
  for (int a = 0; a < nranks; ++a)
    for (int b = 0; b < nranks; ++b)
      if (a != b) t.add_link(t.rank_vertex(a), t.rank_vertex(b), c, LinkKind::direct);
  return t;
}

Topology hierarchical(const std::vector<int>& host_of_rank,
                      const std::vector<std::string>& host_names, const Hierarchy& h) {
  const int nhosts = static_cast<int>(host_names.size());
  if (host_of_rank.empty()) throw Error("hierarchical: need at least one rank");
  if (h.nics_per_host < 1) throw Error("hierarchical: nics_per_host must be >= 1");
  if (!h.host_inter.empty() && static_cast<int>(h.host_inter.size()) != nhosts)
    throw Error("hierarchical: host_inter needs one cost per host");
  Topology t;
  for (const auto& name : host_names) t.add_host(name);
  std::vector<std::vector<int>> members(static_cast<std::size_t>(nhosts));
  for (std::size_t r = 0; r < host_of_rank.size(); ++r) {
    const int host = host_of_rank[r];
    if (host < 0 || host >= nhosts) throw Error("hierarchical: rank on unknown host");
    t.add_rank(host, h.ports);
    members[static_cast<std::size_t>(host)].push_back(static_cast<int>(r));
  }
  for (const auto& m : members)
    for (const int a : m)
      for (const int b : m)
        if (a != b) t.add_link(t.rank_vertex(a), t.rank_vertex(b), h.intra, LinkKind::intra_host);
  if (nhosts < 2) return t;  // nothing leaves the host

  const VertexId sw = t.add_switch("switch");
  for (int host = 0; host < nhosts; ++host) {
    const auto& m = members[static_cast<std::size_t>(host)];
    const LinkCost up =
        h.host_inter.empty() ? h.inter : h.host_inter[static_cast<std::size_t>(host)];
    std::vector<VertexId> nics;
    for (int i = 0; i < h.nics_per_host; ++i) {
      nics.push_back(
          t.add_nic(host, host_names[static_cast<std::size_t>(host)] + "/nic" + std::to_string(i)));
      // α once per message: charged on the uplink only.
      t.add_link(nics.back(), sw, up, LinkKind::network);
      t.add_link(sw, nics.back(), LinkCost{0, up.beta}, LinkKind::network);
    }
    for (std::size_t i = 0; i < m.size(); ++i)
      t.add_duplex(t.rank_vertex(m[i]), nics[i % nics.size()], h.pcie, LinkKind::pcie);
  }
  return t;
}

Topology two_level(int hosts, int ranks_per_host, const Hierarchy& h, Placement placement) {
  if (hosts < 1 || ranks_per_host < 1) throw Error("two_level: need hosts >= 1 and ranks >= 1");
  std::vector<int> host_of;
  std::vector<std::string> names;
  host_of.reserve(static_cast<std::size_t>(hosts) * static_cast<std::size_t>(ranks_per_host));
  names.reserve(static_cast<std::size_t>(hosts));
  for (int host = 0; host < hosts; ++host) names.push_back("host" + std::to_string(host));
  for (int r = 0; r < hosts * ranks_per_host; ++r)
    host_of.push_back(placement == Placement::block ? r / ranks_per_host : r % hosts);
  return hierarchical(host_of, names, h);
}

Topology per_host_bandwidth(int ranks_per_host, LinkCost intra, double inter_alpha,
                            const std::vector<double>& host_bytes_per_s) {
  Hierarchy h;
  h.intra = intra;
  for (const double bw : host_bytes_per_s) {
    if (!(bw > 0)) throw Error("per_host_bandwidth: bandwidths must be positive");
    h.host_inter.push_back(LinkCost::from_bandwidth(inter_alpha, bw));
  }
  return two_level(static_cast<int>(host_bytes_per_s.size()), ranks_per_host, h);
}

}  // namespace cclx::topo
