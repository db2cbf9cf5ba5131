// cclx-schedule: generate a schedule by algorithm name, print it (text or JSON), verify it and
// report its cost. For debugging generators and for producing schedules for docs and plots.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/format.hpp"
#include "cclx/schedule/verifier.hpp"

namespace {

using namespace cclx::sched;

constexpr const char* kUsage =
    "usage: cclx-schedule --algo NAME --n RANKS [--collective C] [--root R] [--in-place]\n"
    "                     [--count ELEMS] [--elem-size BYTES] [--param KEY=VALUE ...]\n"
    "                     [--json | --text] [--verify] [--stats]\n"
    "       cclx-schedule --list\n"
    "\n"
    "  --collective   allreduce (default), reduce, bcast, reduce_scatter, allgather, alltoall,\n"
    "                 gather, scatter, barrier, gatherv, scatterv, allgatherv,\n"
    "                 reduce_scatterv, alltoallv\n"
    "  --count        elements verified and sized (default 1000; alltoall, alltoallv: 1000 n,\n"
    "                 a multiple of n; a v-collective gets count split evenly; barrier: 0);\n"
    "                 the request's bytes are count * elem-size (default 1)\n"
    "  --json/--text  print the schedule (text is the default when nothing else is asked)\n"
    "  --verify       run the symbolic verifier; exit 1 when it fails\n"
    "  --stats        rounds, prologue steps, rounds after the prologue (StragglAR's round\n"
    "                 count), bytes and messages per rank\n";

struct UsageError {
  std::string what;
};

long long parse_int(std::string_view flag, const std::string& text) {
  std::size_t used = 0;
  long long v = 0;
  try {
    v = std::stoll(text, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != text.size())
    throw UsageError{std::string(flag) + " expects an integer, got '" + text + "'"};
  return v;
}

struct Options {
  std::string algo;
  ScheduleRequest req;
  bool have_n = false;
  long long count = -1, elem_size = 1;  // count < 0: the default
  ParamMap params;
  bool json = false, text = false, verify = false, stats = false, list = false;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError{std::string(a) + " needs a value"};
      return argv[++i];
    };
    if (a == "--algo") {
      o.algo = value();
    } else if (a == "--n") {
      const auto n = parse_int(a, value());
      if (n < 1 || n > 1 << 20) throw UsageError{"--n must be in [1, 1048576]"};
      o.req.nranks = static_cast<int>(n);
      o.have_n = true;
    } else if (a == "--collective") {
      try {
        o.req.collective = collective_from_string(value());
      } catch (const cclx::Error& e) {
        throw UsageError{e.what()};
      }
    } else if (a == "--root") {
      o.req.root = static_cast<int>(parse_int(a, value()));
    } else if (a == "--in-place") {
      o.req.in_place = true;
    } else if (a == "--count") {
      o.count = parse_int(a, value());
      if (o.count < 0) throw UsageError{"--count must be >= 0"};
    } else if (a == "--elem-size") {
      o.elem_size = parse_int(a, value());
      if (o.elem_size < 1) throw UsageError{"--elem-size must be >= 1"};
    } else if (a == "--param") {
      const auto kv = value();
      const auto eq = kv.find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError{"--param expects KEY=VALUE, got '" + kv + "'"};
      o.params[kv.substr(0, eq)] = parse_int("--param " + kv.substr(0, eq), kv.substr(eq + 1));
    } else if (a == "--json") {
      o.json = true;
    } else if (a == "--text") {
      o.text = true;
    } else if (a == "--verify") {
      o.verify = true;
    } else if (a == "--stats") {
      o.stats = true;
    } else if (a == "--list") {
      o.list = true;
    } else if (a == "--help" || a == "-h") {
      std::cout << kUsage;
      std::exit(0);
    } else {
      throw UsageError{"unknown argument '" + std::string(a) + "'"};
    }
  }
  if (o.list) return o;
  if (o.algo.empty()) throw UsageError{"--algo is required (see --list)"};
  if (!o.have_n) throw UsageError{"--n is required"};
  if (o.json && o.text) throw UsageError{"--json and --text are exclusive"};
  if (!o.json && !o.text && !o.verify && !o.stats) o.text = true;
  // Alltoall's count is the total over all peers and must split evenly (alltoallv's too: every
  // pair then exchanges count / n elements); a barrier has no data.
  const bool pairs =
      o.req.collective == Collective::alltoall || o.req.collective == Collective::alltoallv;
  if (o.count < 0)
    o.count = pairs ? 1000LL * o.req.nranks : o.req.collective == Collective::barrier ? 0 : 1000;
  o.req.bytes = static_cast<std::size_t>(o.count) * static_cast<std::size_t>(o.elem_size);
  return o;
}

void list_generators() {
  for (const auto& g : generators()) {
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
    generator(o.algo);
    s = generate_by_name(o.algo, o.req, o.params);
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
  try {
    o = parse(argc, argv);
  } catch (const UsageError& e) {
    std::cerr << "cclx-schedule: " << e.what << "\n\n" << kUsage;
    return 2;
  }
  try {
    return run(o);
  } catch (const std::exception& e) {
    std::cerr << "cclx-schedule: " << e.what() << '\n';
    return 1;
  }
}
