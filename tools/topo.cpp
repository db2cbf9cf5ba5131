// cclx-topo: detects hosts, profiles α and β of every rank pair, prints them and the CCLX_NET_*
// settings of the network between hosts, and writes the resulting topology as JSON, GraphViz and
// (when GraphViz's `dot` is installed) PNG.
//   mpiexec -n N cclx-topo [--json out.json] [--dot out.dot] [--png out.png] [--budget-s 2]
#include <mpi.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cclx/detail/median.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "cclx/topology/detect.hpp"
#include "cclx/topology/graphviz.hpp"
#include "cclx/topology/profiler.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cli.hpp"

extern char** environ;

namespace {

using cclx::Error;
namespace topo = cclx::topo;

struct Args {
  std::string json, dot, png;
  topo::ProfileOptions prof;
};

// The command line into `a`; nullopt to go on, else the exit status (rank 0 prints).
std::optional<int> parse(int argc, char** argv, Args& a, bool print) {
  std::size_t max_bytes = 4 << 20;
  cclx::kit::App app("cclx-topo",
                     "Detects hosts, profiles alpha and beta of every rank pair, prints them and "
                     "writes the resulting topology as JSON, GraphViz and (when GraphViz's `dot` "
                     "is installed) PNG. Run under mpiexec.");
  app.add_option("--json", a.json, "write the topology JSON here");
  app.add_option("--dot", a.dot, "write the GraphViz graph here");
  app.add_option("--png", a.png, "render the graph to this PNG (needs `dot`)");
  app.add_option("--budget-s", a.prof.budget_s,
                 "time allowed for all probe rounds in seconds (default 2)");
  app.add_option("--max-bytes", max_bytes,
                 "largest probe message (default 4M; sizes 8 B .. B, cclx/byte_size.hpp)")
      ->transform(cclx::kit::ByteSize{});
  app.add_option("--min-reps", a.prof.min_reps, "fewest repetitions per probe");
  app.add_option("--max-reps", a.prof.max_reps, "most repetitions per probe");
  app.add_option("--burst", a.prof.burst,
                 "messages per rank in the per-message overhead probe (default 256; 0: none)");
  if (const auto rc = cclx::kit::parse(app, argc, argv, print, 1)) return rc;
  // Sizes: 8 B, then powers of 8 from 1 KiB up to max_bytes (at least two sizes).
  a.prof.sizes = {8};
  for (std::size_t s = 1024; s < max_bytes; s *= 8) a.prof.sizes.push_back(s);
  if (max_bytes > 8) a.prof.sizes.push_back(max_bytes);
  if (a.prof.sizes.size() < 2) {
    if (print) std::fprintf(stderr, "cclx-topo: --max-bytes must exceed 8\n");
    return 1;
  }
  return std::nullopt;
}

// Path of an executable found in $PATH, or empty.
std::string find_in_path(const std::string& exe) {
  const char* path = std::getenv("PATH");
  if (!path) return {};
  std::stringstream dirs(path);
  for (std::string d; std::getline(dirs, d, ':');) {
    const std::string p = (d.empty() ? "." : d) + "/" + exe;
    if (::access(p.c_str(), X_OK) == 0) return p;
  }
  return {};
}

// Runs `dot -Tpng in -o out` without a shell; returns false when it did not succeed.
bool render_png(const std::string& dot_file, const std::string& png) {
  const std::string dot = find_in_path("dot");
  if (dot.empty()) return false;
  std::vector<std::string> args = {dot, "-Tpng", dot_file, "-o", png};
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (::posix_spawn(&pid, dot.c_str(), nullptr, nullptr, argv.data(), environ) != 0) return false;
  int status = 0;
  if (::waitpid(pid, &status, 0) != pid) return false;
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw Error("cannot write '" + path + "'");
}

// The settings that tell algo::Auto's model this network (docs/tuning.md): the medians of the
// pairs between hosts (a pair's probe runs alone, so it sees one link), and the links probe's
// links per host where it ran.
void print_network(const topo::HostMap& hosts, const topo::Profile& p) {
  std::vector<double> alpha, bandwidth;
  for (const auto& pp : p.pairs)
    if (hosts.host_of_rank[static_cast<std::size_t>(pp.a)] !=
        hosts.host_of_rank[static_cast<std::size_t>(pp.b)]) {
      alpha.push_back(pp.fit.alpha);
      bandwidth.push_back(pp.fit.bandwidth());
    }
  if (alpha.empty()) return;
  std::printf("algo::Auto's network (medians of %zu pairs between hosts; links per host: %s):\n",
              alpha.size(),
              p.links_per_host > 0 ? "the first host's ranks sending at once"
                                   : "not measured, the first two hosts need two ranks each");
  std::printf("  CCLX_NET_LATENCY=%.3g CCLX_NET_BANDWIDTH=%s",
              std::max(cclx::detail::median(alpha), 0.0),
              cclx::settings::format_rate(cclx::detail::median(bandwidth)).c_str());
  if (p.links_per_host > 0) std::printf(" CCLX_NET_LINKS=%d", p.links_per_host);
  std::printf("\n");
}

void report(const Args& a, const topo::HostMap& hosts, const topo::Profile& p) {
  std::printf("cclx-topo: %d ranks on %zu host(s), %d interference-free rounds, %.3f s\n", p.nranks,
              hosts.host_names.size(), p.rounds, p.elapsed_s);
  std::printf("  per-message overhead, every rank busy: %.3f us\n", p.overhead_s * 1e6);
  for (std::size_t h = 0; h < hosts.host_names.size(); ++h) {
    std::printf("  host %zu %s: ranks", h, hosts.host_names[h].c_str());
    for (std::size_t r = 0; r < hosts.host_of_rank.size(); ++r)
      if (hosts.host_of_rank[r] == static_cast<int>(h)) std::printf(" %zu", r);
    std::printf("\n");
  }
  std::printf("%-10s %-6s %10s %16s %12s %12s %6s\n", "pair", "where", "alpha(us)",
              "bandwidth(GB/s)", "resid(us)", "resid(rel)", "reps");
  for (const auto& pp : p.pairs) {
    const bool same = hosts.host_of_rank[static_cast<std::size_t>(pp.a)] ==
                      hosts.host_of_rank[static_cast<std::size_t>(pp.b)];
    char pair[32];
    std::snprintf(pair, sizeof pair, "%d-%d", pp.a, pp.b);
    std::printf("%-10s %-6s %10.3f %16.3f %12.3f %12.4f %6d\n", pair, same ? "intra" : "inter",
                pp.fit.alpha * 1e6, pp.fit.bandwidth() * 1e-9, pp.fit.rms_residual * 1e6,
                pp.fit.rel_residual, pp.reps);
  }
  print_network(hosts, p);
  const topo::Topology t = topo::topology_from_profile(hosts, p);
  if (!a.json.empty()) {
    write_file(a.json, topo::to_json(t));
    std::printf("wrote %s\n", a.json.c_str());
  }
  std::string dot_file = a.dot;
  if (dot_file.empty() && !a.png.empty()) dot_file = a.png + ".dot";
  if (!dot_file.empty()) {
    write_file(dot_file, topo::to_dot(t));
    if (!a.dot.empty()) std::printf("wrote %s\n", a.dot.c_str());
  }
  if (!a.png.empty()) {
    if (render_png(dot_file, a.png))
      std::printf("wrote %s\n", a.png.c_str());
    else
      std::printf("no PNG: GraphViz 'dot' is not installed or failed (the .dot file is %s)\n",
                  dot_file.c_str());
    if (a.dot.empty()) std::remove(dot_file.c_str());
  }
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Args a;
  if (const auto usage_rc = parse(argc, argv, a, rank == 0)) {
    MPI_Finalize();
    return *usage_rc;
  }
  int rc = 0;
  try {
    const topo::HostMap hosts = topo::detect_hosts(MPI_COMM_WORLD);
    a.prof.hosts = hosts.host_of_rank;  // one probe per host link at a time
    const topo::Profile p = topo::profile_links(MPI_COMM_WORLD, a.prof);
    if (rank == 0) report(a, hosts, p);
  } catch (const std::exception& e) {
    if (rank == 0) std::fprintf(stderr, "cclx-topo: %s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
