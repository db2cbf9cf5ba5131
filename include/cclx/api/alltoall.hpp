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

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/alltoall.hpp"

namespace cclx::api {

/// The calls of alltoall, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/alltoall.hpp; every form takes the same ones.
template <class Comm>
class AlltoallCalls {
 public:
  /// Blocking: returns when this rank's part of the alltoall is complete.
  template <class... Args>
  void alltoall(Args&&... args) {
    form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the alltoall progresses until the Request's wait() returns.
  template <class... Args>
  Request ialltoall(Args&&... args) {
    return form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the alltoall at each start(), until its wait().
  template <class... Args>
  PersistentRequest alltoall_init(Args&&... args) {
    return form<Init>(std::forward<Args>(args)...);
  }

 private:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this), bind(std::forward<Args>(args)...));
  }

  template <MutableRange R, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const A& algorithm = {}) {
    return one<coll::Alltoall, R>(buf, no_op, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const A& algorithm = {}) {
    return two<coll::Alltoall, Out>(in, out, no_op, algorithm);
  }
};

}  // namespace cclx::api
