// gatherv: block r of the root's output (counts[r] elements) comes from rank r.
//
//   comm.gatherv(buf, counts [, displs], root [, algorithm])       in place: on the root buf holds
//                                        the n blocks with its own already at its place; elsewhere
//                                        buf is the rank's block
//   comm.gatherv(in, out, counts [, displs], root [, algorithm])  out of place: `out` matters on
//                                        the root only
//
//   counts      one element count per rank (any contiguous range of integers), the same array
//               on every rank; an n-block buffer holds its blocks packed
//   displs      cclx::Displs: MPI displacements for the n-block buffer (algo::Native only)
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves gatherv; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: gatherv(...) blocks; igatherv(...) returns a Request;
// gatherv_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). The counts and
// displacements are copied at the call. What count, the buffers and in place mean is stated once,
// in collectives/gatherv.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/gatherv.hpp"

namespace cclx::api {

/// The calls of gatherv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/gatherv.hpp; every form takes the same ones.
template <class Comm>
class GathervCalls : public Forms<Comm, CountedArguments<coll::GatherV>> {
 public:
  /// Blocking: returns when this rank's part of the gatherv is complete.
  template <class... Args>
  void gatherv(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the gatherv progresses until the Request's wait() returns.
  template <class... Args>
  Request igatherv(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the gatherv at each start(), until its wait().
  template <class... Args>
  PersistentRequest gatherv_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
