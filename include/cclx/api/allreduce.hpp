// allreduce: every rank ends with the reduction of all ranks' vectors.
//
//   comm.allreduce(buf, op [, algorithm])          in place: buf holds the input, then the result
//   comm.allreduce(in, out, op [, algorithm])      out of place: out has as many elements as in
//
//   op          cclx::sum, prod, min, max, band, bor, bxor, or a user op (ops.hpp)
//   algorithm   a policy that serves allreduce; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: allreduce(...) blocks; iallreduce(...) returns a Request;
// allreduce_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). What count, the buffers
// and in place mean is stated once, in collectives/allreduce.hpp.
#pragma once

#include <utility>

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/allreduce.hpp"

namespace cclx::api {

/// The calls of allreduce, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/allreduce.hpp; every form takes the same ones.
template <class Comm>
class AllreduceCalls {
 public:
  /// Blocking: returns when this rank's part of the allreduce is complete.
  template <class... Args>
  void allreduce(Args&&... args) {
    form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the allreduce progresses until the Request's wait() returns.
  template <class... Args>
  Request iallreduce(Args&&... args) {
    return form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the allreduce at each start(), until its wait().
  template <class... Args>
  PersistentRequest allreduce_init(Args&&... args) {
    return form<Init>(std::forward<Args>(args)...);
  }

 private:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this), bind(std::forward<Args>(args)...));
  }

  template <MutableRange R, ReductionOp Op, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const Op& op, const A& algorithm = {}) {
    return one<coll::Allreduce, R>(buf, &op, algorithm);
  }
  template <ContiguousRange In, MutableRange Out, ReductionOp Op, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const Op& op, const A& algorithm = {}) {
    return two<coll::Allreduce, Out>(in, out, &op, algorithm);
  }
};

}  // namespace cclx::api
