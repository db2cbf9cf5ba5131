// barrier: no rank leaves before every rank has entered.
//
//   comm.barrier([algorithm])
//
//   algorithm   algo::Native (MPI_Barrier) when left out; algo::Dissemination is a schedule
//               (ceil(log2 n) rounds of empty messages) that obeys the timeout and names the
//               ranks it waits for, like every scheduled collective
//
// ibarrier(...) returns a Request, barrier_init(...) a PersistentRequest.
// What count, the buffers and in place mean is stated once, in collectives/barrier.hpp.
#pragma once

#include <cstdint>
#include <utility>

#include "cclx/api/argument_lists.hpp"
#include "cclx/collectives/barrier.hpp"

namespace cclx::api {

/// barrier's argument lists (see the top).
struct BarrierArguments {
  template <algo::Algorithm A = algo::Native>
  static auto bind(const A& algorithm = {}) {
    Bound<coll::Barrier, std::uint8_t, NoBuffer&, detail::NoOp, A> b;
    b.algorithm = &algorithm;
    return b;
  }
};

/// The calls of barrier, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/barrier.hpp; every form takes the same ones.
template <class Comm>
class BarrierCalls : public Forms<Comm, BarrierArguments> {
 public:
  /// Blocking: returns when this rank's part of the barrier is complete.
  template <class... Args>
  void barrier(Args&&... args) {
    this->template form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the barrier progresses until the Request's wait() returns.
  template <class... Args>
  Request ibarrier(Args&&... args) {
    return this->template form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the barrier at each start(), until its wait().
  template <class... Args>
  PersistentRequest barrier_init(Args&&... args) {
    return this->template form<Init>(std::forward<Args>(args)...);
  }
};

}  // namespace cclx::api
