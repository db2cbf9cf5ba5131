// Recursive halving-doubling (Rabenseifner): reduce-scatter by recursive halving, allgather by
// recursive doubling; 2 log2(p) steps, 2(n-1)/n s bytes; non-powers of two fold the extra ranks
// into partners first and get the result back at the end.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::algo {

struct RecursiveHalvingDoubling {
  static constexpr std::string_view name = "rhd";
  std::size_t segment_bytes = 0;  // as in Ring

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::recursive_halving_doubling(r);
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {segment_bytes, {}}; }
};

}  // namespace cclx::algo
