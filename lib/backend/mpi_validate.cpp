// MpiBackend::agree(): CCLX_VALIDATE's cross-rank check of a collective call.
#include <algorithm>
//
// Every rank contributes one fixed-size record (one MPI_Allgather of about 300 bytes per rank):
// the call's shape, the algorithm's name and wire parameters, the communicator-wide settings that
// change the wire protocol, how many scheduled collectives this rank has run, and whether it found
// an error of its own. Then every rank throws the same verdict, or none does.
#include <array>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cclx/backend/mpi.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::mpi_check;
using sched::Collective;

namespace {

constexpr std::size_t max_settings = 4;

// What every rank must agree on; exchanged as bytes (all ranks run the same binary).
struct CallRecord {
  std::int64_t collective, count, type, op, commutative, root, has_error;
  std::int64_t persistent;    // a persistent request's init
  std::int64_t channel;       // scheduled collectives started so far (MpiBackend::next_channel)
  std::uint64_t params_hash;  // of the whole parameter string (params[] holds a prefix)
  std::int64_t settings[max_settings];
  char algorithm[32];
  char params[96];
  char error[96];  // the local error's prefix, for the other ranks' message
};

// FNV-1a, 64 bits.
std::uint64_t hash(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const unsigned char ch : s) h = (h ^ ch) * 0x100000001b3ull;
  return h;
}

// Copies `s` into a fixed field, NUL-terminated; an overlong string ends in "...".
template <std::size_t N>
void put(char (&field)[N], std::string_view s) {
  const std::size_t n = std::min(s.size(), N - 1);
  std::memcpy(field, s.data(), n);
  field[n] = '\0';
  if (s.size() > N - 1) std::memcpy(field + N - 4, "...", 3);
}

std::string list_ranks(const std::vector<int>& ranks) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
  return s.str();
}

}  // namespace

void MpiBackend::agree(const CollectiveCall& c, const Agreement& a) const {
  // Communicator-wide settings that change what goes over the wire, so they must be equal on
  // every rank. The wait policy is local (how a rank waits, not what it sends) and not listed.
  const std::pair<const char*, std::int64_t> settings[] = {
      {"handshake_bytes (CCLX_HANDSHAKE_BYTES)", static_cast<std::int64_t>(s_->handshake_bytes)},
      {"timeout_ms (CCLX_TIMEOUT)", static_cast<std::int64_t>(s_->timeout_s * 1000.0)},
  };
  static_assert(std::size(settings) <= max_settings, "CallRecord::settings is too small");

  const bool rooted = coll::visit(c.collective, [](auto d) { return d.rooted; });
  CallRecord mine{};
  mine.collective = static_cast<std::int64_t>(c.collective);
  mine.count = static_cast<std::int64_t>(c.count);
  mine.type = static_cast<std::int64_t>(c.type);
  mine.op = c.has_op ? static_cast<std::int64_t>(c.kernel.op) : -1;
  mine.commutative = c.has_op ? c.kernel.commutative : -1;
  mine.root = rooted ? c.root : -1;  // in-place is a per-rank choice in MPI (reduce's root only)
  mine.has_error = a.local_error.empty() ? 0 : 1;
  mine.persistent = a.persistent ? 1 : 0;
  mine.channel = static_cast<std::int64_t>(s_->channel);
  mine.params_hash = hash(a.params);
  for (std::size_t i = 0; i < std::size(settings); ++i) mine.settings[i] = settings[i].second;
  put(mine.algorithm, a.algorithm);
  put(mine.params, a.params);
  put(mine.error, a.local_error);

  std::vector<CallRecord> all(static_cast<std::size_t>(s_->size));
  if (s_->timeout_s <= 0) {
    mpi_check(MPI_Allgather(&mine, sizeof mine, MPI_BYTE, all.data(), sizeof mine, MPI_BYTE,
                            s_->internal),
              s_->rank, "MPI_Allgather (validation)");
  } else {  // against the deadline: a rank that never arrives must not hang the others
    // The buffers of an abandoned MPI_Iallgather must outlive it: they go to the heap, and are
    // leaked if it times out.
    auto bufs = std::make_unique<std::vector<CallRecord>>(all.size() + 1);
    (*bufs)[0] = mine;
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(MPI_Iallgather(bufs->data(), sizeof mine, MPI_BYTE, bufs->data() + 1, sizeof mine,
                             MPI_BYTE, s_->internal, &req),
              s_->rank, "MPI_Iallgather (validation)");
    try {
      s_->finish(req, false, [&] {
        return std::string(sched::to_string(c.collective)) + ": validation (CCLX_VALIDATE)";
      });
    } catch (const Error&) {
      (void)bufs.release();
      throw;
    }
    std::copy(bufs->begin() + 1, bufs->end(), all.begin());
  }
  auto rec = [&](int i) -> const CallRecord& { return all[static_cast<std::size_t>(i)]; };

  const std::string what(sched::to_string(c.collective));
  if (!a.local_error.empty()) throw Error(s_->rank, a.local_error);
  std::vector<int> failed;
  for (int i = 0; i < s_->size; ++i)
    if (rec(i).has_error) failed.push_back(i);
  if (!failed.empty())
    throw Error(s_->rank, what + ": invalid arguments on rank(s) " + list_ranks(failed) +
                              " (CCLX_VALIDATE): rank " + std::to_string(failed[0]) + ": " +
                              rec(failed[0]).error);

  std::ostringstream diff;
  auto field = [&](const std::string& name, auto get, auto show) {
    std::vector<int> differ;
    for (int i = 1; i < s_->size; ++i)
      if (get(rec(i)) != get(rec(0))) differ.push_back(i);
    if (differ.empty()) return;
    diff << "; " << name << ": rank 0 has " << show(rec(0));
    for (int i : differ) diff << ", rank " << i << " has " << show(rec(i));
  };
  auto num = [](auto v) { return std::to_string(v); };
  field(
      "collective", [](const CallRecord& r) { return r.collective; },
      [](const CallRecord& r) {
        return std::string(sched::to_string(static_cast<Collective>(r.collective)));
      });
  field(
      "call", [](const CallRecord& r) { return r.persistent; },
      [](const CallRecord& r) {
        return std::string(r.persistent ? "persistent init" : "one-shot");
      });
  field(
      "count", [](const CallRecord& r) { return r.count; },
      [&](const CallRecord& r) { return num(r.count); });
  field(
      "element type", [](const CallRecord& r) { return r.type; },
      [](const CallRecord& r) { return std::string(to_string(static_cast<DataType>(r.type))); });
  field(
      "op", [](const CallRecord& r) { return r.op * 2 + r.commutative; },
      [](const CallRecord& r) {
        return r.op < 0 ? std::string("none") : std::string(to_string(static_cast<OpId>(r.op)));
      });
  field(
      "root", [](const CallRecord& r) { return r.root; },
      [&](const CallRecord& r) { return num(r.root); });
  field(
      "algorithm", [](const CallRecord& r) { return std::string(r.algorithm); },
      [](const CallRecord& r) { return std::string(r.algorithm); });
  // Parameters only mean the same thing under the same algorithm name.
  if (diff.str().find("; algorithm:") == std::string::npos)
    field(
        "algorithm parameters", [](const CallRecord& r) { return r.params_hash; },
        [](const CallRecord& r) { return r.params[0] ? std::string(r.params) : "(none)"; });
  for (std::size_t k = 0; k < std::size(settings); ++k)
    field(
        settings[k].first, [k](const CallRecord& r) { return r.settings[k]; },
        [&, k](const CallRecord& r) { return num(r.settings[k]); });
  field(
      "scheduled collectives so far (a rank skipped or added one)",
      [](const CallRecord& r) { return r.channel; },
      [&](const CallRecord& r) { return num(r.channel); });
  const std::string d = diff.str();
  if (!d.empty()) throw Error(s_->rank, what + ": ranks disagree (CCLX_VALIDATE):" + d.substr(1));
}

}  // namespace cclx
