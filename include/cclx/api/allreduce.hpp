// allreduce: every rank ends with the reduction of all ranks' vectors.
//
//   comm.allreduce(buf, op [, algorithm])          in place: buf holds the input, then the result
//   comm.allreduce(in, out, op [, algorithm])      out of place: out has as many elements as in
//
//   op          cclx::sum, prod, min, max, band, bor, bxor, or a user op (ops.hpp)
//   algorithm   a policy that serves allreduce; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: allreduce(...) blocks; iallreduce(...) returns a Request;
// allreduce_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). What count, the buffers
// and in place mean is stated once, in collectives/allreduce.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/allreduce.hpp"

namespace cclx::api {

/// The calls of allreduce, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/allreduce.hpp; every form takes the same ones.
template <class Comm>
class AllreduceCalls : public Forms<Comm, FixedArguments<coll::Allreduce>> {
 public:
  /// Blocking: returns when this rank's part of the allreduce is complete.
  template <class... Args>
  void allreduce(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the allreduce progresses until the Request's wait() returns.
  template <class... Args>
  Request iallreduce(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the allreduce at each start(), until its wait().
  template <class... Args>
  PersistentRequest allreduce_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
