// cclx-schedule: generate a schedule by algorithm name, print it (text or JSON), verify it and
// report its cost. For debugging generators and for producing schedules for docs and plots.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/format.hpp"
#include "cclx/schedule/verifier.hpp"
#include "cli.hpp"

namespace {

using namespace cclx::sched;

struct Options {
  std::string algo;
  ScheduleRequest req;
  long long count = -1, elem_size = 1;  // count < 0: the default
  ParamMap params;
  std::vector<int> hosts;  // the request's host map (ScheduleRequest::hosts points here)
  bool json = false, text = false, verify = false, stats = false, list = false;
};

struct UsageError {
  std::string what;
};

long long parse_int(const std::string& flag, const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw UsageError{flag + " expects an integer, got '" + text + "'"};
  return v;
}

// Parses the command line into `o`; nullopt to go on, else the exit status (bad arguments: 2).
std::optional<int> parse(int argc, char** argv, Options& o) {
  cclx::kit::App app("cclx-schedule",
                     "Generates a schedule by algorithm name, prints it (text or JSON), verifies "
                     "it and reports its cost.");
  app.add_option("--algo", o.algo, "generator name (see --list)");
  app.add_option("--n", o.req.nranks, "rank count")->check(CLI::Range(1, 1 << 20));
  cclx::kit::add_collective(app, "--collective", o.req.collective,
                            "allreduce (default), reduce, bcast, reduce_scatter, allgather, "
                            "alltoall, gather, scatter, barrier, gatherv, scatterv, allgatherv, "
                            "reduce_scatterv, alltoallv");
  app.add_option("--root", o.req.root, "root rank");
  app.add_flag("--in-place", o.req.in_place, "in-place call");
  app.add_option("--count", o.count,
                 "elements verified and sized (default 1000; alltoall, alltoallv: 1000 n, a "
                 "multiple of n; a v-collective gets count split evenly; barrier: 0); the "
                 "request's bytes are count * elem-size")
      ->check(cclx::kit::NonNegative{});
  app.add_option("--elem-size", o.elem_size, "element size in bytes (default 1)")
      ->check(cclx::kit::Positive{});
  std::vector<std::string> params;
  cclx::kit::add_list(app, "--param", params, "generator parameter KEY=VALUE (repeatable)");
  std::vector<std::string> hosts;
  cclx::kit::add_list(app, "--hosts", hosts,
                      "a host id per rank, comma-separated, for the hierarchical generators "
                      "(docs/hierarchical.md; default: every rank its own host)",
                      ',');
  auto* json = app.add_flag("--json", o.json, "print the schedule as JSON");
  app.add_flag("--text", o.text,
               "print the schedule as text (the default when nothing else is "
               "asked)")
      ->excludes(json);
  app.add_flag("--verify", o.verify, "run the symbolic verifier; exit 1 when it fails");
  app.add_flag("--stats", o.stats,
               "rounds, prologue steps, rounds after the prologue (StragglAR's round count), "
               "bytes and messages per rank");
  app.add_flag("--list", o.list, "list the generators, their collectives and parameters");
  if (const auto rc = cclx::kit::parse(app, argc, argv)) return rc;
  if (o.list) return std::nullopt;
  try {
    for (const auto& kv : params) {
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError{"--param expects KEY=VALUE, got '" + kv + "'"};
      o.params[kv.substr(0, eq)] = parse_int("--param " + kv.substr(0, eq), kv.substr(eq + 1));
    }
    for (const auto& h : hosts) o.hosts.push_back(static_cast<int>(parse_int("--hosts", h)));
    if (o.algo.empty()) throw UsageError{"--algo is required (see --list)"};
    if (app.count("--n") == 0) throw UsageError{"--n is required"};
    if (!o.hosts.empty() && std::ssize(o.hosts) != o.req.nranks)
      throw UsageError{"--hosts names " + std::to_string(o.hosts.size()) + " ranks, --n is " +
                       std::to_string(o.req.nranks)};
  } catch (const UsageError& e) {
    std::cerr << "cclx-schedule: " << e.what << "\nRun with --help for more information.\n";
    return 2;
  }
  if (!o.json && !o.text && !o.verify && !o.stats) o.text = true;
  // Alltoall's count is the total over all peers and must split evenly (alltoallv's too: every
  // pair then exchanges count / n elements); a barrier has no data.
  const bool pairs =
      o.req.collective == Collective::alltoall || o.req.collective == Collective::alltoallv;
  if (o.count < 0)
    o.count = pairs ? 1000LL * o.req.nranks : o.req.collective == Collective::barrier ? 0 : 1000;
  o.req.bytes = static_cast<std::size_t>(o.count) * static_cast<std::size_t>(o.elem_size);
  o.req.hosts = o.hosts;
  return std::nullopt;
}

void list_generators() {
  for (const auto& g : cclx::algo::generators()) {
    std::cout << g.name << "\n  collectives:";
    for (auto c : g.collectives) std::cout << ' ' << to_string(c);
    std::cout << "\n  params:";
    if (g.params.empty()) std::cout << " (none)";
    for (const auto& p : g.params) std::cout << ' ' << p.name;
    std::cout << '\n';
  }
}

int run(const Options& o) {
  if (o.list) {
    list_generators();
    return 0;
  }
  const auto count = static_cast<std::size_t>(o.count);
  const auto elem = static_cast<std::size_t>(o.elem_size);
  Schedule s;
  try {
    // Unknown algorithm or parameter names are the caller's mistake: exit 2 like other bad input.
    (void)cclx::algo::generator(o.algo);
    s = cclx::algo::generate_by_name(o.algo, o.req, o.params);
  } catch (const cclx::Error& e) {
    std::cerr << "cclx-schedule: " << e.what() << '\n';
    return 2;
  }
  if (o.json) std::cout << to_json(s, 2) << '\n';
  if (o.text) std::cout << to_text(s);
  int rc = 0;
  VerifyReport rep;
  if (o.verify || o.stats) rep = verify(s, count, elem);
  if (o.stats) {
    std::size_t msgs = 0;
    for (auto m : rep.messages_sent) msgs = std::max(msgs, m);
    std::cout << "rounds: " << s.num_rounds() << "\nprologue steps: " << s.prologue_steps
              << "\nrounds after the prologue: " << s.rounds_after_prologue()
              << "\ntransfer rounds: " << rep.rounds
              << "\nmax bytes sent per rank: " << rep.max_bytes_sent() << " (count " << count
              << " x " << elem << " bytes)\nmax messages sent per rank: " << msgs << '\n';
  }
  if (o.verify) {
    if (rep.ok) {
      std::cout << "verified: " << s.algorithm << ' ' << to_string(s.collective)
                << " n=" << s.nranks << (s.in_place ? " in-place" : "") << " count=" << count
                << '\n';
    } else {
      std::cerr << "verification FAILED for " << s.algorithm << ' ' << to_string(s.collective)
                << " n=" << s.nranks << (s.in_place ? " in-place" : "") << " count=" << count
                << ":\n";
      for (const auto& e : rep.errors) std::cerr << "  " << e << '\n';
      rc = 1;
    }
  }
  return rc;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (const auto rc = parse(argc, argv, o)) return *rc;
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "cclx-schedule: " << e.what() << '\n';
    return 1;
  }
}
