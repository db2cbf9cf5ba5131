// cclx-bench --osu: OSU Micro-Benchmarks 7.4's blocking collective latency tests, with the
// collective served by a cclx algorithm or by the MPI library directly ("native", the call OSU
// makes). docs/osu.md lists the OSU source each format, default and step below follows.
//
//   mpiexec -n 4 cclx-bench --osu allreduce -m 8:1048576 -f -c -T mpi_float --algo ring

#include "osu_mode.hpp"

#include <getopt.h>
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
constexpr int kRoot = 0;                             // OSU's default root (-k fixed:0)

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

// OSU's bad_usage_t: printed as "message [-o arg]" (cclx-bench's own errors: opt 0).
struct BadUsage {
  std::string message;
  char opt = 0;
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
// Options, parsed as OSU parses them (getopt_long; atoll/atoi values; the same range checks).

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
  // --osu itself is skipped; --algo is cclx's. A leading ':' reports a missing argument as ':'.
  static const option kLong[] = {{"osu", no_argument, nullptr, 'O'},
                                 {"algo", required_argument, nullptr, 'A'},
                                 {nullptr, 0, nullptr, 0}};
  opterr = 0;
  optind = 1;
  int c = 0;
  while ((c = getopt_long(argc, argv, ":hvfm:i:x:c::T:l", kLong, nullptr)) != -1) {
    const std::string arg = optarg ? optarg : "";
    switch (c) {
      case 'O':
        break;
      case 'A':
        o.algo = arg;
        break;
      case 'h':
        throw HelpRequested{};
      case 'v':
        throw VersionRequested{};
      case 'm':
        if (set_message_size(arg, o)) throw BadUsage{"Invalid Message Size", 'm', arg};
        break;
      case 'i':
        o.iterations = std::atoi(arg.c_str());
        if (*o.iterations < 1) throw BadUsage{"Invalid Number of Iterations", 'i', arg};
        break;
      case 'x':
        o.warmup = std::atoi(arg.c_str());
        if (*o.warmup < 0) throw BadUsage{"Invalid Number of Warmup Iterations", 'x', arg};
        break;
      case 'f':
        o.full = true;
        break;
      case 'c':
        // OSU's -clog[:dir] writes mismatching buffers to files; cclx-bench does not.
        if (optarg) throw BadUsage{"Validation logs are not supported by cclx-bench", 'c', arg};
        o.validate = true;
        break;
      case 'T':
        // OSU matches the prefix, case-insensitively; it ignores other names, cclx-bench refuses.
        if (strncasecmp(arg.c_str(), "MPI_CHAR", 8) == 0) {
          o.types.push_back(Type::mpi_char);
        } else if (strncasecmp(arg.c_str(), "MPI_INT", 7) == 0) {
          o.types.push_back(Type::mpi_int);
        } else if (strncasecmp(arg.c_str(), "MPI_FLOAT", 9) == 0) {
          o.types.push_back(Type::mpi_float);
        } else if (strncasecmp(arg.c_str(), "ALL", 3) == 0) {
          o.types.insert(o.types.end(), {Type::mpi_char, Type::mpi_int, Type::mpi_float});
        } else {
          throw BadUsage{"Invalid Data Type (mpi_char, mpi_int, mpi_float, all)", 'T', arg};
        }
        break;
      case 'l':
        o.in_place = true;
        break;
      case ':':
        throw BadUsage{"Option Missing Required Argument", static_cast<char>(optopt), ""};
      default:
        if (optopt == 0)  // an unknown long option: name it
          throw BadUsage{"Invalid option " + std::string(argv[optind - 1]), 0, ""};
        throw BadUsage{"Invalid option", static_cast<char>(optopt), ""};
    }
  }
  std::vector<std::string_view> rest(argv + optind, argv + argc);
  if (rest.size() != 1)
    throw BadUsage{"expected one collective name, got " + std::to_string(rest.size()), 0, ""};
  for (const Test& t : kTests)
    if (t.name == rest[0]) o.test = &t;
  if (!o.test) throw BadUsage{"Unknown collective '" + std::string(rest[0]) + "'", 0, ""};
  // As OSU's programs whose option string lacks these letters.
  if (o.in_place && !o.test->in_place) throw BadUsage{"Invalid option", 'l', ""};
  if (o.test->coll == Coll::barrier && o.validate) throw BadUsage{"Invalid option", 'c', ""};
  if (o.test->coll == Coll::barrier && !o.types.empty()) throw BadUsage{"Invalid option", 'T', ""};
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

struct Shape {
  std::size_t count = 0;  // elements per call argument (MPI's count / sendcount)
  int n = 0, rank = 0;
  Coll coll{};
  Coll shape{};                     // the equal-block collective laid out alike (gatherv: gather)
  std::vector<int> counts, displs;  // v-collectives: count and its offset for every rank
  bool in_place = false;
};

template <class T>
struct Buffers {
  std::vector<T> in, out;
};

// Sizes and inputs as MPI lays them out for the call, out of place or in place.
template <class T>
void fill(Buffers<T>& b, const Shape& s, long iter) {
  const std::size_t c = s.count, un = static_cast<std::size_t>(s.n);
  const bool root = s.rank == kRoot;
  std::size_t in_n = 0, out_n = 0;
  switch (s.shape) {
    case Coll::allreduce:
    case Coll::reduce:
    case Coll::bcast:
      in_n = out_n = c;
      break;
    case Coll::reduce_scatter:
      in_n = c * un;
      out_n = s.in_place ? c * un : c;
      break;
    case Coll::allgather:
      in_n = c;
      out_n = c * un;
      break;
    case Coll::alltoall:
      in_n = out_n = c * un;
      break;
    case Coll::gather:
      in_n = c;
      out_n = s.in_place && !root ? c : c * un;
      break;
    case Coll::scatter:
      in_n = c * un;
      out_n = s.in_place && root ? c * un : c;
      break;
    default:
      break;
  }
  b.in.assign(s.in_place || s.shape == Coll::bcast ? 0 : in_n, T{});
  b.out.assign(out_n, T{});
  auto mine = [&](std::size_t j) { return input<T>(s.coll, s.rank, j, iter); };
  if (!b.in.empty()) {
    for (std::size_t j = 0; j < in_n; ++j) b.in[j] = mine(j);
    return;
  }
  // One buffer: the input goes where MPI_IN_PLACE (or MPI_Bcast) expects it.
  if (s.shape == Coll::bcast) {
    if (root)
      for (std::size_t j = 0; j < c; ++j) b.out[j] = mine(j);
  } else if (s.shape == Coll::allgather || (s.shape == Coll::gather && root)) {
    for (std::size_t j = 0; j < c; ++j) b.out[s.rank * c + j] = mine(j);
  } else if (s.shape == Coll::scatter && !root) {
    // receives only
  } else {
    for (std::size_t j = 0; j < out_n; ++j) b.out[j] = mine(j);
  }
}

// Elements of this rank's result that differ from the locally computed one.
template <class T>
std::size_t mismatches(const Buffers<T>& b, const Shape& s, long iter) {
  const std::size_t c = s.count;
  const bool root = s.rank == kRoot;
  const auto me = static_cast<std::size_t>(s.rank);
  std::size_t bad = 0;
  auto expect = [&](std::size_t i, T want) { bad += b.out.at(i) != want; };
  auto sum = [&](std::size_t j) {
    long long v = 0;
    for (int r = 0; r < s.n; ++r) v += static_cast<long long>(input<T>(s.coll, r, j, iter));
    return static_cast<T>(v);
  };
  switch (s.shape) {
    case Coll::allreduce:
      for (std::size_t k = 0; k < c; ++k) expect(k, sum(k));
      break;
    case Coll::reduce:
      if (root)
        for (std::size_t k = 0; k < c; ++k) expect(k, sum(k));
      break;
    case Coll::bcast:
      for (std::size_t k = 0; k < c; ++k) expect(k, input<T>(s.coll, kRoot, k, iter));
      break;
    case Coll::reduce_scatter:
      for (std::size_t k = 0; k < c; ++k) expect(k, sum(me * c + k));
      break;
    case Coll::allgather:
      for (int r = 0; r < s.n; ++r)
        for (std::size_t k = 0; k < c; ++k) expect(r * c + k, input<T>(s.coll, r, k, iter));
      break;
    case Coll::alltoall:
      for (int r = 0; r < s.n; ++r)
        for (std::size_t k = 0; k < c; ++k)
          expect(r * c + k, input<T>(s.coll, r, me * c + k, iter));
      break;
    case Coll::gather:
      if (root)
        for (int r = 0; r < s.n; ++r)
          for (std::size_t k = 0; k < c; ++k) expect(r * c + k, input<T>(s.coll, r, k, iter));
      break;
    case Coll::scatter: {
      const std::size_t at = s.in_place && root ? me * c : 0;
      for (std::size_t k = 0; k < c; ++k) expect(at + k, input<T>(s.coll, kRoot, me * c + k, iter));
      break;
    }
    default:
      break;
  }
  return bad;
}

// ---------------------------------------------------------------------------------------------
// The call: the MPI library's (as OSU makes it) or cclx's with a policy

using Call = std::function<void()>;

template <class T>
Call native_call(Buffers<T>& b, const Shape& s, MPI_Datatype dt, MPI_Comm comm) {
  void* const ip = MPI_IN_PLACE;
  switch (s.coll) {
    case Coll::allreduce:
      return [&b, &s, dt, comm, ip] {
        MPI_Allreduce(s.in_place ? ip : b.in.data(), b.out.data(), static_cast<int>(s.count), dt,
                      MPI_SUM, comm);
      };
    case Coll::reduce:
      return [&b, &s, dt, comm, ip] {
        const bool root = s.rank == kRoot;
        const void* send = s.in_place ? (root ? ip : b.out.data()) : b.in.data();
        void* recv = s.in_place && !root ? nullptr : b.out.data();
        MPI_Reduce(send, recv, static_cast<int>(s.count), dt, MPI_SUM, kRoot, comm);
      };
    case Coll::bcast:
      return [&b, &s, dt, comm] {
        MPI_Bcast(b.out.data(), static_cast<int>(s.count), dt, kRoot, comm);
      };
    case Coll::reduce_scatter:
      return [&b, &s, dt, comm, ip] {
        MPI_Reduce_scatter_block(s.in_place ? ip : b.in.data(), b.out.data(),
                                 static_cast<int>(s.count), dt, MPI_SUM, comm);
      };
    case Coll::allgather:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        MPI_Allgather(s.in_place ? ip : b.in.data(), c, dt, b.out.data(), c, dt, comm);
      };
    case Coll::alltoall:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        MPI_Alltoall(s.in_place ? ip : b.in.data(), c, dt, b.out.data(), c, dt, comm);
      };
    case Coll::gather:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        const bool root = s.rank == kRoot;
        if (!s.in_place)
          MPI_Gather(b.in.data(), c, dt, b.out.data(), c, dt, kRoot, comm);
        else if (root)
          MPI_Gather(ip, c, dt, b.out.data(), c, dt, kRoot, comm);
        else
          MPI_Gather(b.out.data(), c, dt, nullptr, c, dt, kRoot, comm);
      };
    case Coll::scatter:
      return [&b, &s, dt, comm, ip] {
        const int c = static_cast<int>(s.count);
        const bool root = s.rank == kRoot;
        if (!s.in_place)
          MPI_Scatter(b.in.data(), c, dt, b.out.data(), c, dt, kRoot, comm);
        else if (root)
          MPI_Scatter(b.out.data(), c, dt, ip, c, dt, kRoot, comm);
        else
          MPI_Scatter(nullptr, c, dt, b.out.data(), c, dt, kRoot, comm);
      };
    case Coll::barrier:
      return [comm] { MPI_Barrier(comm); };
    case Coll::gatherv:
      return [&b, &s, dt, comm] {
        MPI_Gatherv(b.in.data(), static_cast<int>(s.count), dt, b.out.data(), s.counts.data(),
                    s.displs.data(), dt, kRoot, comm);
      };
    case Coll::scatterv:
      return [&b, &s, dt, comm] {
        MPI_Scatterv(b.in.data(), s.counts.data(), s.displs.data(), dt, b.out.data(),
                     static_cast<int>(s.count), dt, kRoot, comm);
      };
    case Coll::allgatherv:
      return [&b, &s, dt, comm] {
        MPI_Allgatherv(b.in.data(), static_cast<int>(s.count), dt, b.out.data(), s.counts.data(),
                       s.displs.data(), dt, comm);
      };
    case Coll::alltoallv:
      return [&b, &s, dt, comm] {
        MPI_Alltoallv(b.in.data(), s.counts.data(), s.displs.data(), dt, b.out.data(),
                      s.counts.data(), s.displs.data(), dt, comm);
      };
    default:
      break;
  }
  throw cclx::Error("cclx-bench --osu: no native call for this collective");
}

template <class T, class A>
Call cclx_call(Comm& comm, Buffers<T>& b, const Shape& s, const A& a) {
  namespace al = cclx::algo;
  switch (s.coll) {
    case Coll::allreduce:
      if constexpr (al::serves<A>(Coll::allreduce))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.allreduce(b.out, cclx::sum, a);
          else
            comm.allreduce(b.in, b.out, cclx::sum, a);
        };
      break;
    case Coll::reduce:
      if constexpr (al::serves<A>(Coll::reduce))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.reduce(b.out, cclx::sum, kRoot, a);
          else
            comm.reduce(b.in, b.out, cclx::sum, kRoot, a);
        };
      break;
    case Coll::bcast:
      if constexpr (al::serves<A>(Coll::bcast))
        return [&comm, &b, a] { comm.bcast(b.out, kRoot, a); };
      break;
    case Coll::reduce_scatter:
      if constexpr (al::serves<A>(Coll::reduce_scatter))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.reduce_scatter(b.out, cclx::sum, a);
          else
            comm.reduce_scatter(b.in, b.out, cclx::sum, a);
        };
      break;
    case Coll::allgather:
      if constexpr (al::serves<A>(Coll::allgather))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.allgather(b.out, a);
          else
            comm.allgather(b.in, b.out, a);
        };
      break;
    case Coll::alltoall:
      if constexpr (al::serves<A>(Coll::alltoall))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.alltoall(b.out, a);
          else
            comm.alltoall(b.in, b.out, a);
        };
      break;
    case Coll::gather:
      if constexpr (al::serves<A>(Coll::gather))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.gather(b.out, kRoot, a);
          else
            comm.gather(b.in, b.out, kRoot, a);
        };
      break;
    case Coll::scatter:
      if constexpr (al::serves<A>(Coll::scatter))
        return [&comm, &b, &s, a] {
          if (s.in_place)
            comm.scatter(b.out, kRoot, a);
          else
            comm.scatter(b.in, b.out, kRoot, a);
        };
      break;
    case Coll::barrier:
      if constexpr (al::serves<A>(Coll::barrier)) return [&comm, a] { comm.barrier(a); };
      break;
    case Coll::gatherv:
      if constexpr (al::serves<A>(Coll::gatherv))
        return [&comm, &b, &s, a] { comm.gatherv(b.in, b.out, s.counts, kRoot, a); };
      break;
    case Coll::scatterv:
      if constexpr (al::serves<A>(Coll::scatterv))
        return [&comm, &b, &s, a] { comm.scatterv(b.in, b.out, s.counts, kRoot, a); };
      break;
    case Coll::allgatherv:
      if constexpr (al::serves<A>(Coll::allgatherv))
        return [&comm, &b, &s, a] { comm.allgatherv(b.in, b.out, s.counts, a); };
      break;
    case Coll::alltoallv:
      if constexpr (al::serves<A>(Coll::alltoallv))
        return [&comm, &b, &s, a] { comm.alltoallv(b.in, s.counts, b.out, s.counts, a); };
      break;
    default:
      break;
  }
  throw cclx::Error("algorithm '" + std::string(A::name) + "' does not serve " +
                    std::string(cclx::sched::to_string(s.coll)));
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

struct Stats {
  double avg = 0, min = 0, max = 0;  // microseconds
};

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

// Latency on this rank (us per call) to avg / min / max over ranks, as OSU reduces it to rank 0.
Stats across_ranks(double latency, MPI_Comm comm, int n) {
  Stats st;
  MPI_Reduce(&latency, &st.min, 1, MPI_DOUBLE, MPI_MIN, 0, comm);
  MPI_Reduce(&latency, &st.max, 1, MPI_DOUBLE, MPI_MAX, 0, comm);
  MPI_Reduce(&latency, &st.avg, 1, MPI_DOUBLE, MPI_SUM, 0, comm);
  st.avg /= n;
  return st;
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
  s.shape = cclx::coll::shape_of(s.coll);
  s.in_place = o.in_place;
  Buffers<T> b;
  Call call;
  if (o.algo == "native") {
    call = native_call<T>(b, s, dt, mc);
  } else {
    call = cclx::algo::with_policy(cclx::tune::parse_candidate(o.algo),
                                   [&](const auto& a) { return cclx_call<T>(*comm, b, s, a); });
  }

  const bool barrier = s.coll == Coll::barrier;
  if (barrier) {
    if (rank == 0) print_header(o, false);
    const long iters = o.iterations.value_or(kLoopSmall), skip = o.warmup.value_or(kSkipSmall);
    double timer = 0;
    for (long i = 0; i < iters + skip; ++i) {
      const double t0 = MPI_Wtime();
      call();
      const double t1 = MPI_Wtime();
      if (i >= skip) timer += t1 - t0;
    }
    MPI_Barrier(mc);
    const Stats st = across_ranks(timer * 1e6 / static_cast<double>(iters), mc, n);
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
    s.counts.assign(static_cast<std::size_t>(n), static_cast<int>(s.count));
    s.displs.resize(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) s.displs[r] = r * static_cast<int>(s.count);
    const bool large = static_cast<std::size_t>(size) > kLargeMessageSize;
    const long iters = o.iterations.value_or(large ? kLoopLarge : kLoopSmall);
    const long skip = o.warmup.value_or(large ? kSkipLarge : kSkipSmall);
    fill(b, s, 0);

    MPI_Barrier(mc);
    double timer = 0;
    std::size_t local_errors = 0;
    for (long i = 0; i < iters + skip; ++i) {
      if (o.validate) {
        fill(b, s, i);
        MPI_Barrier(mc);
      }
      const double t0 = MPI_Wtime();
      call();
      const double t1 = MPI_Wtime();
      MPI_Barrier(mc);
      if (o.validate) local_errors += mismatches(b, s, i) > 0;
      if (i >= skip) timer += t1 - t0;
    }
    const Stats st = across_ranks(timer * 1e6 / static_cast<double>(iters), mc, n);
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
      if (e.opt == 0)
        std::fprintf(stderr, "cclx-bench --osu: %s\n\n", e.message.c_str());
      else if (e.arg.empty())
        std::fprintf(stderr, "%s [-%c]\n\n", e.message.c_str(), e.opt);
      else
        std::fprintf(stderr, "%s [-%c %s]\n\n", e.message.c_str(), e.opt, e.arg.c_str());
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
