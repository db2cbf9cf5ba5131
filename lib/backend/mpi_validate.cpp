// MpiBackend::agree(): CCLX_VALIDATE's cross-rank check of a collective call; and
// detail::agree_settings(), every backend's check of its settings across ranks at construction.
#include <algorithm>
//
// Every rank contributes one fixed-size record (one MPI_Allgather of about 400 bytes per rank):
// the call's shape, the algorithm's name and wire parameters, the communicator-wide settings that
// change the wire protocol, how many scheduled collectives this rank has run, and whether it found
// an error of its own. Then every rank throws the same verdict, or none does.
//
// The v-collectives' counts: gatherv, scatterv, allgatherv and reduce_scatterv take the same
// counts array on every rank, compared in the record (a hash of all of it, and its start as
// text). Alltoallv's differ per rank; once the records agree, one MPI_Alltoall hands every rank
// what the others will send it (their sendcounts, or in place their recvcounts) to compare with
// its recvcounts, and one MPI_Allgather of the verdicts makes every rank throw the same error.
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
  std::uint64_t counts_hash;  // v-collectives with one counts array for all ranks; else 0
  std::int64_t settings[max_settings];
  char algorithm[32];
  char params[96];
  char error[96];   // the local error's prefix, for the other ranks' message
  char counts[64];  // the start of the counts array, for the message
};

// Alltoallv: what one rank found comparing its recvcounts with what the others send it.
struct CountsVerdict {
  std::int64_t from = -1;  // the first rank whose sendcount differs; -1: none
  std::int64_t sends = 0, expects = 0;
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

// FNV-1a over an integer array's values.
std::uint64_t hash(const detail::IntArray& a) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (std::size_t i = 0; i < a.size; ++i) {
    const auto v = static_cast<std::uint64_t>(a[i]);
    for (int b = 0; b < 64; b += 8) h = (h ^ ((v >> b) & 0xff)) * 0x100000001b3ull;
  }
  return (h ^ a.size) * 0x100000001b3ull;
}

std::string show(const detail::IntArray& a) {
  std::string s = "[";
  for (std::size_t i = 0; i < a.size; ++i) {
    if (s.size() > 48) {
      s += "...";
      break;
    }
    if (i) s += ',';
    s += std::to_string(a[i]);
  }
  return s + "]";
}

std::string list_ranks(const std::vector<int>& ranks) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
  return s.str();
}

}  // namespace

void detail::agree_settings(MPI_Comm comm, int rank, int size,
                            std::initializer_list<settings::Id> read,
                            std::initializer_list<settings::Id> wire) {
  // One record per rank: the first setting it finds invalid (-1: none), then the wire values.
  constexpr std::size_t max_wire = 6;
  if (wire.size() > max_wire) throw Error(rank, "agree_settings: too many wire settings");
  std::array<std::int64_t, max_wire + 1> mine{};
  mine[0] = -1;
  std::string error;  // this rank's message for it
  const auto valid = [&](settings::Id id) {
    std::string e = settings::value(id).error;
    if (e.empty()) return true;
    if (error.empty()) {
      mine[0] = static_cast<std::int64_t>(id);
      error = std::move(e);
    }
    return false;
  };
  for (const settings::Id id : read) valid(id);
  std::size_t k = 1;
  for (const settings::Id id : wire) {
    std::int64_t v = 0;  // invalid here: thrown below, on every rank
    if (valid(id))
      v = settings::spec(id).type == settings::Type::boolean
              ? std::int64_t{settings::get<bool>(id)}
              : static_cast<std::int64_t>(settings::get<std::size_t>(id));
    mine[k++] = v;
  }
  const int record = static_cast<int>(mine.size());
  std::vector<std::int64_t> all(mine.size() * static_cast<std::size_t>(size));
  mpi_check(MPI_Allgather(mine.data(), record, MPI_INT64_T, all.data(), record, MPI_INT64_T, comm),
            rank, "MPI_Allgather (the communicator's settings)");
  const auto at = [&](int r, std::size_t i) {
    return all[static_cast<std::size_t>(r) * mine.size() + i];
  };
  const auto name = [](std::int64_t id) {
    return std::string(settings::spec(static_cast<settings::Id>(id)).name);
  };

  std::vector<int> bad;
  for (int r = 0; r < size; ++r)
    if (at(r, 0) >= 0) bad.push_back(r);
  if (!bad.empty()) {
    const std::string where = name(at(bad[0], 0)) + " is invalid on rank(s) " + list_ranks(bad);
    throw Error(rank, error.empty() ? where + " (their error says what it accepts)"
                                    : error + " (" + where + ")");
  }
  k = 1;
  for (const settings::Id id : wire) {
    std::vector<int> differ;
    for (int r = 1; r < size; ++r)
      if (at(r, k) != at(0, k)) differ.push_back(r);
    if (!differ.empty())
      throw Error(rank, name(static_cast<std::int64_t>(id)) + " differs across ranks: rank(s) " +
                            list_ranks(differ) + " see " + std::to_string(at(differ[0], k)) +
                            (differ.size() > 1 ? " (or other values)" : "") + ", rank 0 sees " +
                            std::to_string(at(0, k)) +
                            "; it changes what goes over the wire, so it must be equal on every "
                            "rank");
    ++k;
  }
}

void MpiBackend::agree(const CollectiveCall& c, const Agreement& a) const {
  // Communicator-wide settings that change what goes over the wire, so they must be equal on
  // every rank, and that a rank may change after construction (set_handshake_bytes(), ...; the
  // largest message cannot change: agree_settings() compared it). The wait policy is local (how a
  // rank waits, not what it sends) and not listed.
  const std::pair<const char*, std::int64_t> settings[] = {
      {"handshake_bytes (CCLX_HANDSHAKE_BYTES)", static_cast<std::int64_t>(s_->handshake_bytes)},
      {"timeout_ms (CCLX_TIMEOUT)", static_cast<std::int64_t>(s_->timeout_s * 1000.0)},
      {"reproducible (CCLX_REPRODUCIBLE)", c.reproducible ? 1 : 0},
  };
  static_assert(std::size(settings) <= max_settings, "CallRecord::settings is too small");

  const bool rooted = coll::visit(c.collective, [](auto d) { return d.rooted; });
  // Alltoallv's counts (and so its count) differ per rank; it is checked pairwise below.
  const bool pairwise =
      coll::visit(c.collective, [](auto d) { return coll::separate_out_counts<decltype(d)>; });
  CallRecord mine{};
  mine.collective = static_cast<std::int64_t>(c.collective);
  mine.count = pairwise ? -1 : static_cast<std::int64_t>(c.count);
  if (c.blocks && !pairwise) {
    mine.counts_hash = hash(c.blocks->out_counts);
    put(mine.counts, show(c.blocks->out_counts));
  }
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
      "counts", [](const CallRecord& r) { return r.counts_hash; },
      [](const CallRecord& r) { return std::string(r.counts); });
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
  if (pairwise && c.blocks) agree_pairwise_counts(c);
}

void MpiBackend::agree_pairwise_counts(const CollectiveCall& c) const {
  const detail::BlockCounts& bc = *c.blocks;
  // In place, a rank sends recvcounts[j] elements to rank j.
  const detail::IntArray& sends = c.in_place ? bc.out_counts : bc.in_counts;
  const auto n = static_cast<std::size_t>(s_->size);
  // On the heap: the buffers of an abandoned nonblocking exchange must outlive it (then leaked).
  struct Buffers {
    std::vector<std::int64_t> send, got;
    CountsVerdict mine;
    std::vector<CountsVerdict> all;
  };
  auto b = std::make_unique<Buffers>();
  b->send.resize(n);
  b->got.resize(n);
  b->all.resize(n);
  for (std::size_t j = 0; j < n; ++j) b->send[j] = sends[j];
  const std::string what(sched::to_string(c.collective));
  auto run = [&](auto blocking, auto nonblocking, const char* fn) {
    if (s_->timeout_s <= 0) {
      mpi_check(blocking(), s_->rank, fn);
      return;
    }
    MPI_Request req = MPI_REQUEST_NULL;
    mpi_check(nonblocking(&req), s_->rank, fn);
    try {
      s_->finish(req, false, [&] { return what + ": validation of the counts (CCLX_VALIDATE)"; });
    } catch (const Error&) {
      (void)b.release();
      throw;
    }
  };
  auto* p = b.get();
  run(
      [&] {
        return MPI_Alltoall(p->send.data(), 1, MPI_INT64_T, p->got.data(), 1, MPI_INT64_T,
                            s_->internal);
      },
      [&](MPI_Request* req) {
        return MPI_Ialltoall(p->send.data(), 1, MPI_INT64_T, p->got.data(), 1, MPI_INT64_T,
                             s_->internal, req);
      },
      "MPI_Alltoall (validation)");
  for (std::size_t j = 0; j < n; ++j)
    if (p->got[j] != bc.out_counts[j]) {
      p->mine = {static_cast<std::int64_t>(j), p->got[j], bc.out_counts[j]};
      break;
    }
  run(
      [&] {
        return MPI_Allgather(&p->mine, sizeof(CountsVerdict), MPI_BYTE, p->all.data(),
                             sizeof(CountsVerdict), MPI_BYTE, s_->internal);
      },
      [&](MPI_Request* req) {
        return MPI_Iallgather(&p->mine, sizeof(CountsVerdict), MPI_BYTE, p->all.data(),
                              sizeof(CountsVerdict), MPI_BYTE, s_->internal, req);
      },
      "MPI_Allgather (validation)");
  std::ostringstream msg;
  int bad = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const CountsVerdict& v = p->all[i];
    if (v.from < 0) continue;
    if (bad++ < 4)
      msg << (bad > 1 ? "; " : "") << "rank " << v.from << " sends " << v.sends
          << " elements to rank " << i << " (its " << (c.in_place ? "recvcounts[" : "sendcounts[")
          << i << "]), which expects " << v.expects << " (recvcounts[" << v.from << "])";
  }
  if (bad > 4) msg << "; and " << bad - 4 << " more";
  if (bad)
    throw Error(s_->rank,
                what + ": sendcounts and recvcounts disagree (CCLX_VALIDATE): " + msg.str());
}

}  // namespace cclx
