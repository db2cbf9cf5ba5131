// allgather: block r of every rank's output comes from rank r.
//
//   comm.allgather(buf [, algorithm])          in place: buf holds n blocks and this rank's
//                                              contribution is already at block rank()
//   comm.allgather(in, out [, algorithm])      out of place: in is one block, out n blocks
//
//   algorithm   a policy that serves allgather; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: allgather(...) blocks; iallgather(...) returns a Request;
// allgather_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). What count, the buffers
// and in place mean is stated once, in collectives/allgather.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/allgather.hpp"

namespace cclx::api {

/// The calls of allgather, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/allgather.hpp; every form takes the same ones.
template <class Comm>
class AllgatherCalls : public Forms<Comm, FixedArguments<coll::Allgather>> {
 public:
  /// Blocking: returns when this rank's part of the allgather is complete.
  template <class... Args>
  void allgather(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the allgather progresses until the Request's wait() returns.
  template <class... Args>
  Request iallgather(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the allgather at each start(), until its wait().
  template <class... Args>
  PersistentRequest allgather_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
