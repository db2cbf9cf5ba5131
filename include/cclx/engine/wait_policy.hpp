// How the engine waits for transfers. MPICH busy-polls; when ranks outnumber cores, backing off
// lets the rank that has work run. Chosen per communicator, default from CCLX_WAIT.
#pragma once

#include <cstdint>
#include <string_view>

namespace cclx::engine {

/// How a wait loop passes the time between polls.
enum class WaitMode : std::uint8_t {
  spin,     ///< poll continuously (lowest latency with a core per rank)
  yield,    ///< poll, then sched_yield() between polls
  backoff,  ///< poll, yield, then sleep with exponential backoff up to max_sleep_us
};

/// How the engine waits for transfers: spinning, yielding or sleeping.
struct WaitPolicy {
  WaitMode mode = WaitMode::spin;   ///< spin, yield or back off; spin by default
  std::uint32_t spin_polls = 64;    ///< polls before yielding/sleeping
  std::uint32_t max_sleep_us = 50;  ///< backoff cap

  /// CCLX_WAIT=spin|yield|backoff (cclx/settings.hpp); unset: spin. Throws cclx::Error on an
  /// unknown value.
  static WaitPolicy from_env();
};

/// Tracks idle polls of one wait loop and backs off according to the policy.
class Backoff {
 public:
  /// A wait loop that follows `p` (copied).
  explicit Backoff(const WaitPolicy& p) : p_(p) {}
  /// Called after a poll that made progress: the loop starts over with spin_polls plain polls.
  void reset() { idle_ = 0; }
  void idle();  ///< called after a poll that made no progress

 private:
  WaitPolicy p_;
  std::uint32_t idle_ = 0;
};

}  // namespace cclx::engine
