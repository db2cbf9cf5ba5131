// reduce: the reduction of all ranks' vectors lands on `root`; non-roots' buffers are only read.
//
//   comm.reduce(buf, op, root [, algorithm])       in place: the root's buf ends with the result
//   comm.reduce(in, out, op, root [, algorithm])   out of place: `out` matters on the root only
//                                                  (it may be empty elsewhere)
//
//   op          cclx::sum, prod, min, max, band, bor, bxor, or a user op (ops.hpp)
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves reduce; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: reduce(...) blocks; ireduce(...) returns a Request;
// reduce_init(...) returns a PersistentRequest (start() and wait() it any number of times). The two
// later forms keep using the buffers after they return: they must stay valid and untouched until
// completion (pass an lvalue container or a view, never a temporary).
// What count, the buffers and in place mean is stated once, in collectives/reduce.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/reduce.hpp"

namespace cclx::api {

/// The calls of reduce, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/reduce.hpp; every form takes the same ones.
template <class Comm>
class ReduceCalls : public Forms<Comm, FixedArguments<coll::Reduce>> {
 public:
  /// Blocking: returns when this rank's part of the reduce is complete.
  template <class... Args>
  void reduce(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the reduce progresses until the Request's wait() returns.
  template <class... Args>
  Request ireduce(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the reduce at each start(), until its wait().
  template <class... Args>
  PersistentRequest reduce_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
