// What the Communicator's inline Auto path needs of algo::Auto's state (tune/auto_state.hpp):
// what to time around a call, and a settled decision as a repeated call runs it. Kept apart so
// that the Communicator's header does not pull in the selector, the model's tables and the online
// tuner.
#pragma once

#include <cstdint>

#include "cclx/algo/by_name.hpp"
#include "cclx/tune/candidate.hpp"

namespace cclx::tune {

/// What the caller must do around the call it is about to run (AutoState::choose()).
enum class Timing : std::uint8_t {
  none,    ///< nothing
  tune,    ///< time it, reduce the time to its max over ranks, observe()
  sample,  ///< time it locally and add_sample(); when that returns true, reduce window_score()
           ///< (the window's robust_score) to its max over ranks and check_drift()
};

/// Drift check: one call in `drift_sample_every` of a converged workload is timed.
inline constexpr int drift_sample_every = 16;

/// A settled decision resolved to its policy, which a repeated call runs without building it.
struct Settled {
  const Candidate* candidate = nullptr;  ///< the choice; null: native
  algo::AnyPolicy policy;  ///< the choice built as its policy (algo::Native for native)
};

struct AutoEntry;  // one workload's decision (auto_state.hpp)
class AutoState;   // auto_state.hpp

}  // namespace cclx::tune
