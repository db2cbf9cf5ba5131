// MpiBackend::agree(): CCLX_VALIDATE's cross-rank check of a collective call.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cclx/backend/mpi.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "mpi_state.hpp"

namespace cclx {

using detail::mpi_check;
using sched::Collective;

namespace {
// What every rank must agree on; exchanged as bytes.
struct CallRecord {
  std::int64_t collective, count, type, op, commutative, root, in_place, has_error;
  char algorithm[48];
};

std::string list_ranks(const std::vector<int>& ranks) {
  std::ostringstream s;
  for (std::size_t i = 0; i < ranks.size(); ++i) s << (i ? ", " : "") << ranks[i];
  return s.str();
}
}  // namespace

void MpiBackend::agree(const CollectiveCall& c, std::string_view algorithm,
                       const std::string& local_error) const {
  const bool rooted = coll::visit(c.collective, [](auto d) { return d.rooted; });
  CallRecord mine{};
  mine.collective = static_cast<std::int64_t>(c.collective);
  mine.count = static_cast<std::int64_t>(c.count);
  mine.type = static_cast<std::int64_t>(c.type);
  mine.op = c.has_op ? static_cast<std::int64_t>(c.kernel.op) : -1;
  mine.commutative = c.has_op ? c.kernel.commutative : -1;
  mine.root = rooted ? c.root : -1;
  mine.in_place = 0;  // in-place is a per-rank choice in MPI (e.g. reduce's root only)
  mine.has_error = local_error.empty() ? 0 : 1;
  std::strncpy(mine.algorithm, std::string(algorithm).c_str(), sizeof mine.algorithm - 1);

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
  std::vector<int> failed;
  for (int i = 0; i < s_->size; ++i)
    if (all[static_cast<std::size_t>(i)].has_error) failed.push_back(i);
  const std::string what(sched::to_string(c.collective));
  if (!local_error.empty()) throw Error(s_->rank, local_error);
  if (!failed.empty())
    throw Error(s_->rank,
                what + ": invalid arguments on rank(s) " + list_ranks(failed) + " (CCLX_VALIDATE)");

  std::ostringstream diff;
  auto field = [&](const char* name, auto get, auto show) {
    std::vector<int> differ;
    for (int i = 1; i < s_->size; ++i)
      if (get(all[static_cast<std::size_t>(i)]) != get(all[0])) differ.push_back(i);
    if (differ.empty()) return;
    diff << "; " << name << ": rank 0 has " << show(all[0]);
    for (int i : differ)
      diff << ", rank " << i << " has " << show(all[static_cast<std::size_t>(i)]);
  };
  auto num = [](auto v) { return std::to_string(v); };
  field(
      "collective", [](const CallRecord& r) { return r.collective; },
      [](const CallRecord& r) {
        return std::string(sched::to_string(static_cast<Collective>(r.collective)));
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
  const std::string d = diff.str();
  if (!d.empty()) throw Error(s_->rank, what + ": ranks disagree (CCLX_VALIDATE)" + d.substr(1));
}

}  // namespace cclx
