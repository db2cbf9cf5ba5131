// allgatherv: block r of every rank's output (counts[r] elements) comes from rank r.
//
//   comm.allgatherv(buf, counts [, displs] [, algorithm])       in place: buf holds the n blocks
//                                                               and this rank's is at its place
//   comm.allgatherv(in, out, counts [, displs] [, algorithm])  out of place: in is this rank's
//                                                               block
//
//   counts      one element count per rank (any contiguous range of integers), the same array
//               on every rank; an n-block buffer holds its blocks packed
//   displs      cclx::Displs: MPI displacements for the n-block buffer (algo::Native only)
//   algorithm   a policy that serves allgatherv; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: allgatherv(...) blocks; iallgatherv(...) returns a Request;
// allgatherv_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). The counts and
// displacements are copied at the call. What count, the buffers and in place mean is stated once,
// in collectives/allgatherv.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/allgatherv.hpp"

namespace cclx::api {

/// The calls of allgatherv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/allgatherv.hpp; every form takes the same ones.
template <class Comm>
class AllgathervCalls : public Forms<Comm, CountedArguments<coll::AllgatherV>> {
 public:
  /// Blocking: returns when this rank's part of the allgatherv is complete.
  template <class... Args>
  void allgatherv(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the allgatherv progresses until the Request's wait() returns.
  template <class... Args>
  Request iallgatherv(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the allgatherv at each start(), until its wait().
  template <class... Args>
  PersistentRequest allgatherv_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
