// cclx-bench --osu: OSU Micro-Benchmarks 7.4's blocking collective latency tests, with the
// collective served by a cclx algorithm or by the MPI library directly ("native", the call OSU
// makes). docs/osu.md lists the OSU source each format, default and step below follows.
//
//   mpiexec -n 4 cclx-bench --osu allreduce -m 8:1048576 -f -c -T mpi_float --algo ring

#include "osu_mode.hpp"

#include <mpi.h>
#include <strings.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cclx/algo/by_name.hpp"
#include "cclx/cclx.hpp"
#include "cclx/tune/candidate.hpp"
#include "cli.hpp"
#include "kit/collectives.hpp"
#include "kit/timing.hpp"

namespace cclx_bench::osu {
namespace {

using Coll = cclx::sched::Collective;
using Comm = cclx::Communicator<cclx::MpiBackend>;

// OSU 7.4 constants (c/util/osu_util.h).
constexpr const char* kVersion = "7.4";              // PACKAGE_VERSION
constexpr int kFieldWidth = 20;                      // FIELD_WIDTH
constexpr int kPrecision = 2;                        // FLOAT_PRECISION
constexpr std::size_t kLargeMessageSize = 8192;      // LARGE_MESSAGE_SIZE
constexpr long kLoopSmall = 1000, kSkipSmall = 100;  // COLL_LOOP_SMALL, COLL_SKIP_SMALL
constexpr long kLoopLarge = 100, kSkipLarge = 10;    // COLL_LOOP_LARGE, COLL_SKIP_LARGE
constexpr long long kMinMessageSize = 1;             // MIN_MESSAGE_SIZE
constexpr long long kMaxMessageSize = 1LL << 20;     // MAX_MSG_SIZE_COLL

// One OSU program per collective; `title` is its BENCHMARK string between "MPI%s " and
// " Latency Test". `in_place`: OSU's program accepts -l.
struct Test {
  std::string_view name;
  Coll coll;
  std::string_view title;
  bool in_place;
};
constexpr Test kTests[] = {
    {"allreduce", Coll::allreduce, "Allreduce", true},
    {"reduce", Coll::reduce, "Reduce", true},
    {"bcast", Coll::bcast, "Broadcast", false},
    {"reduce_scatter", Coll::reduce_scatter, "Reduce_scatter", true},
    {"allgather", Coll::allgather, "Allgather", true},
    {"alltoall", Coll::alltoall, "All-to-All Personalized Exchange", true},
    {"gather", Coll::gather, "Gather", true},
    {"scatter", Coll::scatter, "Scatter", true},
    {"barrier", Coll::barrier, "Barrier", false},
    // OSU's v-tests give every rank the same count; -l is not offered for them here.
    {"gatherv", Coll::gatherv, "Gatherv", false},
    {"scatterv", Coll::scatterv, "Scatterv", false},
    {"allgatherv", Coll::allgatherv, "Allgatherv", false},
    {"alltoallv", Coll::alltoallv, "All-to-Allv Personalized Exchange", false},
};

enum class Type { mpi_char, mpi_int, mpi_float };

struct Options {
  const Test* test = nullptr;
  std::string algo = "native";
  long long min_size = kMinMessageSize, max_size = kMaxMessageSize;
  std::optional<long> iterations, warmup;
  bool full = false, validate = false, in_place = false;
  std::vector<Type> types;
};

// OSU's bad_usage_t: printed as "message [-o arg]" (cclx-bench's own errors: no option).
struct BadUsage {
  std::string message;
  std::string opt;  // "-o", or empty
  std::string arg;
};
struct HelpRequested {};
struct VersionRequested {};

constexpr const char* kHelp =
    "Usage: cclx-bench --osu <collective> [options]\n"
    "collectives: allreduce reduce bcast reduce_scatter allgather alltoall gather scatter "
    "barrier\n"
    "             gatherv scatterv allgatherv alltoallv (equal counts, as OSU's)\n"
    "Options (OSU Micro-Benchmarks 7.4's):\n"
    "  -m [MIN:]MAX   message sizes in bytes (default 1:1048576)\n"
    "  -i ITER        timed iterations per size (default 1000, 100 above 8192 bytes)\n"
    "  -x WARMUP      warm-up iterations per size (default 100, 10 above 8192 bytes)\n"
    "  -f             also print Min, Max latency and Iterations\n"
    "  -c             validate every result against a locally computed one (Pass/Fail)\n"
    "  -T TYPE        mpi_char, mpi_int, mpi_float or all (repeatable; default mpi_char)\n"
    "  -l             MPI_IN_PLACE (one-buffer) calls\n"
    "  -h, -v         help, version\n"
    "cclx's:\n"
    "  --algo A       native (the MPI library's collective, called as OSU calls it) or a cclx\n"
    "                 algorithm, e.g. ring or ring(segment_bytes=64K) (default native)\n";

// ---------------------------------------------------------------------------------------------
// Options, parsed as OSU parses them (the same letters; atoll/atoi values; the same range checks
// and messages)

int set_message_size(std::string v, Options& o) {  // osu_util.c set_message_size
  const auto colon = v.find(':');
  if (colon == std::string::npos) {
    o.max_size = std::atoll(v.c_str());
    return o.max_size < 0 ? -1 : 0;
  }
  if (v.find(':', colon + 1) != std::string::npos) return -1;
  const std::string a = v.substr(0, colon), b = v.substr(colon + 1);
  if (a.empty() && b.empty()) return -1;
  if (!a.empty()) {
    o.min_size = std::atoll(a.c_str());
    if (o.min_size <= 0) return -1;
  }
  if (!b.empty()) {
    o.max_size = std::atoll(b.c_str());
    if (o.max_size < 0) return -1;
  }
  return 0;
}

Options parse(int argc, char** argv) {
  Options o;
  // OSU's -c takes an optional argument attached to it (-clog[:dir]: write mismatching buffers
  // to files); cclx-bench does not.
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    if (a.size() > 2 && a.starts_with("-c"))
      throw BadUsage{"Validation logs are not supported by cclx-bench", "-c",
                     std::string(a.substr(2))};
  }
  cclx::kit::App app("cclx-bench --osu", "OSU Micro-Benchmarks 7.4's collective latency tests");
  app.set_help_flag();  // -h is OSU's help, printed as OSU prints it
  app.allow_extras();   // unknown options are reported as OSU reports them
  bool help = false, version = false, osu = false;
  std::string m, iters, warmup;
  std::vector<std::string> types, rest;
  app.add_flag("-h,--help", help);
  app.add_flag("-v", version);
  app.add_flag("--osu", osu);
  app.add_option("--algo", o.algo);
  app.add_option("-m", m);
  app.add_option("-i", iters);
  app.add_option("-x", warmup);
  app.add_flag("-f", o.full);
  app.add_flag("-c", o.validate);
  cclx::kit::add_list(app, "-T", types, "");
  app.add_flag("-l", o.in_place);
  app.add_option("collective", rest);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ArgumentMismatch& e) {  // an option at the end, without its value
    const std::string what = e.what();
    throw BadUsage{"Option Missing Required Argument", what.substr(0, what.find(':')), ""};
  } catch (const CLI::ParseError& e) {
    throw BadUsage{e.what(), "", ""};
  }
  for (const auto& x : app.remaining()) {
    if (x.starts_with("--")) throw BadUsage{"Invalid option " + x, "", ""};
    if (x.starts_with("-") && x.size() > 1) throw BadUsage{"Invalid option", x.substr(0, 2), ""};
    rest.push_back(x);
  }
  if (help) throw HelpRequested{};
  if (version) throw VersionRequested{};
  if (app.count("-m") && set_message_size(m, o)) throw BadUsage{"Invalid Message Size", "-m", m};
  if (app.count("-i")) {
    o.iterations = std::atoi(iters.c_str());
    if (*o.iterations < 1) throw BadUsage{"Invalid Number of Iterations", "-i", iters};
  }
  if (app.count("-x")) {
    o.warmup = std::atoi(warmup.c_str());
    if (*o.warmup < 0) throw BadUsage{"Invalid Number of Warmup Iterations", "-x", warmup};
  }
  for (const auto& t : types) {
    // OSU matches the prefix, case-insensitively; it ignores other names, cclx-bench refuses.
    if (strncasecmp(t.c_str(), "MPI_CHAR", 8) == 0) {
      o.types.push_back(Type::mpi_char);
    } else if (strncasecmp(t.c_str(), "MPI_INT", 7) == 0) {
      o.types.push_back(Type::mpi_int);
    } else if (strncasecmp(t.c_str(), "MPI_FLOAT", 9) == 0) {
      o.types.push_back(Type::mpi_float);
    } else if (strncasecmp(t.c_str(), "ALL", 3) == 0) {
      o.types.insert(o.types.end(), {Type::mpi_char, Type::mpi_int, Type::mpi_float});
    } else {
      throw BadUsage{"Invalid Data Type (mpi_char, mpi_int, mpi_float, all)", "-T", t};
    }
  }
  if (rest.size() != 1)
    throw BadUsage{"expected one collective name, got " + std::to_string(rest.size()), "", ""};
  for (const Test& t : kTests)
    if (t.name == rest[0]) o.test = &t;
  if (!o.test) throw BadUsage{"Unknown collective '" + rest[0] + "'", "", ""};
  // As OSU's programs whose option string lacks these letters.
  if (o.in_place && !o.test->in_place) throw BadUsage{"Invalid option", "-l", ""};
  if (o.test->coll == Coll::barrier && o.validate) throw BadUsage{"Invalid option", "-c", ""};
  if (o.test->coll == Coll::barrier && !o.types.empty()) throw BadUsage{"Invalid option", "-T", ""};
  if (o.types.empty()) o.types.push_back(Type::mpi_char);  // OSU 7.4's default: MPI_CHAR
  return o;
}

// ---------------------------------------------------------------------------------------------
// Buffers, inputs and the expected results (what -c checks)

bool reduces(Coll c) {
  return c == Coll::allreduce || c == Coll::reduce || c == Coll::reduce_scatter;
}

// Element j of rank r's input in iteration `iter`: small integers, exact in every type, that
// name the rank and the position (a misplaced block fails). Reductions use smaller values so
// that sums stay small; for MPI_CHAR they may wrap, and the expected value wraps alike.
template <class T>
T input(Coll c, int r, std::size_t j, long iter) {
  const long long jj = static_cast<long long>(j % 997);
  const long long v = reduces(c) ? (r * 3 + jj + iter) % 15 : (r * 31 + jj * 7 + iter * 3) % 61;
  return static_cast<T>(v);
}

using cclx::kit::Buffers;
using cclx::kit::Shape;

// Elements of this rank's result that differ from the locally computed one.
template <class T>
std::size_t mismatches(const Buffers<T>& b, const Shape& s, long iter) {
  const auto value = [&](int r, std::size_t j) { return input<T>(s.coll, r, j, iter); };
  const cclx::kit::Layout l = cclx::kit::layout_of(s);
  std::size_t bad = 0;
  for (std::size_t i = l.begin; i < l.end; ++i)
    bad += b.out.at(i) != cclx::kit::expected<T>(s, i, value);
  return bad;
}

// The buffers of `s` with iteration `iter`'s inputs.
template <class T>
void fill_inputs(Buffers<T>& b, const Shape& s, long iter) {
  cclx::kit::fill(b, s, [&](int r, std::size_t j) { return input<T>(s.coll, r, j, iter); });
}

// ---------------------------------------------------------------------------------------------
// Output (rank 0), as osu_util_mpi.c prints it

void print_header(const Options& o, bool show_size) {
  if (show_size)
    std::printf("%-*s%*s", 10, "# Size", kFieldWidth, "Avg Latency(us)");
  else
    std::printf("# Avg Latency(us)");
  if (o.full)
    std::printf("%*s%*s%*s", kFieldWidth, "Min Latency(us)", kFieldWidth, "Max Latency(us)", 12,
                "Iterations");
  if (o.validate) std::printf("%*s", kFieldWidth, "Validation");
  std::printf("\n");
  std::fflush(stdout);
}

using Stats = cclx::kit::Spread;  // microseconds

void print_row(const Options& o, bool show_size, long long size, const Stats& st, long iters,
               int errors) {
  if (show_size)
    std::printf("%-*lld%*.*f", 10, size, kFieldWidth, kPrecision, st.avg);
  else
    std::printf("%*.*f", 17, kPrecision, st.avg);
  if (o.full)
    std::printf("%*.*f%*.*f%*ld", kFieldWidth, kPrecision, st.min, kFieldWidth, kPrecision, st.max,
                12, iters);
  if (o.validate) std::printf("%*s", kFieldWidth, errors > 0 ? "Fail" : "Pass");
  std::printf("\n");
  std::fflush(stdout);
}

// Latency on this rank (us per call) to avg / min / max over ranks, as OSU reports them.
Stats across_ranks(double latency, MPI_Comm comm) {
  return cclx::kit::across_ranks(latency, true, comm);
}

// ---------------------------------------------------------------------------------------------
// The measurement (osu_allreduce.c and its siblings; osu_barrier.c for the barrier)

struct Outcome {
  int errors = 0;
  long long size = 0;  // the size that failed validation
};

template <class T>
Outcome run_type(const Options& o, std::optional<Comm>& comm, MPI_Datatype dt, int rank, int n) {
  const MPI_Comm mc = MPI_COMM_WORLD;
  Shape s;
  s.n = n;
  s.rank = rank;
  s.coll = o.test->coll;
  s.in_place = o.in_place;
  Buffers<T> b;
  cclx::kit::Call call;
  if (o.algo == "native") {
    call = cclx::kit::mpi_call<T>(b, s, dt, mc);
  } else {
    call = cclx::algo::with_policy(cclx::tune::parse_candidate(o.algo), [&](const auto& a) {
      return cclx::kit::cclx_call<T>(*comm, b, s.coll, s.in_place, a);
    });
  }

  const bool barrier = s.coll == Coll::barrier;
  if (barrier) {
    if (rank == 0) print_header(o, false);
    const long iters = o.iterations.value_or(kLoopSmall), skip = o.warmup.value_or(kSkipSmall);
    double timer = 0;
    for (long i = 0; i < iters + skip; ++i) {
      const double t = cclx::kit::seconds(call);  // osu_barrier.c: no barrier around the call
      if (i >= skip) timer += t;
    }
    MPI_Barrier(mc);
    const Stats st = across_ranks(timer * 1e6 / static_cast<double>(iters), mc);
    if (rank == 0) print_row(o, false, 0, st, iters, 0);
    return {};
  }

  if (rank == 0) {
    char name[MPI_MAX_OBJECT_NAME] = {};
    int len = 0;
    MPI_Type_get_name(dt, name, &len);
    std::printf("# Datatype: %s.\n", name);
    std::fflush(stdout);
  }
  if (rank == 0) print_header(o, true);
  Outcome out;
  for (long long size = o.min_size; size <= o.max_size; size *= 2) {
    const std::size_t elements = static_cast<std::size_t>(size) / sizeof(T);
    // Reduce_scatter: cclx's (and MPI_Reduce_scatter_block's) blocks are equal; sizes with less
    // than one element per rank are skipped, as OSU skips sizes with no element.
    s.count = s.coll == Coll::reduce_scatter ? elements / static_cast<std::size_t>(n) : elements;
    if (s.count == 0) continue;
    const bool large = static_cast<std::size_t>(size) > kLargeMessageSize;
    const long iters = o.iterations.value_or(large ? kLoopLarge : kLoopSmall);
    const long skip = o.warmup.value_or(large ? kSkipLarge : kSkipSmall);
    fill_inputs(b, s, 0);

    // OSU's loop: a barrier, then per iteration (inputs refreshed first with -c) the timed call
    // and a barrier; the barrier that ends one iteration starts the next one's call.
    double timer = 0;
    std::size_t local_errors = 0;
    for (long i = 0; i < iters + skip; ++i) {
      if (o.validate) fill_inputs(b, s, i);
      const double t = cclx::kit::timed_call(mc, call);
      if (o.validate) {
        MPI_Barrier(mc);
        local_errors += mismatches(b, s, i) > 0;
      }
      if (i >= skip) timer += t;
    }
    MPI_Barrier(mc);
    const Stats st = across_ranks(timer * 1e6 / static_cast<double>(iters), mc);
    int errors = 0;
    if (o.validate) {
      int mine = static_cast<int>(local_errors);
      MPI_Allreduce(&mine, &errors, 1, MPI_INT, MPI_SUM, mc);
    }
    if (rank == 0) print_row(o, true, size, st, iters, errors);
    MPI_Barrier(mc);
    if (errors != 0) return {errors, size};
  }
  return out;
}

}  // namespace

bool requested(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::string_view(argv[i]) == "--osu") return true;
  return false;
}

int run(int argc, char** argv) {
  int rank = 0, n = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  Options o;
  try {
    o = parse(argc, argv);
    // Fail before printing anything: an unknown algorithm, or one that does not serve the test.
    if (o.algo != "native" &&
        !cclx::algo::with_policy(cclx::tune::parse_candidate(o.algo), [&](const auto& a) {
          return cclx::algo::serves<std::decay_t<decltype(a)>>(o.test->coll);
        }))
      throw cclx::Error("algorithm '" + o.algo + "' does not serve " + std::string(o.test->name));
  } catch (const HelpRequested&) {
    if (rank == 0) std::printf("%s", kHelp);
    return 0;
  } catch (const VersionRequested&) {
    if (rank == 0) std::printf("# OSU MPI-CCLX Collective Latency Tests v%s\n", kVersion);
    return 0;
  } catch (const BadUsage& e) {
    if (rank == 0) {
      if (e.opt.empty())
        std::fprintf(stderr, "cclx-bench --osu: %s\n\n", e.message.c_str());
      else if (e.arg.empty())
        std::fprintf(stderr, "%s [%s]\n\n", e.message.c_str(), e.opt.c_str());
      else
        std::fprintf(stderr, "%s [%s %s]\n\n", e.message.c_str(), e.opt.c_str(), e.arg.c_str());
      std::fprintf(stderr, "%s", kHelp);
    }
    return 1;
  } catch (const cclx::Error& e) {
    if (rank == 0) std::fprintf(stderr, "cclx-bench --osu: --algo: %s\n", e.what());
    return 1;
  }
  if (n < 2) {  // as every OSU collective test
    if (rank == 0) std::fprintf(stderr, "This test requires at least two processes\n");
    return 1;
  }

  // The Communicator only for cclx's algorithms: "native" makes no call that is not OSU's.
  std::optional<Comm> comm;
  if (o.algo != "native") comm.emplace(MPI_COMM_WORLD);
  const std::string algo_label =
      o.algo == "native" ? "native" : cclx::tune::to_string(cclx::tune::parse_candidate(o.algo));

  Outcome result;
  try {
    if (rank == 0) {
      // print_preamble: an empty line, then HEADER with the accelerator slot ("-CUDA" in OSU)
      // naming cclx and the algorithm.
      std::printf("\n# OSU MPI-CCLX-%s %s Latency Test v%s\n", algo_label.c_str(),
                  std::string(o.test->title).c_str(), kVersion);
      std::fflush(stdout);
    }
    if (o.test->coll == Coll::barrier) {
      result = run_type<std::uint8_t>(o, comm, MPI_BYTE, rank, n);
    } else {
      for (const Type t : o.types) {
        if (t == Type::mpi_char)
          result = run_type<char>(o, comm, MPI_CHAR, rank, n);
        else if (t == Type::mpi_int)
          result = run_type<int>(o, comm, MPI_INT, rank, n);
        else
          result = run_type<float>(o, comm, MPI_FLOAT, rank, n);
        if (result.errors) break;
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cclx-bench --osu: rank %d: %s\n", rank, e.what());
    std::fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  if (result.errors) {
    if (rank == 0)
      std::printf("DATA VALIDATION ERROR: %s exited with status %d on message size %lld.\n",
                  argv[0], EXIT_FAILURE, result.size);
    return 1;
  }
  return 0;
}

}  // namespace cclx_bench::osu
