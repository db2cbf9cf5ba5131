// The machine as a graph: ranks, NICs and switches are vertices, directed links are edges with an
// α-β cost (sending s bytes over one link alone costs α + s·β). A full-duplex cable is two edges.
// The simulator routes messages over it (routes.hpp); builders.hpp, topology_json.hpp, detect.hpp
// and profiler.hpp make one.
#pragma once

#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cclx::topo {

/// What a vertex is: a rank, a NIC or a switch.
enum class VertexKind : std::uint8_t { rank, nic, switch_node };
/// What a link is made of; informational except for display (GraphViz, tables).
enum class LinkKind : std::uint8_t {
  direct,      ///< a dedicated rank-to-rank link (full mesh)
  intra_host,  ///< shared memory / NVLink between ranks of one host
  pcie,        ///< rank to its host's NIC
  network,     ///< NIC to switch (or NIC to NIC)
};

/// "rank", "nic" or "switch", as topology JSON spells them.
[[nodiscard]] std::string_view to_string(VertexKind k);
/// "direct", "intra_host", "pcie" or "network", as topology JSON spells them.
[[nodiscard]] std::string_view to_string(LinkKind k);
/// The kind to_string() names `s`; throws cclx::Error for unknown names.
[[nodiscard]] VertexKind vertex_kind_from_string(std::string_view s);
/// The kind to_string() names `s`; throws cclx::Error for unknown names.
[[nodiscard]] LinkKind link_kind_from_string(std::string_view s);

/// A vertex of the machine graph: a rank, a NIC or a switch.
struct Vertex {
  /// Rank, NIC or switch.
  VertexKind kind = VertexKind::rank;
  /// For display: "r0", "r1", ... for ranks; NICs and switches as their builder named them.
  std::string name;
  int rank = -1;  ///< rank vertices only
  int host = -1;  ///< index into Topology::host_names(); -1 = not tied to a host
  /// Rank vertices: how many messages the rank may send at once and, separately, receive at once.
  /// 1 = single-port (the α-β model of StragglAR); 0 = unlimited.
  int ports = 1;
  /// Rank vertices: seconds of the rank's own (CPU) time per message it sends or receives, LogP's
  /// o, serialized on the rank (its messages' overheads never overlap). 0: free, the α-β model.
  /// What the profiler measures with every rank busy (profiler.hpp), e.g. 8 ranks on 2 cores.
  double overhead = 0;
};

/// Cost of one directed link. beta = 0 means the link never limits bandwidth.
struct LinkCost {
  double alpha = 0;  ///< seconds
  double beta = 0;   ///< seconds per byte (1 / bandwidth)
  /// The cost of a link with latency `alpha_s` seconds and bandwidth `bytes_per_s`; a bandwidth
  /// of 0 or less gives beta = 0, a link that never limits bandwidth.
  [[nodiscard]] static LinkCost from_bandwidth(double alpha_s, double bytes_per_s) {
    return {alpha_s, bytes_per_s > 0 ? 1.0 / bytes_per_s : 0.0};
  }
  /// Equal α and β.
  friend bool operator==(const LinkCost&, const LinkCost&) = default;
};

/// A directed link of the machine graph, with its α-β cost.
struct Link {
  double alpha = 0;                  ///< seconds
  double beta = 0;                   ///< seconds per byte; 0: never limits bandwidth
  LinkKind kind = LinkKind::direct;  ///< what the link is made of (for display)
  std::uint32_t id = 0;  ///< dense index in [0, num_links()), assigned by Topology::add_link
};

/// bidirectionalS: routing walks out-edges, tools also want in-edges; listS edge storage (Boost's
/// default for bidirectional graphs) keeps edge descriptors valid while links are added.
using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::bidirectionalS, Vertex, Link>;
using VertexId = Graph::vertex_descriptor;  ///< a vertex: its index, in the order it was added
using EdgeId = Graph::edge_descriptor;      ///< a link's edge in the graph (Topology::edge())

/// The machine as a graph of ranks, NICs and switches joined by directed α-β links.
class Topology {
 public:
  Topology() = default;
  /// Edge descriptors point into the graph's own edge storage, so copies re-derive them.
  Topology(const Topology& o);
  /// Takes over `o`'s graph, ranks and hosts; `o` is left empty.
  Topology(Topology&& o) noexcept;
  /// Copies `o`, re-deriving the edge descriptors as the copy constructor does.
  Topology& operator=(const Topology& o);
  /// Takes over `o`'s graph, ranks and hosts; `o` is left empty.
  Topology& operator=(Topology&& o) noexcept;
  ~Topology() = default;

  /// Hosts first, then ranks in order 0, 1, ... (rank r is the r-th rank vertex added).
  int add_host(std::string name);
  /// Adds the next rank's vertex, named `r<rank>`, on `host` (negative: none) with `ports` ports
  /// (0: unlimited). Throws cclx::Error for a host not added yet or negative ports.
  VertexId add_rank(int host, int ports = 1);
  /// Adds a NIC vertex of `host` (-1: none). Throws cclx::Error for a host not added yet.
  VertexId add_nic(int host, std::string name);
  /// Adds a switch vertex, tied to no host.
  VertexId add_switch(std::string name);
  /// One direction; returns the link id.
  std::uint32_t add_link(VertexId from, VertexId to, LinkCost cost, LinkKind kind);
  /// Both directions with the same cost.
  void add_duplex(VertexId a, VertexId b, LinkCost cost, LinkKind kind);

  /// Ranks added so far.
  [[nodiscard]] int nranks() const { return static_cast<int>(rank_v_.size()); }
  /// Hosts added so far.
  [[nodiscard]] int nhosts() const { return static_cast<int>(hosts_.size()); }
  /// Links added so far; their ids are 0 .. num_links() - 1.
  [[nodiscard]] std::size_t num_links() const { return links_.size(); }
  /// The vertex of rank `rank`; throws cclx::Error when there is no such rank.
  [[nodiscard]] VertexId rank_vertex(int rank) const;
  /// The host of rank `rank` (-1: none); throws cclx::Error when there is no such rank.
  [[nodiscard]] int host_of(int rank) const { return g_[rank_vertex(rank)].host; }
  /// The name of host `host`; throws cclx::Error for an unknown host.
  [[nodiscard]] const std::string& host_name(int host) const;
  /// Host names by host index, in the order they were added.
  [[nodiscard]] const std::vector<std::string>& host_names() const { return hosts_; }
  /// The Boost graph: Vertex on vertices, Link on edges.
  [[nodiscard]] const Graph& graph() const { return g_; }

  /// The link with id `id`; throws cclx::Error for an unknown id.
  [[nodiscard]] const Link& link(std::uint32_t id) const { return g_[edge(id)]; }
  /// The graph edge of link `id`; throws cclx::Error for an unknown id.
  [[nodiscard]] EdgeId edge(std::uint32_t id) const;
  /// The id of a link from `from` to `to` (the first added if there are several), if any.
  [[nodiscard]] std::optional<std::uint32_t> find_link(VertexId from, VertexId to) const;
  /// Sets link `id`'s α and β; throws cclx::Error on a negative cost or an unknown id.
  void set_link_cost(std::uint32_t id, LinkCost cost);
  /// Sets how many messages rank `rank` may send, and receive, at once (0: unlimited); throws
  /// cclx::Error on a negative count or an unknown rank.
  void set_ports(int rank, int ports);
  /// Throws cclx::Error unless seconds >= 0.
  void set_overhead(int rank, double seconds);

 private:
  Graph g_;
  std::vector<VertexId> rank_v_;
  std::vector<std::string> hosts_;
  std::vector<EdgeId> links_;  ///< by link id

  void reindex();
};

}  // namespace cclx::topo
