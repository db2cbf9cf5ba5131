// scatterv: rank r gets block r (counts[r] elements) of the root's input.
//
//   comm.scatterv(buf, counts [, displs], root [, algorithm])       in place: on the root buf
//                                        holds the n blocks and keeps its own; elsewhere buf
//                                        receives the rank's block
//   comm.scatterv(in, out, counts [, displs], root [, algorithm])  out of place: `in` matters on
//                                        the root only
//
//   counts      one element count per rank (any contiguous range of integers), the same array
//               on every rank; an n-block buffer holds its blocks packed
//   displs      cclx::Displs: MPI displacements for the n-block buffer (algo::Native only)
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves scatterv; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: scatterv(...) blocks; iscatterv(...) returns a Request;
// scatterv_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). The counts and
// displacements are copied at the call. What count, the buffers and in place mean is stated once,
// in collectives/scatterv.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/scatterv.hpp"

namespace cclx::api {

/// The calls of scatterv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/scatterv.hpp; every form takes the same ones.
template <class Comm>
class ScattervCalls : public Forms<Comm, CountedArguments<coll::ScatterV>> {
 public:
  /// Blocking: returns when this rank's part of the scatterv is complete.
  template <class... Args>
  void scatterv(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the scatterv progresses until the Request's wait() returns.
  template <class... Args>
  Request iscatterv(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the scatterv at each start(), until its wait().
  template <class... Args>
  PersistentRequest scatterv_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
