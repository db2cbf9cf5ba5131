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

#include "cclx/api/bound_call.hpp"
#include "cclx/collectives/barrier.hpp"

namespace cclx::api {

/// The calls of barrier, a base of cclx::Communicator: their argument lists are documented
/// at the top of cclx/api/barrier.hpp; every form takes the same ones.
template <class Comm>
class BarrierCalls {
 public:
  /// Blocking: returns when this rank's part of the barrier is complete.
  template <class... Args>
  void barrier(Args&&... args) {
    form<Blocking>(std::forward<Args>(args)...);
  }
  /// Nonblocking: the barrier progresses until the Request's wait() returns.
  template <class... Args>
  Request ibarrier(Args&&... args) {
    return form<Start>(std::forward<Args>(args)...);
  }
  /// Persistent: the request runs the barrier at each start(), until its wait().
  template <class... Args>
  PersistentRequest barrier_init(Args&&... args) {
    return form<Init>(std::forward<Args>(args)...);
  }

 private:
  template <class Form, class... Args>
  result_t<Form> form(Args&&... args) {
    return Access::invoke<Form>(static_cast<Comm&>(*this), bind(std::forward<Args>(args)...));
  }

  template <algo::Algorithm A = algo::Native>
  static auto bind(const A& algorithm = {}) {
    Bound<coll::Barrier, std::uint8_t, NoBuffer&, detail::NoOp, A> b;
    b.algorithm = &algorithm;
    return b;
  }
};

}  // namespace cclx::api
