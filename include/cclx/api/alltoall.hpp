// alltoall: block i of the input goes to rank i; block i of the output came from rank i.
//
//   comm.alltoall(buf [, algorithm])           in place: buf holds n blocks, input then output
//   comm.alltoall(in, out [, algorithm])       out of place: both hold n blocks
//
//   algorithm   a policy that serves alltoall; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: alltoall(...) blocks; ialltoall(...) returns a Request;
// alltoall_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). What count, the buffers
// and in place mean is stated once, in collectives/alltoall.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/alltoall.hpp"

namespace cclx::api {

/// The calls of alltoall, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/alltoall.hpp; every form takes the same ones.
template <class Comm>
class AlltoallCalls : public Forms<Comm, FixedArguments<coll::Alltoall>> {
 public:
  /// Blocking: returns when this rank's part of the alltoall is complete.
  template <class... Args>
  void alltoall(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the alltoall progresses until the Request's wait() returns.
  template <class... Args>
  Request ialltoall(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the alltoall at each start(), until its wait().
  template <class... Args>
  PersistentRequest alltoall_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
