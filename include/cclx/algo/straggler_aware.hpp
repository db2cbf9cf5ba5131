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

template <ScheduledAlgorithm Fallback = Ring>
struct StragglerAware {
  static constexpr std::string_view name = "straggler_aware";
  static constexpr bool adaptive = true;
  static constexpr std::array collectives = {sched::Collective::allreduce};
  static constexpr std::array<sched::Collective, 0> keeps_rank_order = {};
  Fallback fallback{};
  std::shared_ptr<StragglerDetector> detector = std::make_shared<StragglerDetector>();

  // Calls run(policy) with the policy chosen for this call.
  template <class Run>
  void dispatch(Run&& run) const {
    if (const int s = detector->decision(); s >= 0)
      run(StragglAR{.straggler = s});
    else
      run(fallback);
  }
};

}  // namespace cclx::algo
