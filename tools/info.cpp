// cclx-info: what this cclx is and how it is configured, as Open MPI's ompi_info and UCC's
// ucc_info do for theirs: the build (MPI library and version, MPI standard, CUDA backend, cclx
// version), every algorithm of the registry with its parameters and the collectives it serves,
// and every CCLX_* setting (cclx/settings.hpp) with its effective value and where it came from.
//
//   cclx-info                          everything, as text
//   cclx-info --settings               one section (--build, --algorithms, --settings combine)
//   cclx-info --json                   the same as JSON
//   cclx-info --settings --markdown    the settings table of docs/environment.md (no MPI)
//
// Runs as a singleton (MPI_Init without mpiexec) or under mpiexec, where rank 0 prints. Exit
// status 1 when a setting in the environment does not parse (each is printed with its error), 2 on
// a bad command line.
#include <mpi.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "cclx/algo/by_name.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/device/cuda_aware.hpp"
#include "cclx/schedule/generate.hpp"
#include "cclx/settings.hpp"
#include "cclx/version.hpp"
#include "cli.hpp"

namespace {

using namespace cclx;
using nlohmann::json;

// ---- build ----

struct Build {
  std::string cclx_version = CCLX_VERSION;
  std::string mpi_library;  // MPI_Get_library_version, first line
  std::string mpi_standard;
  bool cuda = CCLX_INFO_WITH_CUDA;
  std::string mpi_cuda_support;  // what the MPI reports: yes, no, unknown
  int processes = 1;
};

Build build_info() {
  Build b;
  char version[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int len = 0;
  MPI_Get_library_version(version, &len);
  b.mpi_library = std::string(version, static_cast<std::size_t>(len));
  if (const auto nl = b.mpi_library.find('\n'); nl != std::string::npos) b.mpi_library.resize(nl);
  std::string collapsed;  // "MPICH Version:\t4.0.2" -> "MPICH Version: 4.0.2"
  for (char c : b.mpi_library)
    if (!(c == ' ' || c == '\t') || (!collapsed.empty() && collapsed.back() != ' '))
      collapsed += c == '\t' ? ' ' : c;
  while (!collapsed.empty() && collapsed.back() == ' ') collapsed.pop_back();
  b.mpi_library = collapsed;
  int major = 0, minor = 0;
  MPI_Get_version(&major, &minor);
  b.mpi_standard = std::to_string(major) + "." + std::to_string(minor);
  const auto cuda = device::mpi_reports_cuda_support();
  b.mpi_cuda_support = cuda ? (*cuda ? "yes" : "no") : "unknown (no query)";
  MPI_Comm_size(MPI_COMM_WORLD, &b.processes);
  return b;
}

// ---- algorithms: the registry, with each policy's field defaults ----

struct Algorithm {
  std::string name;
  std::vector<std::string> collectives, keeps_rank_order, canonical_order;
  std::vector<std::pair<std::string, std::string>> params;  // name, default
};

// "0 (in [0, inf))": a parameter's default and range, as the registry's policy declares them.
std::string default_and_range(const sched::ParamInfo& p) {
  const auto bound = [](long long v) {
    return v == algo::kUnbounded ? std::string("inf") : std::to_string(v);
  };
  return std::to_string(p.default_value) + " (in [" + bound(p.min) + ", " + bound(p.max) + "])";
}

std::vector<Algorithm> algorithms() {
  std::vector<Algorithm> all;
  all.push_back(
      {"native", {"every collective (the MPI library's own)"}, {"every collective"}, {}, {}});
  for (const auto& g : cclx::algo::generators()) {
    Algorithm a;
    a.name = g.name;
    for (auto c : g.collectives) a.collectives.emplace_back(sched::to_string(c));
    for (auto c : g.keeps_rank_order) a.keeps_rank_order.emplace_back(sched::to_string(c));
    for (auto c : g.canonical_order)
      a.canonical_order.emplace_back(
          std::string(sched::to_string(c)) +
          (g.canonical_ranks.empty() ? "" : " (" + g.canonical_ranks + ")"));
    for (const auto& p : g.params) a.params.emplace_back(p.name, default_and_range(p));
    all.push_back(std::move(a));
  }
  return all;
}

std::string join(const std::vector<std::string>& v, std::string_view sep = ", ") {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : std::string(sep)) + x;
  return s;
}

// ---- settings ----

std::string shown(std::string_view text) {
  return text.empty() ? "(unset)" : std::string(text);
}

bool any_bad() {
  for (const auto& s : settings::table())
    if (!settings::value(s.id).error.empty()) return true;
  return false;
}

// The Markdown table of docs/environment.md: from the table alone, not the environment.
std::string markdown() {
  const auto cell = [](std::string_view s) {
    std::string out;
    for (char c : s) {
      if (c == '|' || c == '*')
        out += std::string("\\") + c;
      else if (c == '<')
        out += "&lt;";
      else if (c == '>')
        out += "&gt;";
      else
        out += c;
    }
    return out;
  };
  std::ostringstream o;
  o << "| variable | type | default | accepts | effect |\n|---|---|---|---|---|\n";
  for (const auto& s : settings::table())
    o << "| `" << s.name << "` | " << settings::to_string(s.type) << " | "
      << (s.default_text.empty() ? std::string("unset") : "`" + std::string(s.default_text) + "`")
      << " | " << cell(s.accepts) << " | " << cell(s.doc) << " |\n";
  return o.str();
}

// ---- output ----

struct Sections {
  bool build = false, algorithms = false, settings = false;
};

void print_text(const Sections& want, const Build* b) {
  if (want.build && b) {
    std::printf("Build\n");
    std::printf("  cclx version:       %s\n", b->cclx_version.c_str());
    std::printf("  MPI library:        %s\n", b->mpi_library.c_str());
    std::printf("  MPI standard:       %s\n", b->mpi_standard.c_str());
    std::printf("  CUDA backend:       %s\n", b->cuda ? "on" : "off");
    std::printf("  MPI CUDA support:   %s\n", b->mpi_cuda_support.c_str());
    std::printf("  MPI processes:      %d\n", b->processes);
  }
  if (want.algorithms) {
    std::printf("%sAlgorithms (CCLX_ALGO names; parameters with their defaults)\n",
                want.build ? "\n" : "");
    for (const auto& a : algorithms()) {
      std::printf("  %s\n", a.name.c_str());
      std::printf("    collectives:      %s\n", join(a.collectives).c_str());
      std::printf("    keeps rank order: %s\n",
                  a.keeps_rank_order.empty() ? "-" : join(a.keeps_rank_order).c_str());
      std::printf("    canonical order:  %s\n",
                  a.canonical_order.empty() ? "-" : join(a.canonical_order).c_str());
      std::string params;
      for (const auto& [p, d] : a.params) params += (params.empty() ? "" : ", ") + p + "=" + d;
      std::printf("    parameters:       %s\n", params.empty() ? "-" : params.c_str());
    }
  }
  if (want.settings) {
    std::printf("%sSettings (name = effective value [source])\n",
                want.build || want.algorithms ? "\n" : "");
    for (const auto& s : settings::table()) {
      const settings::Value v = settings::value(s.id);
      std::printf("  %s = %s [%s]\n", std::string(s.name).c_str(), shown(v.text).c_str(),
                  std::string(settings::to_string(v.source)).c_str());
      std::printf("      %s, default %s: %s\n", std::string(settings::to_string(s.type)).c_str(),
                  shown(s.default_text).c_str(), std::string(s.accepts).c_str());
      std::printf("      %s\n", std::string(s.doc).c_str());
      if (!v.error.empty()) std::printf("      error: %s\n", v.error.c_str());
    }
  }
}

json to_json(const Sections& want, const Build* b) {
  json j = json::object();
  if (want.build && b)
    j["build"] = {{"cclx_version", b->cclx_version},         {"mpi_library", b->mpi_library},
                  {"mpi_standard", b->mpi_standard},         {"cuda", b->cuda},
                  {"mpi_cuda_support", b->mpi_cuda_support}, {"mpi_processes", b->processes}};
  if (want.algorithms) {
    j["algorithms"] = json::array();
    for (const auto& a : algorithms()) {
      json params = json::object();
      for (const auto& [p, d] : a.params) params[p] = d;
      j["algorithms"].push_back({{"name", a.name},
                                 {"collectives", a.collectives},
                                 {"keeps_rank_order", a.keeps_rank_order},
                                 {"canonical_order", a.canonical_order},
                                 {"parameters", params}});
    }
  }
  if (want.settings) {
    j["settings"] = json::array();
    for (const auto& s : settings::table()) {
      const settings::Value v = settings::value(s.id);
      json e = {{"name", s.name},
                {"type", settings::to_string(s.type)},
                {"default", s.default_text},
                {"accepts", s.accepts},
                {"doc", s.doc},
                {"value", v.text},
                {"source", settings::to_string(v.source)}};
      if (!v.error.empty()) e["error"] = v.error;
      j["settings"].push_back(std::move(e));
    }
  }
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  cclx::kit::App app("cclx-info",
                     "The build, the algorithms and the CCLX_* settings of this cclx (all three "
                     "unless one or more is chosen).");
  Sections want;
  bool as_json = false, as_markdown = false;
  app.add_flag("--build", want.build, "the cclx version, the MPI library and standard, CUDA");
  app.add_flag("--algorithms", want.algorithms,
               "every algorithm: the collectives it serves, its parameters and their defaults");
  app.add_flag("--settings", want.settings,
               "every CCLX_* variable: effective value, source (default or environment), type, "
               "accepted values");
  auto* json_opt = app.add_flag("--json", as_json, "print JSON instead of text");
  app.add_flag("--markdown", as_markdown,
               "with --settings: the Markdown table of docs/environment.md (from the table, not "
               "the environment)")
      ->excludes(json_opt);
  // Before MPI_Init: --markdown needs no MPI (under mpiexec every rank reports a bad command line).
  if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
  if (!want.build && !want.algorithms && !want.settings) want = {true, true, true};

  if (as_markdown) {
    if (!want.settings || want.build || want.algorithms) {
      std::cerr
          << "cclx-info: --markdown prints the settings table: use it with --settings alone\n";
      return 2;
    }
    std::cout << markdown();
    return 0;
  }

  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const bool bad = any_bad();
  if (rank == 0) {
    const Build b = want.build ? build_info() : Build{};
    if (as_json)
      std::cout << to_json(want, &b).dump(2) << "\n";
    else
      print_text(want, &b);
    std::fflush(stdout);
    if (bad)
      for (const auto& s : settings::table())
        if (const auto v = settings::value(s.id); !v.error.empty())
          std::cerr << "cclx-info: " << v.error << "\n";
  }
  MPI_Finalize();
  return bad ? 1 : 0;
}
