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

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/scatterv.hpp"

namespace cclx::api {

/// The calls of scatterv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/scatterv.hpp; every form takes the same ones.
template <class Comm>
class ScattervCalls {
 public:
  /// Blocking: returns when this rank's part of the scatterv is complete.
  template <class... Args>
  void scatterv(Args&&... args) {
    form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the scatterv progresses until the Request's wait() returns.
  template <class... Args>
  Request iscatterv(Args&&... args) {
    return form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the scatterv at each start(), until its wait().
  template <class... Args>
  PersistentRequest scatterv_init(Args&&... args) {
    return form<Init>(std::forward<Args>(args)...);
  }

 private:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this), bind(std::forward<Args>(args)...));
  }

  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& counts, int root, const A& algorithm = {}) {
    return one<coll::ScatterV, R>(buf, no_op, algorithm, root, shared_counts(counts));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& counts, const Displs& displs, int root,
                   const A& algorithm = {}) {
    return one<coll::ScatterV, R>(buf, no_op, algorithm, root, shared_counts(counts, &displs));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const C& counts, int root, const A& algorithm = {}) {
    return two<coll::ScatterV, Out>(in, out, no_op, algorithm, root, shared_counts(counts));
  }
  template <ContiguousRange In, MutableRange Out, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(const In& in, Out&& out, const C& counts, const Displs& displs, int root,
                   const A& algorithm = {}) {
    return two<coll::ScatterV, Out>(in, out, no_op, algorithm, root,
                                    shared_counts(counts, &displs));
  }
};

}  // namespace cclx::api
