// cclx-adaptive-late: allreduce with late ranks, algo::Adaptive against policies that wait for
// every rank (native, the registry's algorithms, straggler_aware). docs/algorithms/adaptive.md has
// the results ("Costs", "Testbed campaign").
//
// Each iteration every rank first "computes": it sleeps its delay for that iteration, which is
// --late-ms for the late rank (a persistently slow rank) plus, with --jitter-ms M, an exponential
// random time of mean M on every rank. The delays depend only on (--seed, repetition, iteration,
// rank), so every policy meets the same ones. Two ways to time:
//   default   a barrier before every iteration; reported: the mean over iterations of the early
//             ranks' time from start() to the return of wait(), and the late rank's own.
//   --loop    a training loop: no barrier between iterations; reported: the mean iteration time
//             (the latest rank's time from a barrier before the loop to its end, over --iters).
// --repeat R interleaves the policies R times. --json prints one document with every repetition
// and the delays drawn (for simulator predictions:
// benchmarks/results/scripts/adaptive_campaign.py). The result of each repetition's last call is
// checked (exact: small integers in float).
//
//   mpiexec -n 3 cclx-adaptive-late [--bytes B] [--late-ms D] [--late-rank R] [--iters K]
//       [--jitter-ms M] [--seed S] [--loop] [--repeat R] [--algos a,b,...] [--topology FILE]
//       [--json]
// adaptive runs on --topology's machine; adaptive=FILE (repeatable) on the topology in FILE.
// adaptive:cN:tM[=FILE] fixes the synthesis' chunk bytes (cN) and/or its trees (tM).
#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "cclx/algo/by_name.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/algo/straggler_aware.hpp"
#include "cclx/cclx.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/topology/topology_json.hpp"
#include "cli.hpp"
#include "fields.hpp"
#include "kit/timing.hpp"

namespace {

struct Args {
  std::size_t bytes = 1 << 20;
  double late_ms = 20;
  int late_rank = -1;  // -1: the last rank
  int iters = 20;
  double jitter_ms = 0;
  unsigned seed = 1;
  bool loop = false;
  int repeat = 1;
  bool json = false;
  std::string algos = "native,ring,rhd,adaptive";
  std::string topology;  // Adaptive's topology (topology JSON, e.g. cclx-topo's); empty: default
};

[[noreturn]] void usage_error(const std::string& what) {
  std::fprintf(stderr, "cclx-adaptive-late: %s\n", what.c_str());
  std::exit(2);
}

// `name` as a candidate of CCLX_ALGO's grammar when it names native or a registry algorithm
// ("ring", "rhd(segment_bytes=65536)"); nullopt for the names this benchmark adds.
std::optional<cclx::tune::Candidate> registered(const std::string& name) {
  const std::string base = name.substr(0, name.find('('));
  bool known = base == "native";
  for (const auto& g : cclx::algo::generators()) known = known || g.name == base;
  if (!known) return std::nullopt;
  try {
    return cclx::tune::parse_candidate(name);
  } catch (const cclx::Error& e) {
    usage_error(e.detail());
  }
}

// The command line into `a`; nullopt to go on, else the exit status (rank 0 prints).
std::optional<int> parse(int argc, char** argv, Args& a) {
  cclx::kit::App app("cclx-adaptive-late",
                     "Allreduce with late ranks: algo::Adaptive against policies that wait for "
                     "every rank (docs/algorithms/adaptive.md). Run under mpiexec, 2 ranks or "
                     "more.");
  app.add_option("--bytes", a.bytes, "message size (default 1M; cclx/byte_size.hpp)")
      ->transform(cclx::kit::ByteSize{});
  app.add_option("--late-ms", a.late_ms, "the late rank's delay per iteration (default 20)")
      ->check(cclx::kit::NonNegative{});
  app.add_option("--late-rank", a.late_rank, "the late rank (default: the last)");
  app.add_option("--iters", a.iters, "iterations per repetition (default 20)")
      ->check(cclx::kit::Positive{});
  app.add_option("--jitter-ms", a.jitter_ms,
                 "every rank also sleeps an exponential random time of this mean (default 0)")
      ->check(cclx::kit::NonNegative{});
  app.add_option("--seed", a.seed, "seed of the jitter (default 1)");
  app.add_flag("--loop", a.loop,
               "a training loop: no barrier between iterations; reported: the mean iteration "
               "time");
  app.add_option("--repeat", a.repeat, "repetitions, the policies interleaved (default 1)")
      ->check(cclx::kit::Positive{});
  app.add_option("--algos", a.algos,
                 "policies, comma-separated (default native,ring,rhd,adaptive): native and any "
                 "registry algorithm that serves allreduce, as CCLX_ALGO names it "
                 "(ring(segment_bytes=65536)); straggler_aware; adaptive; adaptive=FILE: on the "
                 "topology in FILE; adaptive:cN:tM[=FILE]: synthesis chunk bytes N, M trees");
  app.add_option("--topology", a.topology, "adaptive's topology (topology JSON, e.g. cclx-topo's)");
  app.add_flag("--json", a.json, "one JSON document with every repetition and the delays drawn");
  return cclx::kit::parse_mpi(app, argc, argv);
}

// Rank r's compute delay (seconds) in iteration `it` of repetition `rep`; iteration -1 warms up
// without delays.
double delay_s(const Args& a, int rep, int it, int rank, int late) {
  if (it < 0) return 0;
  double d = rank == late ? a.late_ms / 1e3 : 0;
  if (a.jitter_ms > 0) {
    std::seed_seq seq{a.seed, static_cast<unsigned>(rep), static_cast<unsigned>(it),
                      static_cast<unsigned>(rank)};
    std::mt19937_64 g(seq);
    d += std::exponential_distribution<double>(1e3 / a.jitter_ms)(g);
  }
  return d;
}

void sleep_s(double s) {
  if (s > 0) std::this_thread::sleep_for(std::chrono::duration<double>(s));
}

struct Sample {
  double primary = 0;    // --loop: mean iteration time; else the early ranks' mean
  double late_rank = 0;  // without --loop: the late rank's mean start-to-return time
};

// One repetition of one policy; `call` runs one allreduce of `in` into `out`.
Sample measure(int rank, int n, const Args& a, int rep, int late,
               const std::function<void()>& call) {
  const MPI_Comm world = MPI_COMM_WORLD;
  Sample s;
  if (a.loop) {
    call();  // warm-up
    const double t = cclx::kit::timed_block(world, a.iters, [&](long it) {
      sleep_s(delay_s(a, rep, static_cast<int>(it), rank, late));
      call();
    });
    s.primary = cclx::kit::max_over_ranks(t, world) / a.iters;
    return s;
  }
  double early_sum = 0, late_sum = 0;
  for (int it = -1; it < a.iters; ++it) {
    const double mine =
        cclx::kit::timed_call(world, call, [&] { sleep_s(delay_s(a, rep, it, rank, late)); });
    const double early = cclx::kit::sum_over_ranks(rank == late ? 0.0 : mine, world) / (n - 1);
    const double late_t = cclx::kit::sum_over_ranks(rank == late ? mine : 0.0, world);
    if (it >= 0) {
      early_sum += early;
      late_sum += late_t;
    }
  }
  s.primary = early_sum / a.iters;
  s.late_rank = late_sum / a.iters;
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  Args a;
  if (const auto rc = parse(argc, argv, a)) return *rc;
  int status = 0;
  try {
    cclx::Communicator comm(MPI_COMM_WORLD);
    const int n = comm.size(), rank = comm.rank();
    if (n < 2) {
      if (rank == 0) std::fprintf(stderr, "needs at least 2 ranks\n");
      MPI_Finalize();
      return 2;
    }
    const int late = a.late_rank >= 0 ? a.late_rank : n - 1;
    if (late >= n) usage_error("--late-rank out of range");
    // Small integers in float: every sum is exact, so the check is an equality.
    const std::size_t count = a.bytes / sizeof(float);
    std::vector<float> in(count), out(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = static_cast<float>(rank + 1 + (i % 5));
    auto expected = [&](std::size_t i) {
      return static_cast<float>(n * (n + 1) / 2 + n * static_cast<int>(i % 5));
    };

    cclx::algo::Adaptive adaptive;
    if (!a.topology.empty())
      adaptive.topology =
          std::make_shared<const cclx::topo::Topology>(cclx::topo::load_topology(a.topology));
    const cclx::algo::StragglerAware<> aware;  // one detector for every call

    struct Entry {
      std::string name;
      std::function<void()> call;
      std::shared_ptr<cclx::PersistentRequest> request;  // kept alive for the whole run
    };
    std::vector<Entry> entries;
    auto persistent = [&](const std::string& name, cclx::PersistentRequest p) {
      auto req = std::make_shared<cclx::PersistentRequest>(std::move(p));
      entries.push_back({name, [req] { req->start(), req->wait(); }, req});
    };
    for (const auto& name : split(a.algos)) {
      // Native and every algorithm of the registry, by name or as CCLX_ALGO names it
      // ("ring(segment_bytes=65536)"); StragglAR's straggler is --late's rank unless given.
      if (const std::optional<cclx::tune::Candidate> c = registered(name)) {
        cclx::algo::with_policy(*c, [&](const auto& policy) {
          using P = std::decay_t<decltype(policy)>;
          if constexpr (cclx::algo::serves<P>(cclx::sched::Collective::allreduce)) {
            P p = policy;
            if constexpr (std::is_same_v<P, cclx::algo::StragglAR>)
              if (!c->params.contains("straggler")) p.straggler = late;
            persistent(name, comm.allreduce_init(in, out, cclx::sum, p));
          } else {
            usage_error(name + " does not serve allreduce");
          }
        });
      } else if (name == "adaptive" || name.starts_with("adaptive=") ||
                 name.starts_with("adaptive:")) {
        // adaptive[:cN][:tM][=FILE]: fixed chunk bytes / trees, another topology
        cclx::algo::Adaptive other = adaptive;
        const auto eq = name.find('=');
        std::string label = name.substr(0, eq);
        for (const auto& f : split(label, ':')) {
          if (f != "adaptive" && !set_shape_field(other, f))
            usage_error("bad adaptive field '" + f + "' (cN chunk bytes, tM trees)");
        }
        if (eq != std::string::npos) {
          const std::string file = name.substr(eq + 1);
          other.topology =
              std::make_shared<const cclx::topo::Topology>(cclx::topo::load_topology(file));
          label += "[" + file.substr(file.find_last_of('/') + 1) + "]";
        }
        persistent(label, comm.allreduce_init(in, out, cclx::sum, other));
      } else if (name == "straggler_aware")  // blocking only: it picks per call
        entries.push_back({name, [&] { comm.allreduce(in, out, cclx::sum, aware); }, nullptr});
      else
        usage_error("unknown algorithm " + name +
                    " (native, the registry's, straggler_aware, adaptive, adaptive=FILE)");
    }

    nlohmann::json results = nlohmann::json::array();
    std::vector<std::vector<double>> primary(entries.size());
    for (int rep = 0; rep < a.repeat; ++rep)
      for (std::size_t e = 0; e < entries.size(); ++e) {
        std::fill(out.begin(), out.end(), -1.0f);
        const auto before = cclx::detail::relay_counters();
        const Sample s = measure(rank, n, a, rep, late, entries[e].call);
        std::size_t bad = 0;
        for (std::size_t i = 0; i < count; ++i) bad += out[i] != expected(i) ? 1 : 0;
        if (cclx::kit::sum_over_ranks(static_cast<double>(bad), MPI_COMM_WORLD) > 0) {
          if (bad > 0)
            std::fprintf(stderr, "rank %d: %s: %zu wrong elements\n", rank, entries[e].name.c_str(),
                         bad);
          status = 1;
        }
        const auto after = cclx::detail::relay_counters();
        const auto partial = after.partial_decisions - before.partial_decisions;
        const auto predicted = after.predicted_decisions - before.predicted_decisions;
        const auto last_rank = after.last_rank_decisions - before.last_rank_decisions;
        primary[e].push_back(s.primary);
        results.push_back({{"algo", entries[e].name},
                           {"rep", rep},
                           {a.loop ? "iter_s" : "early_s", s.primary},
                           {"late_rank_s", s.late_rank},
                           {"partial_decisions", partial},
                           {"predicted_decisions", predicted},
                           {"last_rank_decisions", last_rank}});
      }

    if (rank == 0 && a.json) {
      nlohmann::json delays = nlohmann::json::array();  // [rep][iter][rank] seconds
      for (int rep = 0; rep < a.repeat; ++rep) {
        nlohmann::json r = nlohmann::json::array();
        for (int it = 0; it < a.iters; ++it) {
          nlohmann::json row = nlohmann::json::array();
          for (int q = 0; q < n; ++q) row.push_back(delay_s(a, rep, it, q, late));
          r.push_back(row);
        }
        delays.push_back(r);
      }
      nlohmann::json doc{{"n", n},
                         {"bytes", a.bytes},
                         {"mode", a.loop ? "loop" : "barrier"},
                         {"late_rank", late},
                         {"late_ms", a.late_ms},
                         {"jitter_ms", a.jitter_ms},
                         {"seed", a.seed},
                         {"iters", a.iters},
                         {"repeat", a.repeat},
                         {"topology", a.topology},
                         {"results", results},
                         {"delays", delays},
                         {"median", nlohmann::json::object()}};
      for (std::size_t e = 0; e < entries.size(); ++e)
        doc["median"][entries[e].name] = cclx::kit::median(primary[e]);
      std::printf("%s\n", doc.dump(1).c_str());
    } else if (rank == 0) {
      for (std::size_t e = 0; e < entries.size(); ++e)
        std::printf(
            "%-16s n=%d bytes=%zu late=rank %d by %.1f ms, jitter mean %.1f ms: %s %.3f ms "
            "(median of %d)\n",
            entries[e].name.c_str(), n, a.bytes, late, a.late_ms, a.jitter_ms,
            a.loop ? "mean iteration" : "early ranks start-to-return",
            cclx::kit::median(primary[e]) * 1e3, a.repeat);
    }
    if (rank == 0 && !a.json) {
      const auto c = cclx::detail::relay_counters();
      std::printf("adaptive: %llu calls proceeded without some rank\n",
                  static_cast<unsigned long long>(c.partial_decisions));
    }
  } catch (const cclx::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    status = 1;
  }
  MPI_Finalize();
  return status;
}
