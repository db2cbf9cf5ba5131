// The table of every CCLX_* variable (include/cclx/settings.hpp). A new variable is one row here
// and one Id; docs/environment.md is regenerated from this table (cclx-info --settings --markdown).
#include <array>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/settings.hpp"
#include "cclx/tune/override.hpp"

namespace cclx::settings {

namespace {

constexpr std::array<std::string_view, 2> kTune = {"off", "online"};
constexpr std::array<std::string_view, 3> kLog = {"tune", "shim", "all"};
constexpr std::array<std::string_view, 3> kWait = {"spin", "yield", "backoff"};
constexpr std::array<std::string_view, 3> kCudaAware = {"auto", "0", "1"};

std::any parse_algo(std::string_view text) {
  return tune::Overrides::parse(text);
}

// Three non-negative numbers "factor,floor,cap"; empty: nullopt (the policy's own fields).
std::any parse_adaptive_fault(std::string_view text) {
  if (text.empty()) return std::optional<std::array<double, 3>>();
  const std::string s(text);
  std::array<double, 3> x{};
  const char* p = s.c_str();
  for (std::size_t i = 0; i < x.size(); ++i) {
    char* end = nullptr;
    x[i] = std::strtod(p, &end);
    if (end == p || !(x[i] >= 0) || (i < 2 && *end != ',') || (i == 2 && *end != '\0'))
      throw Error("expected factor,floor,cap (non-negative numbers; seconds)");
    p = end + 1;
  }
  return std::optional<std::array<double, 3>>(x);
}

// A host id per rank of MPI_COMM_WORLD, comma-separated non-negative integers; empty: none.
std::any parse_hosts(std::string_view text) {
  std::vector<int> ids;
  if (text.empty()) return ids;
  const std::string s(text);
  const char* p = s.c_str();
  for (;;) {
    char* end = nullptr;
    const long v = std::strtol(p, &end, 10);
    if (end == p || v < 0 || v > INT_MAX || (*end != ',' && *end != '\0'))
      throw Error("expected a host id per rank: non-negative integers, comma-separated");
    ids.push_back(static_cast<int>(v));
    if (*end == '\0') break;
    p = end + 1;
  }
  return ids;
}

// A rate in bytes per second: a positive number with an optional decimal suffix k, M or G
// (network rates are decimal: 12.5G is 12.5e9 B/s, a 100 Gb/s link) -> double.
std::any parse_rate(std::string_view text) {
  const std::string s(text);
  char* end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  const std::string_view suffix(end, static_cast<std::size_t>(s.c_str() + s.size() - end));
  if (suffix == "k")
    v *= 1e3;
  else if (suffix == "M")
    v *= 1e6;
  else if (suffix == "G")
    v *= 1e9;
  else if (!suffix.empty())
    v = -1;
  if (end == s.c_str() || !std::isfinite(v) || !(v > 0))
    throw Error("expected bytes per second: a positive number, optionally with k, M or G");
  return v;
}

// clang-format off
const std::array<Spec, count> kTable = {{
    {Id::algo, "CCLX_ALGO", Type::string, "",
     "rules <collective>:<lo>-<hi>=<algorithm>, comma-separated, sections ';'-separated (* for any collective or size)",
     "algo::Auto's first source: the algorithm per collective and message size (docs/tuning.md)",
     {}, 0, &parse_algo},
    {Id::tune, "CCLX_TUNE", Type::enumeration, "off", "off or online",
     "online: algo::Auto times the candidates of blocking calls and keeps the fastest per call shape",
     kTune},
    {Id::tune_file, "CCLX_TUNE_FILE", Type::path, "",
     "a tuning table (JSON, as cclx-bench --tune-out writes it)",
     "algo::Auto's measured table, consulted after CCLX_ALGO and before the model"},
    {Id::tune_save, "CCLX_TUNE_SAVE", Type::path, "", "a file name (merged into when it exists)",
     "rank 0 writes what online tuning learned there when the communicator is destroyed"},
    {Id::log, "CCLX_LOG", Type::list, "", "a comma-separated list of tune, shim and all",
     "what to print to stderr: tune, algo::Auto's decisions (rank 0); shim, the preload library's first call of each kind; all, both",
     kLog},
    {Id::validate, "CCLX_VALIDATE", Type::boolean, "0", "1, 0, true, false, yes, no, on or off",
     "before every collective, all ranks check that they agree on the call, the algorithm and its parameters"},
    {Id::reproducible, "CCLX_REPRODUCIBLE", Type::boolean, "0", "1, 0, true, false, yes, no, on or off",
     "floating-point reductions combine in the canonical order: the same bits whatever the algorithm (docs/reproducibility.md)"},
    {Id::wait, "CCLX_WAIT", Type::enumeration, "spin", "spin, yield or backoff",
     "how the engine waits for transfers (backoff when ranks outnumber cores)", kWait},
    {Id::handshake_bytes, "CCLX_HANDSHAKE_BYTES", Type::byte_size, "0",
     "a byte size such as 0, 65536, 256K or 1.5M",
     "steps moving at least this many bytes to a peer wait until it is ready to receive (0: never; equal on all ranks)"},
    {Id::max_message_bytes, "CCLX_MAX_MESSAGE_BYTES", Type::byte_size, "0",
     "a byte size such as 0, 32K or 1M",
     "the MPI transport sends no larger message: the engine moves a larger transfer as several (0: any size; equal on all ranks); 32K under Open MPI over TCP (docs/testbed.md)"},
    {Id::timeout, "CCLX_TIMEOUT", Type::seconds, "off",
     "seconds such as 30, 0.5 or 2s (0, off or none: no deadline)",
     "deadline of every blocking collective and wait(): the waiting ranks throw, naming the rank they waited for"},
    {Id::adaptive_fault, "CCLX_ADAPTIVE_FAULT", Type::list, "",
     "factor,floor,cap: three non-negative numbers (floor and cap in seconds)",
     "algo::Adaptive's fault time-out for the whole job (unset: the policy's fields, by default 5,10,300)",
     {}, 0, &parse_adaptive_fault},
    {Id::shim_report, "CCLX_SHIM_REPORT", Type::path, "", "a file name",
     "the preload library: at MPI_Finalize rank 0 writes what was served and what passed through"},
    {Id::cuda_aware, "CCLX_CUDA_AWARE", Type::enumeration, "auto", "auto, 0 or 1",
     "CudaBackend: 1 hands device pointers to MPI, 0 stages through pinned host memory, auto asks the MPI",
     kCudaAware},
    {Id::cuda_chunk_bytes, "CCLX_CUDA_CHUNK_BYTES", Type::byte_size, "1M",
     "a positive byte size such as 4M or 4194304",
     "CudaBackend: staging chunk of each transfer (equal on all ranks)", {}, 1},
    {Id::cuda_depth, "CCLX_CUDA_DEPTH", Type::integer, "2", "an integer of at least 2",
     "CudaBackend: pinned staging slots per peer and direction", {}, 2},
    {Id::cuda_pinned_cache_bytes, "CCLX_CUDA_PINNED_CACHE_BYTES", Type::byte_size, "512M",
     "a byte size such as 0 or 512M",
     "CudaBackend: pinned host memory its pool keeps for reuse (0: none)"},
    {Id::hosts, "CCLX_HOSTS", Type::list, "",
     "a host id per rank of MPI_COMM_WORLD, comma-separated (0,0,1,1,2)",
     "emulated hosts for the hierarchical policies in place of MPI's shared-memory split; wins over CCLX_RANKS_PER_HOST (docs/hierarchical.md)",
     {}, 0, &parse_hosts},
    {Id::ranks_per_host, "CCLX_RANKS_PER_HOST", Type::integer, "0", "an integer (0: unset)",
     "emulated hosts of K consecutive ranks of MPI_COMM_WORLD each, in place of MPI's shared-memory split (docs/hierarchical.md)"},
    {Id::net_latency, "CCLX_NET_LATENCY", Type::seconds, "5e-6", "seconds, such as 5e-6",
     "algo::Auto's model: latency of a message between hosts (docs/tuning.md)"},
    {Id::net_bandwidth, "CCLX_NET_BANDWIDTH", Type::string, "12.5G",
     "bytes per second with an optional decimal k, M or G, such as 12.5G",
     "algo::Auto's model: one host link's rate in each direction (docs/tuning.md)", {}, 0, &parse_rate},
    {Id::net_links, "CCLX_NET_LINKS", Type::integer, "1", "an integer of at least 1",
     "algo::Auto's model: links (NICs) per host, a host's ranks spread over them (docs/tuning.md)", {}, 1},
}};
// clang-format on

}  // namespace

std::string format_rate(double bytes_per_s) {
  const char* suffix = "";
  double v = bytes_per_s;
  for (const char* s : {"k", "M", "G"}) {
    if (v < 1e3) break;
    v /= 1e3;
    suffix = s;
  }
  char text[32];
  std::snprintf(text, sizeof text, "%.3g%s", v, suffix);
  return text;
}

std::span<const Spec> table() {
  return kTable;
}

}  // namespace cclx::settings
