// bcast: the root's buffer to every rank.
//
//   comm.bcast(buf, root [, algorithm])
//
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves bcast; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: bcast(...) blocks; ibcast(...) returns a Request;
// bcast_init(...) returns a PersistentRequest (start() and wait() it any number of times). The two
// later forms keep using the buffers after they return: they must stay valid and untouched until
// completion (pass an lvalue container or a view, never a temporary).
// What count, the buffers and in place mean is stated once, in collectives/bcast.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/bcast.hpp"

namespace cclx::api {

/// The calls of bcast, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/bcast.hpp; every form takes the same ones.
template <class Comm>
class BcastCalls : public Forms<Comm, FixedArguments<coll::Bcast>> {
 public:
  /// Blocking: returns when this rank's part of the bcast is complete.
  template <class... Args>
  void bcast(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the bcast progresses until the Request's wait() returns.
  template <class... Args>
  Request ibcast(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the bcast at each start(), until its wait().
  template <class... Args>
  PersistentRequest bcast_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
