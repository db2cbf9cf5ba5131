// reduce_scatter (equal blocks): rank r gets block r of the reduction of all ranks' vectors.
//
//   comm.reduce_scatter(buf, op [, algorithm])      in place: buf holds n blocks; the result goes
//   to
//                                                   its first block (as MPI_IN_PLACE does)
//   comm.reduce_scatter(in, out, op [, algorithm])  out of place: in holds n blocks, out one
//
//   op          cclx::sum, prod, min, max, band, bor, bxor, or a user op (ops.hpp)
//   algorithm   a policy that serves reduce_scatter; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: reduce_scatter(...) blocks; ireduce_scatter(...) returns a
// Request; reduce_scatter_init(...) returns a PersistentRequest (start() and wait() it any number
// of times). The two later forms keep using the buffers after they return: they must stay valid and
// untouched until completion (pass an lvalue container or a view, never a temporary). What count,
// the buffers and in place mean is stated once, in collectives/reduce_scatter.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/reduce_scatter.hpp"

namespace cclx::api {

/// The calls of reduce_scatter, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/reduce_scatter.hpp; every form takes the same ones.
template <class Comm>
class ReduceScatterCalls : public Forms<Comm, FixedArguments<coll::ReduceScatter>> {
 public:
  /// Blocking: returns when this rank's part of the reduce_scatter is complete.
  template <class... Args>
  void reduce_scatter(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the reduce_scatter progresses until the Request's wait() returns.
  template <class... Args>
  Request ireduce_scatter(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the reduce_scatter at each start(), until its wait().
  template <class... Args>
  PersistentRequest reduce_scatter_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
