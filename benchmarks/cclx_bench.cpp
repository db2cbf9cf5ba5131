// cclx-bench: OSU-style latency / bandwidth benchmark of cclx's collectives, every requested
// algorithm side by side with the MPI library's own collective ("native") in the same run.
//
//   mpiexec -n 2 cclx-bench allreduce -m 8:64M --algos ring,rhd
//   mpiexec -n 4 cclx-bench allreduce -m 1M:256M --straggler 3 --delay-ms 5
//   mpiexec -n 2 cclx-bench overhead
//
// Methodology (timings on small shared machines are noisy): for each size the algorithms run
// interleaved, --repeat times, each round starting one algorithm later than the previous one (so
// that no algorithm always runs in the same position); each repetition is a warm-up and then a
// timed block that starts after a barrier. The time per call is averaged over the block on each
// rank, then reduced across ranks (avg / min / max, as OSU reports); the table shows the median
// over repetitions. Every algorithm's result is checked against native's once per size before it
// is timed.

#include <mpi.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <tuple>
#include <type_traits>
#include <vector>

#include "bruck_alltoall.hpp"
#include "cclx/algo/by_name.hpp"
#include "cclx/algo/registry.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/algo/straggler_aware.hpp"
#include "cclx/cclx.hpp"
#include "cclx/tune/candidate.hpp"
#include "cclx/tune/override.hpp"
#include "cclx/tune/table.hpp"
#include "cli.hpp"
#include "kit/collectives.hpp"
#include "kit/timing.hpp"
#include "osu_mode.hpp"

namespace {

using json = nlohmann::json;
using Comm = cclx::Communicator<cclx::MpiBackend>;

using Coll = cclx::sched::Collective;
// Indexed by sched::Collective.
constexpr std::array<std::string_view, 14> kCollTitles = {
    "Allreduce",      "Reduce",   "Broadcast", "Reduce_scatter_block",
    "Allgather",      "Alltoall", "Gather",    "Scatter",
    "Barrier",        "Gatherv",  "Scatterv",  "Allgatherv",
    "Reduce_scatter", "Alltoallv"};

using cclx::kit::kRoot;

struct Options {
  std::string mode;  // a collective's name or "overhead"
  Coll coll = Coll::allreduce;
  std::size_t min_bytes = 8;
  std::size_t max_bytes = std::size_t{1} << 20;
  std::optional<long> iterations;
  std::optional<long> warmup;
  std::string type = "float";
  std::vector<std::string> algos;  // labels as given: "ring" or "ring@64K" (segment override)
  bool all_algos = false;          // no --algos: every algorithm that serves the collective
  bool skip_unserving = false;     // --skip-unserving: also for a given --algos list
  std::optional<std::size_t> segment_bytes;
  std::optional<int> repeat;
  bool in_place = false;
  bool persistent = false;
  bool json = false;
  int straggler = -1;
  double delay_ms = 0;
  double target_ms = 200;  // time per measurement when -i is not given
  std::string tune_out;    // --tune-out: merge the measured medians into this tuning table
  std::string command;
};

// ---------------------------------------------------------------------------------------------
// --algos names to policy objects: every algorithm of the library's registry by its name
// (algo/registry.hpp; a new algorithm appears here without an edit), and what the registry does
// not hold: native, the policies that choose per call, and a measurement prototype.
template <class F>
struct AlgoEntry {
  std::string_view name;
  F make;  // (const Options&) -> policy
};
template <class F>
AlgoEntry(std::string_view, F) -> AlgoEntry<F>;

// A registry policy with its defaults and the command line's --segment and --straggler.
template <class P>
P configured(const Options& o) {
  P p{};
  if constexpr (requires { p.segment_bytes; })
    if (o.segment_bytes) p.segment_bytes = *o.segment_bytes;
  if constexpr (requires { p.straggler; }) p.straggler = o.straggler;
  return p;
}

const auto kOtherAlgorithms = std::tuple{
    AlgoEntry{"native", [](const Options&) { return cclx::algo::Native{}; }},
    // Detects the straggler itself (ring otherwise); one policy per entry, so its detector
    // keeps its state across calls, repetitions and sizes.
    AlgoEntry{"straggler_aware", [](const Options&) { return cclx::algo::StragglerAware<>{}; }},
    // The communicator's per-call choice (docs/tuning.md); CCLX_TUNE=online tunes it online.
    AlgoEntry{"auto", [](const Options&) { return cclx::algo::Auto{}; }},
    // A measurement prototype (bruck_alltoall.hpp), not a library algorithm.
    AlgoEntry{"bruck_proto", [](const Options&) { return cclx_bench::BruckProto{}; }},
};

// Every --algos name: native, the registry's, then the others.
std::vector<std::string> algorithm_names() {
  std::vector<std::string> names{"native"};
  std::apply([&](const auto&... p) { (names.emplace_back(std::decay_t<decltype(p)>::name), ...); },
             cclx::algo::registry{});
  std::apply(
      [&](const auto&... e) {
        ((e.name == "native" ? void() : void(names.emplace_back(e.name))), ...);
      },
      kOtherAlgorithms);
  return names;
}

std::string available_algorithms() {
  std::string s;
  for (const std::string& n : algorithm_names()) s += (s.empty() ? "" : ", ") + n;
  return s;
}

// Calls fn(policy) for the algorithm `name`; false if there is none.
template <class Fn>
bool with_algorithm(std::string_view name, const Options& o, Fn&& fn) {
  const bool registered = std::apply(
      [&](const auto&... p) {
        return ((std::decay_t<decltype(p)>::name == name
                     ? (fn(configured<std::decay_t<decltype(p)>>(o)), true)
                     : false) ||
                ...);
      },
      cclx::algo::registry{});
  return registered || std::apply(
                           [&](const auto&... e) {
                             return ((e.name == name ? (fn(e.make(o)), true) : false) || ...);
                           },
                           kOtherAlgorithms);
}

// ---------------------------------------------------------------------------------------------
// Command line

// The command line into `o`; nullopt to go on, else the exit status (rank 0 prints).
std::optional<int> parse(int argc, char** argv, Options& o) {
  o.command = "cclx-bench";
  for (int i = 1; i < argc; ++i) o.command += std::string(" ") + argv[i];
  cclx::kit::App app("cclx-bench",
                     "OSU-style latency / bandwidth benchmark of cclx's collectives, every "
                     "requested algorithm side by side with the MPI library's own collective "
                     "(native) in the same run. Run under mpiexec: mpiexec -n N cclx-bench "
                     "<collective> [options]; mpiexec -n 2 cclx-bench overhead [-i N] [--repeat R] "
                     "[-t TYPE] [--json]; cclx-bench --osu <collective> [OSU's options] (--osu "
                     "--help).");
  app.footer("algorithms in this build: " + available_algorithms());
  app.add_option("collective", o.mode,
                 "allreduce reduce bcast reduce_scatter allgather alltoall gather scatter "
                 "barrier gatherv scatterv allgatherv reduce_scatterv alltoallv (equal counts), "
                 "or overhead (comm.allreduce against MPI_Allreduce at 8 B)")
      ->required()
      ->check([&o](const std::string& v) -> std::string {
        if (v == "overhead") return {};
        try {
          o.coll = cclx::sched::collective_from_string(v);
        } catch (const cclx::Error& e) {
          return e.detail();
        }
        return {};
      });
  app.add_option_function<std::string>(
      "-m",
      [&o](const std::string& v) {
        const auto colon = v.find(':');
        if (colon == std::string::npos) {
          o.max_bytes = cclx::kit::byte_size(v, "-m");
        } else if (v.find(':', colon + 1) == std::string::npos) {
          o.min_bytes = cclx::kit::byte_size(v.substr(0, colon), "-m");
          o.max_bytes = cclx::kit::byte_size(v.substr(colon + 1), "-m");
        } else {
          throw CLI::ValidationError("-m", "takes MIN:MAX");
        }
        if (o.min_bytes == 0 || o.min_bytes > o.max_bytes)
          throw CLI::ValidationError("-m", "need 0 < MIN <= MAX");
      },
      "MIN:MAX message sizes in bytes (cclx/byte_size.hpp: 8, 64K, 1M), powers of two "
      "(default 8:1M)");
  app.add_option_function<long>(
         "-i", [&o](long v) { o.iterations = v; },
         "timed iterations per measurement (default: ~--target-ms per block)")
      ->check(cclx::kit::Positive{});
  app.add_option_function<long>(
         "-x", [&o](long v) { o.warmup = v; },
         "warm-up calls before each timed block (default: iterations/10, 1..100)")
      ->check(cclx::kit::NonNegative{});
  app.add_option("-t", o.type, "float double int32 int64 uint8 (default float)")
      ->check(CLI::IsMember({"float", "double", "int32", "int64", "uint8"}));
  app.add_option_function<std::string>(
      "--algos",
      [&o](const std::string& v) {
        o.algos.clear();  // "a(x=1,y=2),b": commas inside parentheses belong to the entry
        for (const auto item : cclx::tune::split_top_level(v, ',')) o.algos.emplace_back(item);
      },
      "A,B,... algorithms (default: all), native always included; NAME@BYTES overrides the "
      "segment size for that entry (e.g. ring@64K); NAME(key=value,...) sets the policy's fields "
      "as CCLX_ALGO does (e.g. ring(channels=2), pipelined_tree(segment_bytes=256K,fanout=3))");
  app.add_flag("--skip-unserving", o.skip_unserving,
               "skip listed algorithms that do not serve the collective (default: an error; "
               "algorithms not listed are skipped)");
  app.add_option_function<std::size_t>(
         "--segment-bytes", [&o](std::size_t v) { o.segment_bytes = v; },
         "segment size for ring / rhd / pipelined_tree (default: the policy's)")
      ->transform(cclx::kit::ByteSize{});
  app.add_option_function<int>(
         "--repeat", [&o](int v) { o.repeat = v; },
         "interleaved repetitions, the median is reported (default 5; 101 for overhead, whose "
         "blocks are 5000 calls by default)")
      ->check(cclx::kit::Positive{});
  app.add_option("--target-ms", o.target_ms,
                 "time per timed block when -i is not given (default 200)")
      ->check(cclx::kit::Positive{});
  app.add_flag("--in-place", o.in_place, "one-buffer (in-place) calls instead of out-of-place");
  app.add_flag("--persistent", o.persistent,
               "also each algorithm as a persistent request (NAME/p: *_init once per size, then "
               "start + wait per call), next to its one-shot call");
  app.add_option("--straggler", o.straggler,
                 "rank R sleeps --delay-ms before each call; latency is measured on the other "
                 "ranks from their start of the call");
  app.add_option("--delay-ms", o.delay_ms, "the straggler's delay per call (default 0)")
      ->check(cclx::kit::NonNegative{})
      ->needs("--straggler");
  app.add_flag("--json", o.json, "print JSON instead of the table");
  app.add_option("--tune-out", o.tune_out,
                 "merge each size's median times (max over ranks) and repetitions into the "
                 "tuning table FILE (created if missing; read by CCLX_TUNE_FILE), after each "
                 "size; algorithms that are not Auto candidates (auto, straggler_aware, "
                 "prototypes, /p entries) are left out")
      ->check([](const std::string& file) -> std::string {
        // Checked now rather than after the first size's measurements.
        const auto dir = std::filesystem::absolute(file).parent_path();
        return std::filesystem::is_directory(dir) ? ""
                                                  : "no directory " + dir.string() + " to write in";
      });
  if (const auto rc = cclx::kit::parse_mpi(app, argc, argv, 1)) return rc;
  // Default: every algorithm in this build (those that refuse the collective are skipped).
  o.all_algos = o.algos.empty();
  if (o.all_algos) o.algos = algorithm_names();
  // Native is the reference: always present, always first.
  std::erase(o.algos, std::string("native"));
  std::erase(o.algos, std::string(""));
  o.algos.insert(o.algos.begin(), "native");
  return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Measurement (benchmarks/kit/timing.hpp)

using Stat = cclx::kit::Spread;  // seconds per call across the measured ranks
using cclx::kit::across_ranks;
using cclx::kit::Call;
using cclx::kit::median;
using cclx::kit::quantile;

struct Timer {
  const Options& o;
  MPI_Comm comm;
  int rank;

  [[nodiscard]] bool measured() const { return rank != o.straggler; }

  // Seconds per call on this rank over `iters` calls.
  double block(const Call& call, long iters) const {
    if (o.straggler < 0)
      return cclx::kit::timed_block(comm, iters, [&](long) { call(); }) /
             static_cast<double>(iters);
    // Straggler mode: everyone leaves a barrier together, the straggler then waits; the others'
    // clocks start at their own call, so the straggler's lateness is part of what they see.
    double sum = 0;
    for (long i = 0; i < iters; ++i)
      sum += cclx::kit::timed_call(comm, call, [&] {
        if (rank == o.straggler) cclx::kit::delay_ms(o.delay_ms);
      });
    return sum / static_cast<double>(iters);
  }

  void warm(const Call& call, long n) const {
    for (long i = 0; i < n; ++i) {
      if (o.straggler >= 0 && rank == o.straggler) cclx::kit::delay_ms(o.delay_ms);
      call();
    }
  }

  // Iterations so that a timed block takes about --target-ms (same on every rank).
  long calibrate(const Call& call) const {
    long k = 1;
    double per = 0;
    for (;;) {
      per = across_ranks(block(call, k), measured(), comm).max;
      if (per * static_cast<double>(k) >= 0.02 || k >= (1L << 22)) break;
      k = std::min<long>(k * 8, static_cast<long>(0.03 / std::max(per, 1e-9)) + 1);
    }
    const double want = o.target_ms * 1e-3 / std::max(per, 1e-9);
    return std::clamp<long>(std::lround(want), 5, 10'000'000);
  }
};

// ---------------------------------------------------------------------------------------------
// Buffers and calls (benchmarks/kit/collectives.hpp)

template <class T>
T value(int rank, std::size_t i) {
  // Small values, exactly representable: sums over a few ranks stay exact in every type.
  return static_cast<T>(
      static_cast<double>((i * 131 + static_cast<std::size_t>(rank) * 17 + 1) % 61) /
      (std::is_floating_point_v<T> ? 8.0 : 1.0));
}

template <class T>
struct Bufs : cclx::kit::Buffers<T> {          // in, out (the in-place buffer), counts
  std::vector<T> init;                         // the in-place buffer's initial contents
  std::vector<T> ref;                          // native's result
  std::size_t check_begin = 0, check_end = 0;  // the part of `out` that holds this rank's result
  std::size_t bytes = 0;                       // message size as reported
};

std::size_t elems_for(std::size_t bytes, std::size_t elem) {
  return std::max<std::size_t>(1, bytes / elem);
}

// Sizes follow NCCL-tests: reduce_scatter / allgather / alltoall report the full n-block buffer.
// The v-collectives run with equal counts (block = size / n per rank), laid out as their
// equal-block collective (`shape`), so that they compare with it and with native's MPI_*v.
template <class T>
void setup(Bufs<T>& b, const Options& o, std::size_t bytes, int rank, int n) {
  const auto un = static_cast<std::size_t>(n);
  const std::size_t elems = elems_for(bytes, sizeof(T));
  const bool blocked = cclx::coll::visit(o.coll, [](auto d) { return d.blocks_are_ranks; });
  const std::size_t block = std::max<std::size_t>(1, elems / un);
  b.bytes = (blocked ? block * un : elems) * sizeof(T);
  const cclx::kit::Shape s{.coll = o.coll,
                           .count = blocked ? block : elems,
                           .n = n,
                           .rank = rank,
                           .in_place = o.in_place || o.coll == Coll::bcast};
  cclx::kit::fill(b, s, value<T>);
  b.init = s.in_place ? b.out : std::vector<T>{};  // what reset() restores
  const cclx::kit::Layout l = cclx::kit::layout_of(s);
  b.check_begin = l.begin;
  b.check_end = l.end;
}

// Restores the inputs before a checked call (in-place calls overwrite them).
template <class T>
void reset(Bufs<T>& b) {
  if (!b.init.empty())
    b.out = b.init;
  else
    std::fill(b.out.begin(), b.out.end(), T{});
}

// Index of the first element of `got` that differs from `want` beyond tolerance, or -1.
template <class T>
long first_mismatch(const std::vector<T>& got, const std::vector<T>& want, std::size_t b,
                    std::size_t e, int n) {
  for (std::size_t i = b; i < e; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      // Different reduction orders round differently; allow a few ulps per rank.
      const double tol = 8.0 * n * std::numeric_limits<T>::epsilon() *
                         (std::abs(static_cast<double>(want[i])) + 1.0);
      const double d = std::abs(static_cast<double>(got[i]) - static_cast<double>(want[i]));
      if (!(d <= tol)) return static_cast<long>(i);
    } else if (got[i] != want[i]) {
      return static_cast<long>(i);
    }
  }
  return -1;
}

double bus_factor(Coll c, int n) {
  const double dn = n;
  switch (cclx::coll::shape_of(c)) {
    case Coll::allreduce:
      return 2.0 * (dn - 1) / dn;
    case Coll::reduce_scatter:
    case Coll::allgather:
    case Coll::alltoall:
      return (dn - 1) / dn;
    case Coll::gather:
    case Coll::scatter:
      return (dn - 1) / dn;
    default:
      return 1.0;
    case Coll::barrier:
      return 0.0;
  }
}

std::string bus_factor_text(Coll c) {
  switch (cclx::coll::shape_of(c)) {
    case Coll::allreduce:
      return "2(n-1)/n";
    case Coll::reduce_scatter:
    case Coll::allgather:
    case Coll::alltoall:
      return "(n-1)/n";
    default:
      return "1";
  }
}

struct Entry {
  std::string label;  // as shown in the table
  Call call;
  // --persistent: makes the request on the current buffers (per size); `call` then starts and
  // waits for it.
  std::function<cclx::PersistentRequest()> init;
  cclx::PersistentRequest request;
  std::string init_error;
  bool skip = false;  // the algorithm refused this size (cclx::Error on every rank)
  std::string why;
  long iters = 0;
  std::vector<Stat> reps;
};

// Under the table: each algorithm's ratio to native over the sizes it ran, as a geometric mean
// (ratios multiply: a mean of 2x faster and 2x slower is even), with its lowest and highest.
struct RatioSummary {
  std::string algo;
  std::vector<std::pair<std::size_t, double>> by_size;  // bytes, native time / its time
  [[nodiscard]] double geometric_mean() const {
    double log_sum = 0;
    for (const auto& [size, ratio] : by_size) log_sum += std::log(ratio);
    return by_size.empty() ? 0 : std::exp(log_sum / static_cast<double>(by_size.size()));
  }
};

void print_summary(const std::vector<RatioSummary>& all) {
  std::printf(
      "# Summary: time of native / time of the algorithm (above 1: faster than native), "
      "geometric mean over the sizes it ran, with its lowest and highest (sizes as -m writes "
      "them)\n");
  for (const auto& s : all) {
    if (s.by_size.empty()) continue;
    const auto [lo, hi] =
        std::minmax_element(s.by_size.begin(), s.by_size.end(),
                            [](const auto& a, const auto& b) { return a.second < b.second; });
    std::printf("#   %-16s %6.3f  (%.3f at %s .. %.3f at %s, %zu sizes)\n", s.algo.c_str(),
                s.geometric_mean(), lo->second, cclx::format_byte_size(lo->first).c_str(),
                hi->second, cclx::format_byte_size(hi->first).c_str(), s.by_size.size());
  }
}

struct Row {
  std::size_t size;
  std::string algo;
  long iters;
  Stat med;
  double algbw, busbw, ratio, spread;
  std::vector<double> reps_max_us;
};

void print_header(const Options& o, int n, std::string_view type_name, std::size_t elem,
                  const std::vector<std::string>& labels) {
  const auto ci = static_cast<std::size_t>(o.coll);
  std::printf("# cclx-bench: OSU-style %s latency test (cclx, side by side with MPI)\n",
              std::string(kCollTitles[ci]).c_str());
  std::printf("# Command: %s\n", o.command.c_str());
  std::printf("# Ranks: %d  Type: %s (%zu B)  Op: %s  Buffers: %s  Root: %d\n", n,
              std::string(type_name).c_str(), elem,
              cclx::coll::visit(o.coll, [](auto d) { return d.reduces; }) ? "sum" : "-",
              (o.in_place || o.coll == Coll::bcast) ? "in-place" : "out-of-place", kRoot);
  std::string algos;
  for (const auto& l : labels) algos += (algos.empty() ? "" : " ") + l;
  std::printf("# Sizes: %s to %s bytes, powers of two\n",
              cclx::format_byte_size(o.min_bytes).c_str(),
              cclx::format_byte_size(o.max_bytes).c_str());
  std::printf("# Algorithms: %s (native = the MPI library's collective, reference for Ratio)\n",
              algos.c_str());
  std::printf(
      "# Method: per size, algorithms interleaved (rotated per round), repetitions: %d; each = "
      "warm-up + timed block after a barrier;\n#   latency = time per call averaged over the "
      "block, reduced across ranks (avg/min/max); median over repetitions.\n",
      o.repeat.value_or(5));
  std::printf(
      "# Every algorithm's result was checked against native's before timing (%s).\n",
      std::string(type_name).find("int") != std::string::npos ? "exact" : "relative tolerance");
  std::printf(
      "# AlgBW = Size / Max Latency; BusBW = AlgBW * %s; Ratio = native Max Latency / this Max "
      "Latency (>1: faster than native);\n#   Spread = (slowest - fastest repetition) / median, "
      "of Max Latency; GB/s = 1e9 B/s\n",
      bus_factor_text(o.coll).c_str());
  if (o.straggler >= 0)
    std::printf(
        "# Straggler: rank %d sleeps %.3f ms before each call; latencies are over the other ranks, "
        "from their start of the call to completion (delay included as they see it)\n",
        o.straggler, o.delay_ms);
  std::printf("%-10s%18s%18s%18s%12s  %-16s%14s%14s%10s%11s\n", "# Size", "Avg Latency(us)",
              "Min Latency(us)", "Max Latency(us)", "Iterations", "Algorithm", "AlgBW(GB/s)",
              "BusBW(GB/s)", "Ratio", "Spread(%)");
  std::fflush(stdout);
}

void print_row(const Row& r) {
  std::printf("%-10zu%18.2f%18.2f%18.2f%12ld  %-16s%14.4f%14.4f%10.3f%11.1f\n", r.size,
              r.med.avg * 1e6, r.med.min * 1e6, r.med.max * 1e6, r.iters, r.algo.c_str(), r.algbw,
              r.busbw, r.ratio, r.spread);
  std::fflush(stdout);
}

[[noreturn]] void fail(MPI_Comm c, const std::string& msg) {
  std::fprintf(stderr, "cclx-bench: %s\n", msg.c_str());
  std::fflush(stderr);
  MPI_Abort(c, 2);
  std::abort();
}

// The tuning-table candidate an entry measures ("ring@64K" -> "ring(segment_bytes=65536)"), or
// nullopt for what algo::Auto cannot choose: itself, adaptive policies, prototypes, persistent
// repeats of a one-shot entry (same candidate, measured without the per-call plan lookup).
std::optional<std::string> table_candidate(const std::string& label) {
  if (label.ends_with("/p")) return std::nullopt;
  const auto at = label.find('@');
  const std::string name = label.substr(0, at);
  if (name == "auto" || name == "straggler_aware") return std::nullopt;
  std::string text = name;
  if (at != std::string::npos) text += "(segment_bytes=" + label.substr(at + 1) + ")";
  try {
    return cclx::tune::to_string(cclx::tune::parse_candidate(text));
  } catch (const cclx::Error&) {
    return std::nullopt;  // not a registered algorithm (bruck_proto)
  }
}

// One candidate's measurement for --tune-out: the median and each repetition, in run order.
struct TuningTime {
  std::string label;
  double median_us;
  std::vector<double> reps_us;
};

// Merges one measured size into --tune-out's file (rank 0 only; the file is rewritten whole, so
// an interrupted run keeps every size finished so far).
void record_tuning(const Options& o, int n, std::size_t bytes,
                   const std::vector<TuningTime>& times) {
  cclx::tune::TableEntry e;
  e.collective = o.coll;
  e.nranks = n;
  e.bytes = bytes;
  for (const auto& t : times)
    if (const auto c = table_candidate(t.label)) {
      e.times_us[*c] = t.median_us;
      e.reps_us[*c] = t.reps_us;  // the native margin compares them pairwise
    }
  if (e.times_us.empty()) return;
  cclx::tune::TuningTable t;
  if (std::ifstream(o.tune_out).good()) t = cclx::tune::TuningTable::load(o.tune_out);
  t.record(e);
  std::array<char, MPI_MAX_LIBRARY_VERSION_STRING> version{};
  int len = 0;
  MPI_Get_library_version(version.data(), &len);
  t.stamp_origin(std::string_view(version.data(), static_cast<std::size_t>(len)));
  t.save(o.tune_out);
}

template <class T>
int run_collective(Comm& comm, const Options& o, std::string_view type_name) {
  const int rank = comm.rank(), n = comm.size();
  const MPI_Comm mc = comm.native_handle();
  const bool root_out = rank == 0;
  if (o.straggler >= n) fail(mc, "--straggler rank out of range");
  const Timer timer{o, mc, rank};
  const int reps = o.repeat.value_or(5);

  Bufs<T> b;
  std::vector<Entry> entries;
  for (const auto& label : o.algos) {
    Options oe = o;
    std::string name = label;
    if (const auto at = label.find('@'); at != std::string::npos) {
      name = label.substr(0, at);
      const auto seg = cclx::parse_byte_size(std::string_view(label).substr(at + 1));
      if (!seg) fail(mc, "bad segment size in '" + label + "'");
      oe.segment_bytes = *seg;
    }
    // "ring(channels=2)": the policy with those fields, as CCLX_ALGO names it.
    const auto with_entry = [&](auto&& fn) {
      if (name.find('(') == std::string::npos) return with_algorithm(name, oe, fn);
      cclx::tune::Candidate c;
      try {
        c = cclx::tune::parse_candidate(name);
      } catch (const cclx::Error& err) {
        fail(mc, err.detail());
      }
      cclx::algo::with_policy(c, fn);
      return true;
    };
    Entry e;
    e.label = label;
    bool served = true;
    if (!with_entry([&](const auto& a) {
          if (!cclx::algo::serves<std::decay_t<decltype(a)>>(o.coll))
            served = false;
          else
            e.call = cclx::kit::cclx_call<T>(comm, b, o.coll, o.in_place, a);
        }))
      fail(mc, "unknown or unavailable algorithm '" + name +
                   "' (available: " + available_algorithms() + ")");
    if (!served) {
      // The default list (or --skip-unserving): skip what does not serve the collective.
      if (o.all_algos || o.skip_unserving) continue;
      fail(mc, name + " does not serve " + std::string(cclx::sched::to_string(o.coll)));
    }
    entries.push_back(std::move(e));
    if (o.persistent) {
      Entry p;
      p.label = label + "/p";
      with_entry([&](const auto& a) {
        if constexpr (!cclx::algo::AdaptiveAlgorithm<std::decay_t<decltype(a)>>)
          p.init = [&comm, &o, &b, a] {
            return cclx::kit::cclx_persistent<T>(comm, b, o.coll, o.in_place, a);
          };
      });
      if (p.init) entries.push_back(std::move(p));
    }
  }
  // Entries live in the vector from here on: a persistent entry's call refers to its request.
  for (auto& e : entries)
    if (e.init)
      e.call = [&e] {
        e.request.start();
        e.request.wait();
      };

  std::vector<std::string> labels;
  for (const auto& e : entries) labels.push_back(e.label);
  if (root_out && !o.json) print_header(o, n, type_name, sizeof(T), labels);

  json rows_json = json::array();
  std::vector<std::string> notes;
  std::vector<RatioSummary> summary;
  for (std::size_t k = 1; k < entries.size(); ++k) summary.push_back({entries[k].label, {}});
  for (std::size_t bytes = o.min_bytes; bytes <= o.max_bytes; bytes *= 2) {
    for (auto& e : entries) e.request = {};  // bound to the previous size's buffers
    setup(b, o, bytes, rank, n);
    for (auto& e : entries)
      if (e.init) {
        e.init_error.clear();
        try {
          e.request = e.init();
        } catch (const cclx::Error& err) {  // refused (on every rank: the arguments are equal)
          e.init_error = err.what();
        }
      }

    // Correctness first: native's result is the reference.
    reset(b);
    entries[0].call();
    b.ref = b.out;
    for (std::size_t k = 1; k < entries.size(); ++k) {
      Entry& e = entries[k];
      e.skip = false;
      reset(b);
      int threw = 0;
      if (e.init && !e.request.valid()) {
        threw = 1;
        e.why = e.init_error.empty() ? "not available as a persistent request" : e.init_error;
      } else {
        try {
          e.call();
        } catch (const cclx::Error& err) {
          threw = 1;
          e.why = err.what();
        }
      }
      MPI_Allreduce(MPI_IN_PLACE, &threw, 1, MPI_INT, MPI_MAX, mc);
      if (threw) {
        e.skip = true;
        // One note per distinct refusal, not one per size.
        const std::string note = e.label + ": " + e.why;
        if (std::find(notes.begin(), notes.end(), note) != notes.end()) continue;
        notes.push_back(note);
        if (root_out && !o.json)
          std::printf("# note: %s skipped from %zu B on: %s\n", e.label.c_str(), b.bytes,
                      e.why.empty() ? "refused on another rank" : e.why.c_str());
        continue;
      }
      const long bad = first_mismatch(b.out, b.ref, b.check_begin, b.check_end, n);
      int any_bad = bad >= 0;
      MPI_Allreduce(MPI_IN_PLACE, &any_bad, 1, MPI_INT, MPI_MAX, mc);
      if (bad >= 0) {
        const auto i = static_cast<std::size_t>(bad);
        fail(mc, "WRONG RESULT: " + e.label + " " + o.mode + " " + std::string(type_name) + " " +
                     std::to_string(b.bytes) + " B on rank " + std::to_string(rank) + ": element " +
                     std::to_string(i) + " is " + std::to_string(static_cast<double>(b.out[i])) +
                     ", native gives " + std::to_string(static_cast<double>(b.ref[i])) +
                     " - not benchmarking it");
      }
      if (any_bad) {
        // Another rank found the error and aborts the job; wait for it.
        MPI_Barrier(mc);
      }
    }
    reset(b);

    for (auto& e : entries) {
      if (e.skip) continue;
      e.iters = o.iterations ? *o.iterations : timer.calibrate(e.call);
      e.reps.clear();
    }
    // Repetition r starts at entry r (mod the count): each algorithm takes every position in
    // the round in turn, so none is always timed right after the same neighbour (a fixed order
    // put `auto` last in every round and measured native through Auto 3-12% slower than native
    // at 0.2-10 us per call, 2026-11-28). Repetition r of every entry still shares one round.
    for (int r = 0; r < reps; ++r) {
      for (std::size_t i = 0; i < entries.size(); ++i) {
        auto& e = entries[(i + static_cast<std::size_t>(r)) % entries.size()];
        if (e.skip) continue;
        const long w = o.warmup ? *o.warmup : std::clamp<long>(e.iters / 10, 1, 100);
        timer.warm(e.call, w);
        e.reps.push_back(across_ranks(timer.block(e.call, e.iters), timer.measured(), mc));
      }
    }

    const double native_max = [&] {
      std::vector<double> v;
      for (const auto& s : entries[0].reps) v.push_back(s.max);
      return median(v);
    }();
    std::vector<TuningTime> tuning_times;
    for (const auto& e : entries) {
      if (e.skip) continue;
      std::vector<double> avg, mn, mx;
      for (const auto& s : e.reps) {
        avg.push_back(s.avg);
        mn.push_back(s.min);
        mx.push_back(s.max);
      }
      Row row;
      row.size = b.bytes;
      row.algo = e.label;
      row.iters = e.iters;
      row.med = {median(avg), median(mn), median(mx)};
      row.algbw = static_cast<double>(b.bytes) / row.med.max / 1e9;
      row.busbw = row.algbw * bus_factor(o.coll, n);
      row.ratio = native_max / row.med.max;
      for (auto& sm : summary)
        if (sm.algo == e.label) sm.by_size.emplace_back(b.bytes, row.ratio);
      row.spread =
          100.0 *
          (*std::max_element(mx.begin(), mx.end()) - *std::min_element(mx.begin(), mx.end())) /
          row.med.max;
      for (double x : mx) row.reps_max_us.push_back(x * 1e6);
      tuning_times.push_back({e.label, row.med.max * 1e6, row.reps_max_us});
      if (root_out) {
        if (o.json)
          rows_json.push_back({{"size", row.size},
                               {"algorithm", row.algo},
                               {"iterations", row.iters},
                               {"avg_latency_us", row.med.avg * 1e6},
                               {"min_latency_us", row.med.min * 1e6},
                               {"max_latency_us", row.med.max * 1e6},
                               {"algbw_GBps", row.algbw},
                               {"busbw_GBps", row.busbw},
                               {"ratio_vs_native", row.ratio},
                               {"spread_pct", row.spread},
                               {"repetitions_max_latency_us", row.reps_max_us}});
        else
          print_row(row);
      }
    }
    if (root_out && !o.tune_out.empty()) record_tuning(o, n, b.bytes, tuning_times);
    if (bytes > std::numeric_limits<std::size_t>::max() / 2) break;
  }

  if (root_out && !o.json) print_summary(summary);
  if (root_out && o.json) {
    json j = {{"benchmark", "cclx-bench"},
              {"collective", o.mode},
              {"command", o.command},
              {"ranks", n},
              {"type", type_name},
              {"element_bytes", sizeof(T)},
              {"op", "sum"},
              {"in_place", o.in_place || o.coll == Coll::bcast},
              {"root", kRoot},
              {"algorithms", labels},
              {"repetitions", reps},
              {"bus_factor", bus_factor(o.coll, n)},
              {"latency_basis", "max across measured ranks, median over repetitions"},
              {"notes", notes},
              {"results", rows_json}};
    j["summary"] = json::array();
    for (const auto& sm : summary)
      if (!sm.by_size.empty())
        j["summary"].push_back({{"algorithm", sm.algo},
                                {"geometric_mean_ratio_vs_native", sm.geometric_mean()},
                                {"sizes", sm.by_size.size()}});
    j["straggler"] =
        o.straggler >= 0 ? json{{"rank", o.straggler}, {"delay_ms", o.delay_ms}} : json(nullptr);
    std::printf("%s\n", j.dump(2).c_str());
  }
  return 0;
}

// ---------------------------------------------------------------------------------------------
// overhead: comm.allreduce(x, cclx::sum) (Native policy) against a raw MPI_Allreduce at 8 B.

template <class T>
int run_overhead(Comm& comm, const Options& o, std::string_view type_name) {
  const MPI_Comm mc = comm.native_handle();
  const int rank = comm.rank();
  // Many short blocks: some fall between the load's bursts, so the low quantiles show the
  // per-call cost without them.
  const long iters = o.iterations.value_or(5000);
  const int reps = o.repeat.value_or(101);
  const std::size_t count = elems_for(8, sizeof(T));
  std::vector<T> x(count, T{1});
  const MPI_Datatype dt = cclx::mpi_datatype(cclx::data_type_of<T>());
  const int icount = static_cast<int>(count);

  // Both in place on the same communicator, so the only difference is cclx's call path.
  auto cclx_block = [&](long k) {
    return cclx::kit::timed_block(mc, k, [&](long) { comm.allreduce(x, cclx::sum); }) /
           static_cast<double>(k);
  };
  auto raw_block = [&](long k) {
    return cclx::kit::timed_block(
               mc, k,
               [&](long) { MPI_Allreduce(MPI_IN_PLACE, x.data(), icount, dt, MPI_SUM, mc); }) /
           static_cast<double>(k);
  };
  const long w = o.warmup.value_or(std::max<long>(iters / 10, 100));
  cclx_block(w);
  raw_block(w);

  std::vector<double> tc, tr, ratio;
  for (int r = 0; r < reps; ++r) {
    // Alternate which goes first (ABBA) so drift in machine load hits both alike.
    double a = 0, b = 0;
    if (r % 2 == 0) {
      a = cclx_block(iters);
      b = raw_block(iters);
    } else {
      b = raw_block(iters);
      a = cclx_block(iters);
    }
    a = across_ranks(a, true, mc).max;
    b = across_ranks(b, true, mc).max;
    tc.push_back(a);
    tr.push_back(b);
    ratio.push_back(a / b);
  }
  const double mc_ = median(tc), mr = median(tr), mratio = median(ratio);
  if (rank == 0) {
    if (o.json) {
      json j = {{"benchmark", "cclx-bench"},
                {"mode", "overhead"},
                {"command", o.command},
                {"ranks", comm.size()},
                {"type", type_name},
                {"bytes", count * sizeof(T)},
                {"iterations", iters},
                {"repetitions", reps},
                {"cclx_native_us", mc_ * 1e6},
                {"raw_mpi_us", mr * 1e6},
                {"ratio_of_medians", mc_ / mr},
                {"median_ratio", mratio},
                {"overhead_pct", (mratio - 1) * 100},
                {"p10_ratio", quantile(tc, 0.1) / quantile(tr, 0.1)},
                {"min_ratio",
                 *std::min_element(tc.begin(), tc.end()) / *std::min_element(tr.begin(), tr.end())},
                {"cclx_native_reps_us", json(tc)},
                {"raw_mpi_reps_us", json(tr)}};
      for (auto& v : j["cclx_native_reps_us"]) v = v.get<double>() * 1e6;
      for (auto& v : j["raw_mpi_reps_us"]) v = v.get<double>() * 1e6;
      std::printf("%s\n", j.dump(2).c_str());
    } else {
      std::printf(
          "# cclx-bench overhead: comm.allreduce(x, cclx::sum) [algo::Native] vs "
          "MPI_Allreduce(MPI_IN_PLACE, ...) on the same communicator\n");
      std::printf("# Command: %s\n", o.command.c_str());
      std::printf(
          "# Ranks: %d  Type: %s  Size: %zu B  Iterations per block: %ld  Repetitions: %d "
          "(alternating order)\n",
          comm.size(), std::string(type_name).c_str(), count * sizeof(T), iters, reps);
      std::printf(
          "# Time per call = block time / iterations, max across ranks; medians over "
          "repetitions. CCLX_VALIDATE: %s\n",
          comm.backend().validation() ? "on (adds an agreement step per call)" : "off");
      std::printf("%-34s%12s%12s%12s\n", "# Call", "Median(us)", "Min(us)", "Max(us)");
      auto line = [](const char* name, const std::vector<double>& v) {
        std::printf("%-34s%12.4f%12.4f%12.4f\n", name, median(v) * 1e6,
                    *std::min_element(v.begin(), v.end()) * 1e6,
                    *std::max_element(v.begin(), v.end()) * 1e6);
      };
      line("cclx allreduce (algo::Native)", tc);
      line("raw MPI_Allreduce", tr);
      std::printf(
          "# 10th percentile: cclx %.4f us, raw %.4f us, ratio %.4f;  minimum: ratio %.4f\n",
          quantile(tc, 0.1) * 1e6, quantile(tr, 0.1) * 1e6, quantile(tc, 0.1) / quantile(tr, 0.1),
          *std::min_element(tc.begin(), tc.end()) / *std::min_element(tr.begin(), tr.end()));
      std::printf(
          "# Ratio of medians: %.4f   Median of per-repetition ratios: %.4f   "
          "Overhead: %+.2f%% (goal <= 3%%)\n",
          mc_ / mr, mratio, (mratio - 1) * 100);
    }
    std::fflush(stdout);
  }
  return 0;
}

template <class F>
int dispatch_type(const std::string& t, F&& f) {
  if (t == "float") return f(float{}, "float");
  if (t == "double") return f(double{}, "double");
  if (t == "int32") return f(std::int32_t{}, "int32");
  if (t == "int64") return f(std::int64_t{}, "int64");
  if (t == "uint8") return f(std::uint8_t{}, "uint8");
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  if (cclx_bench::osu::requested(argc, argv)) {  // --osu: OSU 7.4's format (osu_mode.cpp)
    const int osu_rc = cclx_bench::osu::run(argc, argv);
    MPI_Finalize();
    return osu_rc;
  }
  Options o;
  if (const auto usage_rc = parse(argc, argv, o)) return *usage_rc;
  int rc = 0;
  try {
    Comm comm(MPI_COMM_WORLD);
    rc = dispatch_type(o.type, [&](auto tag, std::string_view name) {
      using T = decltype(tag);
      return o.mode == "overhead" ? run_overhead<T>(comm, o, name)
                                  : run_collective<T>(comm, o, name);
    });
    if (rc < 0) throw cclx::Error("unknown type '" + o.type + "'");
  } catch (const std::exception& e) {
    fail(MPI_COMM_WORLD, e.what());
  }
  MPI_Finalize();
  return rc;
}
