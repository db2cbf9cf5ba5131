// gather: block r of the root's output comes from rank r.
//
//   comm.gather(buf, root [, algorithm])       in place: on the root buf holds n blocks with its
//                                              own at block root; elsewhere buf is the rank's block
//   comm.gather(in, out, root [, algorithm])   out of place: `out` matters on the root only (it may
//                                              be empty elsewhere)
//
//   root        the root rank, the same on every rank
//   algorithm   a policy that serves gather; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: gather(...) blocks; igather(...) returns a Request;
// gather_init(...) returns a PersistentRequest (start() and wait() it any number of times). The two
// later forms keep using the buffers after they return: they must stay valid and untouched until
// completion (pass an lvalue container or a view, never a temporary).
// What count, the buffers and in place mean is stated once, in collectives/gather.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/gather.hpp"

namespace cclx::api {

/// The calls of gather, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/gather.hpp; every form takes the same ones.
template <class Comm>
class GatherCalls : public Forms<Comm, FixedArguments<coll::Gather>> {
 public:
  /// Blocking: returns when this rank's part of the gather is complete.
  template <class... Args>
  void gather(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the gather progresses until the Request's wait() returns.
  template <class... Args>
  Request igather(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the gather at each start(), until its wait().
  template <class... Args>
  PersistentRequest gather_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
