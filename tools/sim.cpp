// cclx-sim: predicts a collective's time with the α-β simulator, for one or many algorithms and
// rank counts, on a full mesh, a two-level machine or a topology from JSON.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/relay/simulate.hpp"
#include "cclx/relay/synthesis.hpp"
#include "cclx/sim/prologue.hpp"
#include "cclx/sim/simulator.hpp"
#include "cclx/topology/builders.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cclx/tune/candidate.hpp"
#include "cclx/tune/override.hpp"
#include "cli.hpp"

namespace {

using cclx::Error;
namespace sched = cclx::sched;
namespace sim = cclx::sim;
namespace topo = cclx::topo;

struct Args {
  std::vector<std::string> algos;
  std::vector<int> ns;
  std::size_t bytes = 0;
  sched::Collective collective = sched::Collective::allreduce;
  int root = 0;
  sched::ParamMap params;
  std::size_t elem_size = 1;
  double alpha = 3e-6, bw = 450e9;
  int ranks_per_host = 0;
  double inter_alpha = 3e-6, inter_bw = 450e9;
  int nics_per_host = 1;
  topo::Placement placement = topo::Placement::block;  // of the two-level machine's ranks
  std::string topology;
  double gamma = 0, copy_gamma = 0;
  int ports = -1;
  double overhead = -1;  // >= 0: every rank's per-message overhead
  sim::Sharing sharing = sim::Sharing::max_min;
  std::vector<std::pair<int, double>> starts;
  std::vector<std::pair<int, double>> late;
  bool hide_prologue = false;
  bool json = false;
  int critical = 3;
  bool critical_path = true;
};

// "R:S,R:S": ranks and times in seconds (--start, --late).
std::vector<std::pair<int, double>> rank_times(const std::vector<std::string>& items,
                                               const std::string& flag) {
  std::vector<std::pair<int, double>> out;
  for (const auto& item : items) {
    const auto c = item.find(':');
    int r = 0;
    double t = 0;
    if (c == std::string::npos || !CLI::detail::lexical_cast(item.substr(0, c), r) ||
        !CLI::detail::lexical_cast(item.substr(c + 1), t))
      throw CLI::ValidationError(flag, "wants RANK:SECONDS, got '" + item + "'");
    out.emplace_back(r, t);
  }
  return out;
}

// The command line into `a`; nullopt to go on, else the exit status.
std::optional<int> parse(int argc, char** argv, Args& a) {
  cclx::kit::App app("cclx-sim",
                     "Predicts a collective's time with the alpha-beta simulator, for one or many "
                     "algorithms and rank counts, on a full mesh, a two-level machine or a "
                     "topology from JSON.");
  cclx::kit::add_list(app, "--algo", a.algos,
                      "generators (cclx::algo::generators()), comma-separated, each a name or "
                      "name(key=value,...) as CCLX_ALGO writes it; also `synth` (trees "
                      "synthesized on the topology, relay/synthesis.hpp) and `par_trees` (the "
                      "same without the simulator-driven search); their --param keys: "
                      "max_trees, chunk_bytes, max_transfers, relay (relay/synthesis.hpp; "
                      "relay is on by default with --late), plan (with --late: the index of "
                      "sched::partial_relay_plan: 0 the relay trees, 1.. the subset plans of "
                      "sched::kSubsetAlgorithms, then the owner plan; -1 the cheapest as "
                      "algo::Adaptive picks it)")
      ->required();
  cclx::kit::add_list(app, "--n", a.ns,
                      "rank counts, comma-separated (ignored with --topology: its rank count)",
                      ',');
  app.add_option("--bytes", a.bytes, "message size (cclx/byte_size.hpp: 8, 64K, 1.5M, 1G)")
      ->transform(cclx::kit::ByteSize{})
      ->required();
  cclx::kit::add_collective(app, "--collective", a.collective,
                            "allreduce (default), reduce, bcast, reduce_scatter, allgather, "
                            "alltoall");
  app.add_option("--root", a.root, "root of reduce / bcast (default 0)");
  std::vector<std::string> params;
  cclx::kit::add_list(app, "--param", params, "generator parameter KEY=VALUE (repeatable)");
  app.add_option("--elem-size", a.elem_size,
                 "element size; blocks are cut at element boundaries (default 1; --bytes is a "
                 "whole number of elements)")
      ->transform(cclx::kit::ByteSize{})
      ->check(cclx::kit::Positive{});
  auto* topology = app.add_option_group("topology",
                                        "default: full mesh with --alpha / --bw on "
                                        "every link");
  topology->add_option("--alpha", a.alpha, "link latency in seconds (default 3e-6)")
      ->check(cclx::kit::NonNegative{});
  topology
      ->add_option("--bw", a.bw,
                   "link bandwidth in bytes per second (default 450e9; 0 = unlimited)")
      ->check(cclx::kit::NonNegative{});
  topology
      ->add_option("--ranks-per-host", a.ranks_per_host,
                   "two-level machine: hosts of K ranks linked by --alpha/--bw inside, and "
                   "a NIC per host (--nics-per-host) with --inter-alpha and --inter-bw to a "
                   "non-blocking switch")
      ->check(cclx::kit::Positive{});
  topology->add_option("--inter-alpha", a.inter_alpha, "NIC latency in seconds")
      ->check(cclx::kit::NonNegative{});
  topology
      ->add_option("--inter-bw", a.inter_bw, "NIC bandwidth in bytes per second (0 = unlimited)")
      ->check(cclx::kit::NonNegative{});
  topology->add_option("--nics-per-host", a.nics_per_host, "(default 1)")
      ->check(cclx::kit::Positive{});
  cclx::kit::add_choice(*topology, "--placement", a.placement,
                        {{"block", topo::Placement::block}, {"cyclic", topo::Placement::cyclic}},
                        "the two-level machine's ranks: block (default; rank r on host r / K) or "
                        "cyclic (rank r on host r mod hosts, as `mpirun --map-by node` places "
                        "them)");
  topology->add_option("--topology", a.topology,
                       "topology JSON (see include/cclx/topology/topology_json.hpp)");
  auto* model = app.add_option_group("model");
  model->add_option("--gamma", a.gamma, "cost of reductions in seconds per byte (default 0)")
      ->check(cclx::kit::NonNegative{});
  model->add_option("--copy-gamma", a.copy_gamma, "cost of copies in seconds per byte")
      ->check(cclx::kit::NonNegative{});
  model
      ->add_option("--ports", a.ports,
                   "messages a rank may send (and receive) at once; 0 = unlimited (default: the "
                   "topology file's, 1 on --n's machines)")
      ->check(cclx::kit::NonNegative{});
  model
      ->add_option("--overhead", a.overhead,
                   "every rank's per-message overhead in seconds (LogP's o, serialized on the "
                   "rank; overrides the topology's, see sim/simulator.hpp)")
      ->check(cclx::kit::NonNegative{});
  cclx::kit::add_choice(*model, "--sharing", a.sharing,
                        {{"maxmin", sim::Sharing::max_min}, {"equal", sim::Sharing::equal}},
                        "bandwidth sharing on shared links (default maxmin)");
  std::vector<std::string> starts, late;
  cclx::kit::add_list(*model, "--start", starts,
                      "R:S[,R:S...]: rank R starts at time S (a "
                      "straggler)",
                      ',');
  cclx::kit::add_list(*model, "--late", late,
                      "R:S[,R:S...]: rank R's data is ready at time S: synth / par_trees run as "
                      "relay collectives (phase 1 without R, phase 2 folds it in; "
                      "relay/simulate.hpp), the other algorithms wait for it (as --start)",
                      ',');
  model->add_flag("--hide-prologue", a.hide_prologue,
                  "ranks idle in the prologue (StragglAR's straggler) arrive exactly when it "
                  "ends; report the time after it");
  auto* output = app.add_option_group("output");
  output->add_flag("--json", a.json, "one JSON document (array of runs) on stdout");
  output
      ->add_option("--critical", a.critical,
                   "print the first and last K critical-path items (text; default 3); JSON "
                   "holds the whole path unless --no-critical-path")
      ->check(cclx::kit::NonNegative{});
  output->add_flag("--no-critical-path{false}", a.critical_path,
                   "do not record the critical path (saves memory at large scale)");
  app.callback([&] {
    std::vector<std::string> algos;  // split at the commas outside parentheses
    for (const auto& v : a.algos)
      for (const auto item : cclx::tune::split_top_level(v, ',')) algos.emplace_back(item);
    a.algos = std::move(algos);
    for (const auto& kv : params) {
      const auto eq = kv.find('=');
      long long v = 0;
      if (eq == std::string::npos || !CLI::detail::lexical_cast(kv.substr(eq + 1), v))
        throw CLI::ValidationError("--param", "wants KEY=VALUE, got '" + kv + "'");
      a.params[kv.substr(0, eq)] = v;
    }
    a.starts = rank_times(starts, "--start");
    a.late = rank_times(late, "--late");
    if (a.topology.empty() && a.ns.empty()) throw CLI::RequiredError("--n (without --topology)");
    if (a.bytes % a.elem_size != 0)
      throw CLI::ValidationError("--bytes", std::to_string(a.bytes) + " is not a whole number of " +
                                                std::to_string(a.elem_size) + "-byte elements");
  });
  return cclx::kit::parse(app, argc, argv, true, 1);
}

std::string_view kind_name(sim::PathItem::Kind k) {
  switch (k) {
    case sim::PathItem::Kind::start:
      return "start";
    case sim::PathItem::Kind::transfer:
      return "transfer";
    case sim::PathItem::Kind::local:
      return "local";
  }
  return "?";
}

std::string describe(const sim::PathItem& p) {
  char buf[160];
  if (p.kind == sim::PathItem::Kind::transfer)
    std::snprintf(buf, sizeof buf, "step %u: r%d -> r%d %zu B  [%.6g, %.6g] ms", p.step, p.rank,
                  p.peer, p.bytes, p.start * 1e3, p.end * 1e3);
  else if (p.kind == sim::PathItem::Kind::local)
    std::snprintf(buf, sizeof buf, "step %u: r%d local op %zu B  [%.6g, %.6g] ms", p.step, p.rank,
                  p.bytes, p.start * 1e3, p.end * 1e3);
  else
    std::snprintf(buf, sizeof buf, "r%d starts at %.6g ms", p.rank, p.start * 1e3);
  return buf;
}

struct Machine {
  std::unique_ptr<topo::Topology> t;
  std::unique_ptr<sim::Simulator> sim;
  nlohmann::json desc;
};

Machine machine_for(const Args& a, int n) {
  Machine m;
  if (!a.topology.empty()) {
    m.t = std::make_unique<topo::Topology>(topo::load_topology(a.topology));
    m.desc = {{"kind", "file"}, {"path", a.topology}};
  } else if (a.ranks_per_host > 0) {
    if (n % a.ranks_per_host != 0)
      throw Error(std::to_string(n) + " ranks do not fill hosts of " +
                  std::to_string(a.ranks_per_host));
    topo::Hierarchy h;
    h.intra = topo::LinkCost::from_bandwidth(a.alpha, a.bw);
    h.inter = topo::LinkCost::from_bandwidth(a.inter_alpha, a.inter_bw);
    h.nics_per_host = a.nics_per_host;
    const int hosts = n / a.ranks_per_host;
    m.t =
        std::make_unique<topo::Topology>(topo::two_level(hosts, a.ranks_per_host, h, a.placement));
    m.desc = {{"kind", "two_level"},
              {"hosts", hosts},
              {"ranks_per_host", a.ranks_per_host},
              {"intra_alpha", a.alpha},
              {"intra_bw", a.bw},
              {"inter_alpha", a.inter_alpha},
              {"inter_bw", a.inter_bw},
              {"nics_per_host", a.nics_per_host}};
    if (a.placement == topo::Placement::cyclic) m.desc["placement"] = "cyclic";
  } else {
    m.t = std::make_unique<topo::Topology>(
        topo::full_mesh(n, topo::LinkCost::from_bandwidth(a.alpha, a.bw)));
    m.desc = {{"kind", "full_mesh"}, {"alpha", a.alpha}, {"bw", a.bw}};
  }
  if (a.overhead >= 0) {
    for (int r = 0; r < m.t->nranks(); ++r) m.t->set_overhead(r, a.overhead);
    m.desc["overhead"] = a.overhead;
  }
  m.sim = std::make_unique<sim::Simulator>(*m.t);
  return m;
}

nlohmann::json run_one(const Args& a, const Machine& m, const std::string& algo, int n) {
  nlohmann::json j{{"algorithm", algo},
                   {"collective", sched::to_string(a.collective)},
                   {"nranks", n},
                   {"bytes", a.bytes},
                   {"topology", m.desc}};
  sched::ScheduleRequest req;
  req.collective = a.collective;
  req.nranks = n;
  req.root = a.root;
  req.bytes = a.bytes;
  // The topology's hosts, for the hierarchical generators (a rank tied to no host is its own).
  std::vector<int> hosts;
  for (int r = 0; r < n; ++r)
    hosts.push_back(m.t->host_of(r) >= 0 ? m.t->host_of(r) : m.t->nhosts() + r);
  req.hosts = hosts;
  const auto t0 = std::chrono::steady_clock::now();
  const bool trees = algo == "synth" || algo == "par_trees";
  sched::TreeSet ts;
  sched::Schedule s;
  int plan = 0;  // with --late: the relay plan (RelayModel::phases); -1 the runtime's choice
  if (trees) {
    sched::SynthesisOptions so;
    so.search = algo == "synth";
    so.relay = !a.late.empty();  // --late: trees scored for relays (--param relay=0 overrides)
    for (const auto& [key, value] : a.params) {
      if (key == "max_trees")
        so.max_trees = static_cast<int>(value);
      else if (key == "chunk_bytes")
        so.chunk_bytes = static_cast<std::size_t>(value);
      else if (key == "max_transfers")
        so.max_transfers = static_cast<std::size_t>(value);
      else if (key == "relay")
        so.relay = value != 0;
      else if (key == "plan")
        plan = static_cast<int>(value);
      else
        throw Error(std::string(algo)
                        .append(" has no parameter '")
                        .append(key)
                        .append("' (max_trees, chunk_bytes, max_transfers, relay)"));
    }
    ts = sched::synthesize_trees(*m.t, a.collective, a.bytes, a.root, so);
    s = sched::tree_schedule(ts, req);
    j["trees"] = ts.describe();
  } else {
    // "ring" or "multilane_rhd(pipeline=4)": its own parameters over --param's.
    const auto c = cclx::tune::parse_candidate(algo);
    sched::ParamMap params = a.params;
    for (const auto& [key, value] : c.params) params[key] = value;
    s = cclx::algo::generate_by_name(c.algorithm, req, params);
  }
  const auto t1 = std::chrono::steady_clock::now();

  sim::SimOptions o;
  o.bytes = a.bytes;
  o.elem_size = a.elem_size;
  o.gamma = a.gamma;
  o.copy_gamma = a.copy_gamma;
  o.ports = a.ports;
  o.sharing = a.sharing;
  o.critical_path = a.critical_path;
  if (!a.starts.empty() || !a.late.empty()) {
    o.start_time.assign(static_cast<std::size_t>(n), 0.0);
    for (const auto* list : {&a.starts, &a.late})
      for (const auto& [r, t] : *list) {
        if (r < 0 || r >= n)
          throw Error("--start/--late: rank " + std::to_string(r) + " out of range");
        o.start_time[static_cast<std::size_t>(r)] = t;
      }
  }
  sim::HiddenPrologue h;
  if (trees && !a.late.empty()) {
    std::vector<bool> active(static_cast<std::size_t>(n), true);
    for (const auto& [r, t] : a.late) active[static_cast<std::size_t>(r)] = false;
    sched::RelayPlan p;
    if (plan < 0) {  // what algo::Adaptive's model picks (every late rank ready now)
      cclx::algo::Adaptive ad;
      ad.topology = std::make_shared<const topo::Topology>(*m.t);
      const auto model = cclx::algo::relay_model(ad, req, a.elem_size);
      plan = model->choose(active).plan;
      const auto ph = model->phases(active, -1, plan);
      p = {*ph.phase1, *ph.phase2};
    } else {
      p = sched::partial_relay_plan(plan, ts, req, active);
    }
    j["plan"] = plan;
    j["plan_name"] = sched::partial_relay_plan_name(req.collective, plan);
    const auto rt = sim::simulate_relay(*m.sim, p, active, o);
    h.result = rt.phase2;
    h.result.time = rt.time;
    h.result.rounds += rt.phase1.rounds;
    h.result.transfers += rt.phase1.transfers;
    h.after_prologue = rt.time;
    j["phase1_s"] = rt.phase1_end;
  } else if (a.hide_prologue) {
    h = sim::simulate_hidden_prologue(*m.sim, s, o);
  } else {
    h.result = m.sim->run(s, o);
    h.prologue_end = h.result.prologue_end;
    h.after_prologue = h.result.time - h.prologue_end;
  }
  const auto t2 = std::chrono::steady_clock::now();
  const sim::SimResult& r = h.result;
  j["params"] = s.params;
  j["rounds"] = r.rounds;
  j["prologue_steps"] = r.prologue_steps;
  j["time_s"] = r.time;
  j["prologue_end_s"] = h.prologue_end;
  j["after_prologue_s"] = h.after_prologue;
  j["hide_prologue"] = a.hide_prologue;
  j["late_ranks"] = h.late_ranks;
  j["transfers"] = r.transfers;
  j["events"] = r.events;
  j["rate_updates"] = r.rate_updates;
  j["generate_wall_s"] = std::chrono::duration<double>(t1 - t0).count();
  j["simulate_wall_s"] = std::chrono::duration<double>(t2 - t1).count();
  j["rank_end_s"] = r.rank_end;
  auto path = nlohmann::json::array();
  for (const auto& p : r.critical_path)
    path.push_back({{"kind", kind_name(p.kind)},
                    {"rank", p.rank},
                    {"peer", p.peer},
                    {"step", p.step},
                    {"start_s", p.start},
                    {"end_s", p.end},
                    {"bytes", p.bytes}});
  j["critical_path"] = std::move(path);
  return j;
}

void print_text(const Args& a, const nlohmann::json& j) {
  if (j.contains("error")) {
    std::printf("%-12s n=%-5d error: %s\n", j["algorithm"].get<std::string>().c_str(),
                j["nranks"].get<int>(), j["error"].get<std::string>().c_str());
    return;
  }
  std::printf("%-12s n=%-5d rounds=%-5zu time=%.6g ms", j["algorithm"].get<std::string>().c_str(),
              j["nranks"].get<int>(), j["rounds"].get<std::size_t>(),
              j["time_s"].get<double>() * 1e3);
  if (j["prologue_steps"].get<int>() > 0)
    std::printf("  prologue=%d steps, ends %.6g ms, after it %.6g ms",
                j["prologue_steps"].get<int>(), j["prologue_end_s"].get<double>() * 1e3,
                j["after_prologue_s"].get<double>() * 1e3);
  if (j.contains("phase1_s"))
    std::printf("  relay: phase 1 ends %.6g ms", j["phase1_s"].get<double>() * 1e3);
  std::printf("  (%llu transfers, simulated in %.3f s)\n",
              static_cast<unsigned long long>(j["transfers"].get<std::uint64_t>()),
              j["simulate_wall_s"].get<double>());
  if (j.contains("trees")) std::printf("  trees: %s\n", j["trees"].get<std::string>().c_str());
  const auto& path = j["critical_path"];
  if (path.empty() || a.critical <= 0) return;
  std::size_t transfers = 0, locals = 0;
  for (const auto& p : path) (p["kind"] == "transfer" ? transfers : locals) += 1;
  std::printf("  critical path: %zu transfers, %zu others; ends on rank %d\n", transfers, locals,
              path.back()["kind"] == "transfer" ? path.back()["peer"].get<int>()
                                                : path.back()["rank"].get<int>());
  auto show = [&](std::size_t i) {
    const auto& p = path[i];
    sim::PathItem it;
    const auto k = p["kind"].get<std::string>();
    it.kind = k == "transfer" ? sim::PathItem::Kind::transfer
              : k == "local"  ? sim::PathItem::Kind::local
                              : sim::PathItem::Kind::start;
    it.rank = p["rank"];
    it.peer = p["peer"];
    it.step = p["step"];
    it.start = p["start_s"];
    it.end = p["end_s"];
    it.bytes = p["bytes"];
    std::printf("    %s\n", describe(it).c_str());
  };
  const auto k = static_cast<std::size_t>(a.critical);
  for (std::size_t i = 0; i < path.size(); ++i) {
    if (i == k && path.size() > 2 * k) {
      std::printf("    ... %zu more ...\n", path.size() - 2 * k);
      i = path.size() - k;
    }
    show(i);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  if (const auto rc = parse(argc, argv, a)) return *rc;
  try {
    std::vector<int> ns = a.ns;
    if (!a.topology.empty()) ns = {topo::load_topology(a.topology).nranks()};
    auto runs = nlohmann::json::array();
    for (const int n : ns) {
      const Machine m = machine_for(a, n);
      for (const auto& algo : a.algos) {
        nlohmann::json j;
        try {
          j = run_one(a, m, algo, n);
        } catch (const Error& e) {
          // One unsupported combination (e.g. a power-of-two-only algorithm) must not stop a sweep.
          j = {{"algorithm", algo}, {"nranks", n}, {"error", e.what()}};
        }
        if (!a.json) {
          print_text(a, j);
          std::fflush(stdout);
        }
        runs.push_back(std::move(j));
      }
    }
    if (a.json) std::cout << runs.dump(1) << '\n';
    for (const auto& j : runs)
      if (j.contains("error")) return 2;
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cclx-sim: %s\n", e.what());
    return 1;
  }
}
