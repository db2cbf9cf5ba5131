#include "cclx/topology/topology_json.hpp"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "cclx/error.hpp"
#include "cclx/topology/builders.hpp"

namespace cclx::topo {

using nlohmann::json;

std::string to_json(const Topology& t, int indent) {
  const Graph& g = t.graph();
  json j;
  j["format"] = "cclx-topology";
  j["version"] = 1;
  j["hosts"] = t.host_names();
  json vs = json::array();
  for (const auto v : boost::make_iterator_range(boost::vertices(g))) {
    const Vertex& p = g[v];
    json jv{{"kind", to_string(p.kind)}, {"name", p.name}};
    if (p.kind == VertexKind::rank) {
      jv["rank"] = p.rank;
      jv["ports"] = p.ports;
      if (p.overhead > 0) jv["overhead"] = p.overhead;
    }
    if (p.host >= 0) jv["host"] = p.host;
    vs.push_back(std::move(jv));
  }
  j["vertices"] = std::move(vs);
  json ls = json::array();
  for (std::uint32_t id = 0; id < t.num_links(); ++id) {
    const EdgeId e = t.edge(id);
    const Link& l = g[e];
    ls.push_back({{"from", boost::source(e, g)},
                  {"to", boost::target(e, g)},
                  {"alpha", l.alpha},
                  {"beta", l.beta},
                  {"kind", to_string(l.kind)}});
  }
  j["links"] = std::move(ls);
  return j.dump(indent);
}

namespace {

LinkCost cost_of(const json& j) {
  LinkCost c;
  c.alpha = j.value("alpha", 0.0);
  if (j.contains("beta") && j.contains("bw"))
    throw Error("topology JSON: give beta or bw, not both");
  if (j.contains("bw")) {
    const double bw = j.at("bw").get<double>();
    if (!(bw > 0)) throw Error("topology JSON: bw must be positive");
    c.beta = 1.0 / bw;
  } else {
    c.beta = j.value("beta", 0.0);
  }
  return c;
}

// A rank's per-message overhead in seconds (Vertex::overhead), 0 when absent.
double overhead_of(const json& j) {
  const double o = j.value("overhead", 0.0);
  if (!(o >= 0)) throw Error("topology JSON: overhead must be >= 0");
  return o;
}

Topology from_builder_shape(const json& j) {
  const auto b = j.at("builder").get<std::string>();
  if (b == "full_mesh")
    return full_mesh(j.at("nranks").get<int>(), cost_of(j), j.value("ports", 1));
  if (b == "two_level") {
    Hierarchy h;
    h.intra = cost_of(j.at("intra"));
    h.inter = cost_of(j.at("inter"));
    if (j.contains("pcie")) h.pcie = cost_of(j.at("pcie"));
    h.nics_per_host = j.value("nics_per_host", 1);
    h.ports = j.value("ports", 1);
    if (j.contains("host_inter"))
      for (const auto& c : j.at("host_inter")) h.host_inter.push_back(cost_of(c));
    const auto placement = j.value("placement", std::string("block"));
    if (placement != "block" && placement != "cyclic")
      throw Error("topology JSON: placement must be \"block\" or \"cyclic\", not '" + placement +
                  "'");
    return two_level(j.at("hosts").get<int>(), j.at("ranks_per_host").get<int>(), h,
                     placement == "cyclic" ? Placement::cyclic : Placement::block);
  }
  throw Error("topology JSON: unknown builder '" + b + "'");
}

// Builders: "overhead" applies to every rank.
Topology from_builder(const json& j) {
  Topology t = from_builder_shape(j);
  const double o = overhead_of(j);
  for (int r = 0; r < t.nranks(); ++r) t.set_overhead(r, o);
  return t;
}

Topology from_explicit(const json& j) {
  Topology t;
  if (j.contains("hosts"))
    for (const auto& h : j.at("hosts")) t.add_host(h.get<std::string>());
  const auto& vs = j.at("vertices");
  std::vector<VertexId> ids;
  for (const auto& jv : vs) {
    const VertexKind kind = vertex_kind_from_string(jv.at("kind").get<std::string>());
    const int host = jv.value("host", -1);
    const auto name = jv.value("name", std::string{});
    switch (kind) {
      case VertexKind::rank: {
        if (jv.contains("rank") && jv.at("rank").get<int>() != t.nranks())
          throw Error("topology JSON: rank vertices must be listed in rank order");
        ids.push_back(t.add_rank(host, jv.value("ports", 1)));
        t.set_overhead(t.nranks() - 1, overhead_of(jv));
        break;
      }
      case VertexKind::nic:
        ids.push_back(t.add_nic(host, name));
        break;
      case VertexKind::switch_node:
        ids.push_back(t.add_switch(name));
        break;
    }
  }
  for (const auto& jl : j.at("links")) {
    const auto from = jl.at("from").get<std::size_t>(), to = jl.at("to").get<std::size_t>();
    if (from >= ids.size() || to >= ids.size())
      throw Error("topology JSON: link refers to an unknown vertex");
    const LinkKind kind = link_kind_from_string(jl.value("kind", std::string("direct")));
    if (jl.value("duplex", false))
      t.add_duplex(ids[from], ids[to], cost_of(jl), kind);
    else
      t.add_link(ids[from], ids[to], cost_of(jl), kind);
  }
  return t;
}

}  // namespace

Topology topology_from_json(std::string_view text) {
  try {
    const json j = json::parse(text);
    if (j.contains("builder")) return from_builder(j);
    if (j.contains("format") && j.at("format") != "cclx-topology")
      throw Error("topology JSON: unexpected format " + j.at("format").dump());
    return from_explicit(j);
  } catch (const json::exception& e) {
    throw Error(std::string("topology JSON: ") + e.what());
  }
}

Topology load_topology(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read topology file '" + path + "'");
  std::ostringstream s;
  s << in.rdbuf();
  return topology_from_json(s.str());
}

}  // namespace cclx::topo
