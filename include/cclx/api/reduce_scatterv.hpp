// reduce_scatterv (MPI_Reduce_scatter): rank r gets block r (counts[r] elements) of the
// reduction of all ranks' vectors.
//
//   comm.reduce_scatterv(buf, counts, op [, algorithm])      in place: buf holds the n blocks; the
//                                        result goes to its first counts[rank()] elements (as
//                                        MPI_IN_PLACE does)
//   comm.reduce_scatterv(in, out, counts, op [, algorithm])  out of place: in holds the n blocks,
//                                        out this rank's
//
//   counts      one element count per rank (any contiguous range of integers), the same array
//               on every rank; an n-block buffer holds its blocks packed
//   op          cclx::sum, prod, min, max, band, bor, bxor, or a user op (ops.hpp)
//   algorithm   a policy that serves reduce_scatterv; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: reduce_scatterv(...) blocks; ireduce_scatterv(...) returns a
// Request; reduce_scatterv_init(...) returns a PersistentRequest (start() and wait() it any number
// of times). The two later forms keep using the buffers after they return: they must stay valid and
// untouched until completion (pass an lvalue container or a view, never a temporary). The counts
// are copied at the call. What count, the buffers and in place mean is stated once, in
// collectives/reduce_scatterv.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/reduce_scatterv.hpp"

namespace cclx::api {

/// The calls of reduce_scatterv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/reduce_scatterv.hpp; every form takes the same ones.
template <class Comm>
class ReduceScattervCalls : public Forms<Comm, CountedArguments<coll::ReduceScatterV>> {
 public:
  /// Blocking: returns when this rank's part of the reduce_scatterv is complete.
  template <class... Args>
  void reduce_scatterv(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the reduce_scatterv progresses until the Request's wait() returns.
  template <class... Args>
  Request ireduce_scatterv(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the reduce_scatterv at each start(), until its wait().
  template <class... Args>
  PersistentRequest reduce_scatterv_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
