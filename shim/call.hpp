// One intercepted collective, blocking, nonblocking (MPI_I*) or persistent (MPI_*_init). The
// MPI_* wrapper (intercept.cpp) describes the call in MPI's terms, step by step; a step that finds
// something cclx cannot serve exactly records why, and finish() then hands the call to the MPI
// library unchanged. Otherwise finish() runs it on the communicator's cached cclx::Communicator
// with the policy policy.hpp chooses (algo::Auto).
//
//   shim::Call c(sched::Collective::allreduce, comm);
//   c.reduction(datatype, count, op);
//   c.buffers(in, recvbuf, in_place, 1, 1);
//   return c.finish([&] { return PMPI_Allreduce(...); });
//
// Every rank must decide alike, so the serve-or-pass decision reads only what MPI requires every
// rank to agree on (docs/preload-decisions.md): the collective, the communicator, the root,
// and for a reduction its op and datatype (MPI makes them the same on every rank). A
// data-movement collective reads nothing of its datatypes: MPI lets ranks describe the same data
// with different datatypes (a vector here, n doubles there; only the type signatures match), and
// lets the root of a gather use MPI_IN_PLACE where the others do not, so it moves the signature's
// bytes. Each side of the call (the input, "send", and the output, "receive") is described by its
// own datatype and count per block; a side whose buffer is not its packed bytes (a derived type
// with gaps or another order, displacements that are not packed) is staged through a packed
// buffer, packed and unpacked locally (datatype.hpp).
//
// A nonblocking or persistent call returns an MPI_Request of requests.hpp; what the call keeps
// beyond the application's buffers (staging, counts, its datatypes, its communicator, a user op's
// context) lives with it, so the application may free its datatypes, op and communicator as soon
// as the call returns, as MPI allows.
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cclx/collective_call.hpp"
#include "comm_cache.hpp"
#include "datatype.hpp"
#include "guard.hpp"
#include "policy.hpp"
#include "requests.hpp"
#include "user_ops.hpp"

namespace cclx::shim {

// What a Call keeps beyond the application's buffers; outlives a nonblocking or persistent call
// (a blocking one makes it only where it needs it: most need none).
struct CallKept {
  std::shared_ptr<Communicator<>> comm;  // first: the request below runs on it
  std::vector<long long> v;  // out counts, out displs, in counts, in displs (cclx elements)
  bool out_packed = true, in_packed = true;
  detail::BlockCounts blocks;
  std::vector<std::byte> in_stage, out_stage;
  TypeRef in_type, out_type, op_type;  // valid while the call is pending
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
  // A reduction: `count` elements of `type` per block on both sides, combined with `op`.
  void reduction(MPI_Datatype type, int count, MPI_Op op);
  // A data-movement collective's input (send) or output (receive) side: `count` elements of
  // `type` per block (a v-collective: count 0 here, its counts()). Describe the sides MPI makes
  // significant on this rank; an in-place call describes one, which then serves as both.
  enum class Side : std::uint8_t { receive, send };
  void side(Side s, MPI_Datatype type, int count);
  // The buffers, in blocks of the sides' counts (v-collectives: in elements of the sides' types).
  void buffers(const void* in, void* out, bool in_place, std::size_t in_blocks,
               std::size_t out_blocks);
  // Of an in-place call's output, only the first `blocks` hold results (MPI_Reduce_scatter_block:
  // 1; MPI_Scatter at the root: 0, its buffer is input only). Default: all of it.
  void result(std::size_t blocks);
  // A v-collective: one count per rank in elements of side `s`'s datatype, and the MPI
  // displacements of its n-block buffer (null: packed by the counts). Negative counts are left to
  // MPI; buffer sizes: spanned().
  void counts(Side s, const int* counts, const int* displs);
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
  // One side of the call as described.
  struct SideDesc {
    bool given = false;
    MPI_Datatype type = MPI_DATATYPE_NULL;
    TypeShape shape;
    std::size_t scale = 1;  // cclx elements per element of `type`
    std::size_t count = 0;  // elements of `type` per block
  };
  // The MPI return code, or nullopt to pass the call through (counted either way). A call that
  // Auto decides to run natively with a user-defined op is passed through inside the decision
  // (`pass`), so that a tuning call times what ran.
  std::optional<int> serve(const PassRef& pass);
  // CCLX_VALIDATE: the ranks compare their serve-or-pass decisions; the error code where they
  // differ (raised on every rank), else nullopt.
  std::optional<int> agree(std::string_view name);
  template <class P>
  void serve_with(const P& policy, Decision& d, const PassRef& pass, std::optional<int>& passed);
  void pass_because(const char* why) {
    if (!reason_) reason_ = why;
  }
  SideDesc& desc(Side s) { return s == Side::send ? in_ : out_; }
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
  bool variable_ = false;       // counts() given
  bool own_in_counts_ = false;  // counts() of the send side given (else it shares the receive's)
  CommView v_;
  const char* reason_ = nullptr;
  std::string mismatch_;  // the sides' block sizes differ (an erroneous call): raised as an error
  CollectiveCall c_;
  SideDesc in_, out_;
  std::optional<std::size_t> result_blocks_;
  bool user_op_ = false;
};

// The elements an n-block buffer spans: the furthest block end (packed: the total).
[[nodiscard]] std::size_t spanned(std::size_t n, const int* counts, const int* displs);

// A call the library intercepts but passes through by design (`why`, e.g. MPI_Gatherv's counts
// are significant at the root only): counted, then handed to MPI.
void not_served(const char* collective, const char* why);

}  // namespace cclx::shim
