// alltoallv: block i of the input (sendcounts[i] elements) goes to rank i; block i of the output
// (recvcounts[i] elements) came from rank i. Rank i's sendcounts[j] must equal rank j's
// recvcounts[i].
//
//   comm.alltoallv(buf, recvcounts [, rdispls] [, algorithm])
//       in place: one buffer laid out by recvcounts, input then output (there are no sendcounts:
//       rank r sends recvcounts[i] elements to rank i)
//   comm.alltoallv(in, sendcounts, out, recvcounts [, algorithm])
//   comm.alltoallv(in, sendcounts, sdispls, out, recvcounts, rdispls [, algorithm])
//       out of place; displacements (cclx::Displs) serve algo::Native only
//
//   counts      any contiguous range of integers, one per rank, each rank its own
//   algorithm   a policy that serves alltoallv; algo::Native (MPI's own) when left out
//
// Every form takes the same arguments: alltoallv(...) blocks; ialltoallv(...) returns a Request;
// alltoallv_init(...) returns a PersistentRequest (start() and wait() it any number of times). The
// two later forms keep using the buffers after they return: they must stay valid and untouched
// until completion (pass an lvalue container or a view, never a temporary). The counts and
// displacements are copied at the call. What count, the buffers and in place mean is stated once,
// in collectives/alltoallv.hpp.
#pragma once

#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/alltoallv.hpp"

namespace cclx::api {

/// alltoallv's argument lists (see the top).
struct AlltoallvArguments {
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& recvcounts, const A& algorithm = {}) {
    return one<coll::AlltoallV, R>(buf, no_op, algorithm, 0, shared_counts(recvcounts));
  }
  template <MutableRange R, CountRange C, algo::Algorithm A = algo::Native>
  static auto bind(R&& buf, const C& recvcounts, const Displs& rdispls, const A& algorithm = {}) {
    return one<coll::AlltoallV, R>(buf, no_op, algorithm, 0, shared_counts(recvcounts, &rdispls));
  }
  template <ContiguousRange In, CountRange SC, MutableRange Out, CountRange RC,
            algo::Algorithm A = algo::Native>
  static auto bind(const In& in, const SC& sendcounts, Out&& out, const RC& recvcounts,
                   const A& algorithm = {}) {
    return two<coll::AlltoallV, Out>(
        in, out, no_op, algorithm, 0,
        detail::BlockCounts{detail::int_array(sendcounts), detail::int_array(recvcounts), {}, {}});
  }
  template <ContiguousRange In, CountRange SC, MutableRange Out, CountRange RC,
            algo::Algorithm A = algo::Native>
  static auto bind(const In& in, const SC& sendcounts, const Displs& sdispls, Out&& out,
                   const RC& recvcounts, const Displs& rdispls, const A& algorithm = {}) {
    return two<coll::AlltoallV, Out>(
        in, out, no_op, algorithm, 0,
        detail::BlockCounts{detail::int_array(sendcounts), detail::int_array(recvcounts),
                            sdispls.array(), rdispls.array()});
  }
};

/// The calls of alltoallv, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/alltoallv.hpp; every form takes the same ones.
template <class Comm>
class AlltoallvCalls : public Forms<Comm, AlltoallvArguments> {
 public:
  /// Blocking: returns when this rank's part of the alltoallv is complete.
  template <class... Args>
  void alltoallv(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the alltoallv progresses until the Request's wait() returns.
  template <class... Args>
  Request ialltoallv(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the alltoallv at each start(), until its wait().
  template <class... Args>
  PersistentRequest alltoallv_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
