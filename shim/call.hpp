// One intercepted collective, blocking, nonblocking (MPI_I*) or persistent (MPI_*_init). The
// MPI_* wrapper (intercept.cpp) describes the call in
// MPI's terms, step by step; a step that finds something cclx cannot serve exactly records why,
// and finish() then hands the call to the MPI library unchanged. Otherwise finish() runs it on
// the communicator's cached cclx::Communicator with the policy policy.hpp chooses (algo::Auto).
//
//   shim::Call c(sched::Collective::allreduce, comm);
//   c.reduction(datatype, count, op);
//   c.buffers(in, recvbuf, in_place, count, count);
//   return c.finish([&] { return PMPI_Allreduce(...); });
//
// Sizes are in elements of the MPI datatype. Data-movement collectives move bytes (any predefined
// contiguous type); reductions use cclx's element type for the MPI type (mpi_map.hpp).
//
// Every rank must decide alike, so the decision reads only arguments that are significant on every
// rank: a data-movement call is described by the side all ranks have (data()), and where a rank's
// other side is described with another datatype or count of the same signature (MPI allows it),
// that side is staged through a buffer and converted locally (other_side()). A v-collective's
// displacements are this rank's own layout: the native path gets them, a scheduled algorithm runs
// on a packed staging buffer and the blocks are copied to and from their places locally.
//
// A nonblocking or persistent call returns an MPI_Request of requests.hpp; what the call keeps
// beyond the application's buffers (staging, counts, a user op's context) lives with it.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <type_traits>
#include <vector>

#include "cclx/collective_call.hpp"
#include "comm_cache.hpp"
#include "guard.hpp"
#include "policy.hpp"
#include "requests.hpp"
#include "user_ops.hpp"

namespace cclx::shim {

// What a Call keeps beyond the application's buffers; outlives a nonblocking or persistent call
// (a blocking one makes it only where it needs it: most need none).
struct CallKept {
  std::vector<long long> v;  // out counts, out displs, in counts, in displs (cclx elements)
  bool out_packed = true, in_packed = true;
  detail::BlockCounts blocks;
  std::vector<std::byte> in_stage, out_stage;
  UserOpContext user;
  std::function<void()> before, after;  // staging: at each start, at each completion
};

class Call {
 public:
  // `request` receives the handle of a nonblocking or persistent call.
  Call(sched::Collective collective, MPI_Comm comm, Form form = Form::blocking,
       MPI_Request* request = nullptr);
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // False once a step found a reason to pass the call through; later steps then do nothing.
  [[nodiscard]] bool ok() const { return reason_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(v_.size); }
  [[nodiscard]] bool is_root() const { return v_.rank == c_.root; }
  [[nodiscard]] int rank() const { return v_.rank; }

  void root(int root);
  // The datatype and count that describe this rank's data in a data-movement collective.
  void data(MPI_Datatype type, int count);
  // The same for a reduction, with its op.
  void reduction(MPI_Datatype type, int count, MPI_Op op);
  // The other side of a data-movement call: `type` x `count` per block, n blocks, for the output
  // (receive) or the input (send). Described like data() it costs nothing; otherwise the call
  // runs on a staging buffer laid out like data() and MPI converts between the two locally.
  enum class Side : std::uint8_t { receive, send };
  void other_side(MPI_Datatype type, int count, Side side);
  void buffers(const void* in, void* out, bool in_place, std::size_t in_elems,
               std::size_t out_elems);
  // A v-collective: one count per rank in elements of data()'s or reduction()'s type, and the
  // MPI displacements of the n-block buffer (null: packed by definition). `out` describes the
  // n-block buffer the call writes (or reads, for an input-only one); `in` alltoallv's send side
  // out of place. Negative counts are left to MPI; buffer sizes: spanned().
  void counts(const int* out_counts, const int* out_displs, const int* in_counts = nullptr,
              const int* in_displs = nullptr);
  // A v-collective's other side in `type`: served only when it moves the same bytes as data()'s.
  void other_type(MPI_Datatype type);
  // An argument MPI rejects (MPI_IN_PLACE where it is not allowed, ...): MPI reports it.
  void invalid();

  template <class Pass>
  int finish(Pass&& pass) {
    using P = std::remove_reference_t<Pass>;
    const PassRef ref{&pass, [](void* f) { return (*static_cast<P*>(f))(); }};
    if (const std::optional<int> rc = serve(ref)) return *rc;
    return pass();
  }

 private:
  // The call handed to MPI unchanged, as finish() got it.
  struct PassRef {
    void* f;
    int (*call)(void*);
    int operator()() const { return call(f); }
  };
  // The MPI return code, or nullopt to pass the call through (counted either way). A call that
  // Auto decides to run natively with a user-defined op is passed through inside the decision
  // (`pass`), so that a tuning call times what ran.
  std::optional<int> serve(const PassRef& pass);
  template <class P>
  void serve_with(const P& policy, Decision& d, const PassRef& pass, std::optional<int>& passed);
  void pass_because(const char* why) {
    if (!reason_) reason_ = why;
  }
  template <class P>
  void run(const P& policy);
  void stage(bool native);

  Inside inside_;  // first: everything below runs with cclx's MPI calls going straight to MPI
  sched::Collective collective_;
  MPI_Comm comm_;
  Form form_;
  MPI_Request* request_;
  std::optional<CallKept> local_;
  std::shared_ptr<CallKept> shared_;  // nonblocking and persistent
  CallKept* k_ = nullptr;
  CallKept& kept();
  bool variable_ = false;  // counts() given
  CommView v_;
  const char* reason_ = nullptr;
  CollectiveCall c_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  int count_ = 0;
  std::size_t scale_ = 1;  // cclx elements per MPI element (the type's bytes when moved as bytes)
  bool user_op_ = false;
  std::optional<Side> staged_;  // other_side() differs from data()
  MPI_Datatype other_type_ = MPI_DATATYPE_NULL;
  int other_count_ = 0;
};

// The elements an n-block buffer spans: the furthest block end (packed: the total).
[[nodiscard]] std::size_t spanned(std::size_t n, const int* counts, const int* displs);

// A call the library intercepts but passes through by design (`why`, e.g. MPI_Gatherv's counts
// are significant at the root only): counted, then handed to MPI.
void not_served(const char* collective, const char* why);

}  // namespace cclx::shim
