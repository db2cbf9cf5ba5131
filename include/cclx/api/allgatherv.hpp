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

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/allgatherv.hpp"

namespace cclx::api {

/// The calls of allgatherv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/allgatherv.hpp; every form takes the same ones.
template <class Comm>
class AllgathervCalls {
 public:
  /// Blocking: returns when this rank's part of the allgatherv is complete.
  template <class... Args>
  void allgatherv(Args&&... args) {
    form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the allgatherv progresses until the Request's wait() returns.
  template <class... Args>
  Request iallgatherv(Args&&... args) {
    return form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the allgatherv at each start(), until its wait().
  template <class... Args>
  PersistentRequest allgatherv_init(Args&&... args) {
    return form<Init>(std::forward<Args>(args)...);
  }

 private:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this), bind(std::forward<Args>(args)...));
  }

  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& counts, const A& algorithm = {}) {
    return one<coll::AllgatherV, R>(buf, no_op, algorithm, 0, shared_counts(counts));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& counts, const Displs& displs, const A& algorithm = {}) {
    return one<coll::AllgatherV, R>(buf, no_op, algorithm, 0, shared_counts(counts, &displs));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const C& counts, const A& algorithm = {}) {
    return two<coll::AllgatherV, Out>(in, out, no_op, algorithm, 0, shared_counts(counts));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const C& counts, const Displs& displs,
                   const A& algorithm = {}) {
    return two<coll::AllgatherV, Out>(in, out, no_op, algorithm, 0, shared_counts(counts, &displs));
  }
};

}  // namespace cclx::api
