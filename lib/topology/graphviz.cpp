#include "cclx/topology/graphviz.hpp"

#include <boost/graph/filtered_graph.hpp>
#include <boost/graph/graphviz.hpp>
#include <cstdio>
#include <ostream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace cclx::topo {

std::string cost_label(double alpha, double beta) {
  char buf[96];
  if (beta > 0)
    std::snprintf(buf, sizeof buf, "%.3g us\\n%.3g GB/s", alpha * 1e6, 1e-9 / beta);
  else
    std::snprintf(buf, sizeof buf, "%.3g us\\nunlimited", alpha * 1e6);
  return buf;
}

namespace {

// Which links to draw: one of each same-cost opposite pair (marked `both`), every other link.
struct Drawn {
  std::vector<char> keep, both;
};

Drawn choose(const Topology& t) {
  const Graph& g = t.graph();
  Drawn d{std::vector<char>(t.num_links(), 1), std::vector<char>(t.num_links(), 0)};
  for (std::uint32_t id = 0; id < t.num_links(); ++id) {
    if (!d.keep[id]) continue;
    const EdgeId e = t.edge(id);
    const auto rev = t.find_link(boost::target(e, g), boost::source(e, g));
    if (!rev || *rev == id) continue;
    const Link &a = g[e], &b = t.link(*rev);
    if (a.alpha == b.alpha && a.beta == b.beta && a.kind == b.kind && d.keep[*rev]) {
      d.both[id] = 1;
      d.keep[*rev] = 0;
    }
  }
  return d;
}

// `text` inside a DOT quoted string: quotes and backslashes escaped (a backslash would otherwise
// start one of DOT's label escapes), line breaks as DOT's \n.
std::string dot_escaped(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '"' || c == '\\') out += '\\';
    if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

struct KeepEdge {
  const Graph* g = nullptr;
  const Drawn* d = nullptr;
  bool operator()(const EdgeId& e) const { return d->keep[(*g)[e].id] != 0; }
};

}  // namespace

void write_dot(std::ostream& os, const Topology& t) {
  const Graph& g = t.graph();
  const Drawn d = choose(t);
  const boost::filtered_graph<Graph, KeepEdge> fg(g, KeepEdge{&g, &d});
  auto vertex_writer = [&](std::ostream& out, VertexId v) {
    const Vertex& p = g[v];
    std::string label = dot_escaped(p.name);
    if (p.kind == VertexKind::rank && p.host >= 0)
      label += "\\n" + dot_escaped(t.host_name(p.host));
    const char* shape = p.kind == VertexKind::rank  ? "ellipse"
                        : p.kind == VertexKind::nic ? "box"
                                                    : "diamond";
    out << "[label=\"" << label << "\", shape=" << shape << "]";
  };
  auto edge_writer = [&](std::ostream& out, EdgeId e) {
    const Link& l = g[e];
    out << "[label=\"" << cost_label(l.alpha, l.beta) << "\", tooltip=\"" << to_string(l.kind)
        << "\"" << (d.both[l.id] ? ", dir=both" : "")
        << (l.kind == LinkKind::network ? ", style=bold" : "") << "]";
  };
  auto graph_writer = [](std::ostream& out) {
    out << "graph [overlap=false, fontsize=10];\nnode [fontsize=10];\nedge [fontsize=8];\n";
  };
  boost::write_graphviz(os, fg, vertex_writer, edge_writer, graph_writer);
}

std::string to_dot(const Topology& t) {
  std::ostringstream s;
  write_dot(s, t);
  return s.str();
}

}  // namespace cclx::topo
