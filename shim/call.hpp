// One intercepted blocking collective. The MPI_* wrapper (intercept.cpp) describes the call in
// MPI's terms, step by step; a step that finds something cclx cannot serve exactly records why,
// and finish() then hands the call to the MPI library unchanged. Otherwise finish() runs it on
// the communicator's cached cclx::Communicator with the policy of with_chosen_policy().
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
// that side is staged through a buffer and converted locally (other_side()).
#pragma once

#include <mpi.h>

#include <cstddef>
#include <cstdint>
#include <optional>

#include "cclx/collective_call.hpp"
#include "comm_cache.hpp"
#include "guard.hpp"
#include "user_ops.hpp"

namespace cclx::shim {

class Call {
 public:
  Call(sched::Collective collective, MPI_Comm comm);
  Call(const Call&) = delete;
  Call& operator=(const Call&) = delete;

  // False once a step found a reason to pass the call through; later steps then do nothing.
  [[nodiscard]] bool ok() const { return reason_ == nullptr; }
  [[nodiscard]] std::size_t size() const { return static_cast<std::size_t>(v_.size); }
  [[nodiscard]] bool is_root() const { return v_.rank == c_.root; }

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
  // An argument MPI rejects (MPI_IN_PLACE where it is not allowed, ...): MPI reports it.
  void invalid();

  template <class Pass>
  int finish(Pass&& pass) {
    if (const std::optional<int> rc = serve()) return *rc;
    return pass();
  }

 private:
  // The MPI return code, or nullopt to pass the call through (counted either way).
  std::optional<int> serve();
  void pass_because(const char* why) {
    if (!reason_) reason_ = why;
  }

  Inside inside_;  // first: everything below runs with cclx's MPI calls going straight to MPI
  sched::Collective collective_;
  MPI_Comm comm_;
  CommView v_;
  const char* reason_ = nullptr;
  CollectiveCall c_;
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
  int count_ = 0;
  std::size_t scale_ = 1;  // cclx elements per MPI element (the type's bytes when moved as bytes)
  bool user_op_ = false;
  UserOpContext user_;
  std::optional<Side> staged_;  // other_side() differs from data()
  MPI_Datatype other_type_ = MPI_DATATYPE_NULL;
  int other_count_ = 0;
};

// MPI_Barrier: served by the cached Communicator (cclx has no scheduled barrier yet, so native).
int barrier(MPI_Comm comm);

// A call the library intercepts but does not serve yet (nonblocking, persistent and
// variable-count collectives): counted, then handed to MPI.
void not_served(const char* collective);

}  // namespace cclx::shim
