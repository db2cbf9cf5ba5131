// scatter: rank r gets block r of the root's input.
//
//   comm.scatter(buf, root [, algorithm])      in place: on the root buf holds n blocks and keeps
//                                              its own at block root; elsewhere buf receives the
//                                              rank's block
//   comm.scatter(in, out, root [, algorithm])  out of place: `in` matters on the root only
//
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves scatter; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: scatter(...) blocks; iscatter(...) returns a Request;
// scatter_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). What count, the buffers
// and in place mean is stated once, in collectives/scatter.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/scatter.hpp"

namespace cclx::api {

/// The calls of scatter, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/scatter.hpp; every form takes the same ones.
template <class Comm>
class ScatterCalls : public Forms<Comm, FixedArguments<coll::Scatter>> {
 public:
  /// Blocking: returns when this rank's part of the scatter is complete.
  template <class... Args>
  void scatter(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the scatter progresses until the Request's wait() returns.
  template <class... Args>
  Request iscatter(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the scatter at each start(), until its wait().
  template <class... Args>
  PersistentRequest scatter_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
