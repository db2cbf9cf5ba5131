#include "cclx/topology/topology.hpp"

#include <array>

#include "cclx/error.hpp"

namespace cclx::topo {

namespace {
constexpr std::array<std::string_view, 3> kVertexNames = {"rank", "nic", "switch"};
constexpr std::array<std::string_view, 4> kLinkNames = {"direct", "intra_host", "pcie", "network"};
}  // namespace

std::string_view to_string(VertexKind k) {
  return kVertexNames[static_cast<std::size_t>(k)];
}
std::string_view to_string(LinkKind k) {
  return kLinkNames[static_cast<std::size_t>(k)];
}

VertexKind vertex_kind_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kVertexNames.size(); ++i)
    if (kVertexNames[i] == s) return static_cast<VertexKind>(i);
  throw Error("topology: unknown vertex kind '" + std::string(s) + "'");
}

LinkKind link_kind_from_string(std::string_view s) {
  for (std::size_t i = 0; i < kLinkNames.size(); ++i)
    if (kLinkNames[i] == s) return static_cast<LinkKind>(i);
  throw Error("topology: unknown link kind '" + std::string(s) + "'");
}

Topology::Topology(const Topology& o) : g_(o.g_), rank_v_(o.rank_v_), hosts_(o.hosts_) {
  reindex();
}

// Boost 1.74's adjacency_list has no move operations (std::move(g) copies it; clang-tidy's
// performance-move-const-arg), but it has swap.
Topology::Topology(Topology&& o) noexcept
    : rank_v_(std::move(o.rank_v_)), hosts_(std::move(o.hosts_)) {
  g_.swap(o.g_);
  reindex();
  o.links_.clear();
}

Topology& Topology::operator=(const Topology& o) {
  if (this != &o) {
    g_ = o.g_;
    rank_v_ = o.rank_v_;
    hosts_ = o.hosts_;
    reindex();
  }
  return *this;
}

Topology& Topology::operator=(Topology&& o) noexcept {
  if (this != &o) {
    g_.clear();
    g_.swap(o.g_);
    rank_v_ = std::move(o.rank_v_);
    hosts_ = std::move(o.hosts_);
    reindex();
    o.links_.clear();
  }
  return *this;
}

// Boost's adjacency_list copies edges on copy (and, in Boost 1.74, on move too), so descriptors
// into the old storage are rebuilt from the ids stored on the edges.
void Topology::reindex() {
  links_.assign(boost::num_edges(g_), EdgeId{});
  for (const auto e : boost::make_iterator_range(boost::edges(g_))) links_.at(g_[e].id) = e;
}

int Topology::add_host(std::string name) {
  hosts_.push_back(std::move(name));
  return static_cast<int>(hosts_.size()) - 1;
}

VertexId Topology::add_rank(int host, int ports) {
  if (host >= nhosts()) throw Error("topology: rank on unknown host " + std::to_string(host));
  if (ports < 0) throw Error("topology: negative port count");
  const int r = nranks();
  std::string name(1, 'r');
  name += std::to_string(r);  // (append: GCC 12 warns falsely on "r" + string)
  const VertexId v = boost::add_vertex(
      Vertex{VertexKind::rank, std::move(name), r, host < 0 ? -1 : host, ports, 0.0}, g_);
  rank_v_.push_back(v);
  return v;
}

VertexId Topology::add_nic(int host, std::string name) {
  if (host >= nhosts()) throw Error("topology: NIC on unknown host " + std::to_string(host));
  return boost::add_vertex(Vertex{VertexKind::nic, std::move(name), -1, host, 0, 0.0}, g_);
}

VertexId Topology::add_switch(std::string name) {
  return boost::add_vertex(Vertex{VertexKind::switch_node, std::move(name), -1, -1, 0, 0.0}, g_);
}

std::uint32_t Topology::add_link(VertexId from, VertexId to, LinkCost cost, LinkKind kind) {
  const auto nv = boost::num_vertices(g_);
  if (from >= nv || to >= nv || from == to) throw Error("topology: invalid link endpoints");
  if (!(cost.alpha >= 0) || !(cost.beta >= 0))
    throw Error("topology: link costs must be non-negative");
  const auto id = static_cast<std::uint32_t>(links_.size());
  const auto [e, added] = boost::add_edge(from, to, Link{cost.alpha, cost.beta, kind, id}, g_);
  (void)added;  // vecS out-edge lists allow parallel edges; every call adds one
  links_.push_back(e);
  return id;
}

void Topology::add_duplex(VertexId a, VertexId b, LinkCost cost, LinkKind kind) {
  add_link(a, b, cost, kind);
  add_link(b, a, cost, kind);
}

EdgeId Topology::edge(std::uint32_t id) const {
  if (id >= links_.size())
    throw Error("topology: link " + std::to_string(id) + " out of range for " +
                std::to_string(links_.size()) + " links");
  return links_[id];
}

VertexId Topology::rank_vertex(int rank) const {
  if (rank < 0 || rank >= nranks())
    throw Error("topology: rank " + std::to_string(rank) + " out of range for " +
                std::to_string(nranks()) + " ranks");
  return rank_v_[static_cast<std::size_t>(rank)];
}

const std::string& Topology::host_name(int host) const {
  if (host < 0 || host >= nhosts()) throw Error("topology: unknown host " + std::to_string(host));
  return hosts_[static_cast<std::size_t>(host)];
}

std::optional<std::uint32_t> Topology::find_link(VertexId from, VertexId to) const {
  for (const auto e : boost::make_iterator_range(boost::out_edges(from, g_)))
    if (boost::target(e, g_) == to) return g_[e].id;
  return std::nullopt;
}

void Topology::set_link_cost(std::uint32_t id, LinkCost cost) {
  if (!(cost.alpha >= 0) || !(cost.beta >= 0))
    throw Error("topology: link costs must be non-negative");
  auto& l = g_[edge(id)];
  l.alpha = cost.alpha;
  l.beta = cost.beta;
}

void Topology::set_ports(int rank, int ports) {
  if (ports < 0) throw Error("topology: negative port count");
  g_[rank_vertex(rank)].ports = ports;
}

void Topology::set_overhead(int rank, double seconds) {
  if (!(seconds >= 0)) throw Error("topology: the per-message overhead must be >= 0");
  g_[rank_vertex(rank)].overhead = seconds;
}

}  // namespace cclx::topo
