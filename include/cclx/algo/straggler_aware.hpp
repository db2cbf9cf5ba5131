// StragglerAware<Fallback>: allreduce that watches arrival skew on every call and runs StragglAR
// with the detected rank while one rank is persistently last, `Fallback` (ring by default)
// otherwise. Copies of a policy share one detector, so keep one object per call site and pass it
// on every call. The cost is one 16-byte allgather per call after the collective.
#pragma once

#include <memory>

#include "cclx/algo/ring.hpp"
#include "cclx/algo/stragglar.hpp"
#include "cclx/algo/straggler_detector.hpp"

namespace cclx::algo {

/// Policy that runs StragglAR while a persistent straggler is detected, and its fallback otherwise.
template <ScheduledAlgorithm Fallback = Ring>
struct StragglerAware {
  /// The policy's name, as messages about it show it (it is not in the registry).
  static constexpr std::string_view name = "straggler_aware";
  /// Marks it as an AdaptiveAlgorithm: it picks a policy per call (blocking calls only).
  static constexpr bool adaptive = true;
  /// Allreduce alone, StragglAR's only collective.
  static constexpr std::array collectives = {sched::Collective::allreduce};
  /// None: StragglAR does not keep rank order.
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  /// The policy run while no rank is a persistent straggler.
  Fallback fallback{};
  /// The detection state, shared by every copy of this policy object and fed by the Communicator
  /// after each call.
  std::shared_ptr<StragglerDetector> detector = std::make_shared<StragglerDetector>();

  /// Calls run(policy) with the policy chosen for this call.
  template <class Run>
  void dispatch(Run&& run) const {
    if (const int s = detector->decision(); s >= 0)
      run(StragglAR{.straggler = s});
    else
      run(fallback);
  }
};

}  // namespace cclx::algo
