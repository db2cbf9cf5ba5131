#include "cclx/engine/wait_policy.hpp"

#include <sched.h>
#include <time.h>

#include <string>

#include "cclx/settings.hpp"

namespace cclx::engine {

WaitPolicy WaitPolicy::from_env() {
  WaitPolicy p;
  const std::string s = settings::get<std::string>(settings::Id::wait);  // one of the three
  p.mode = s == "yield" ? WaitMode::yield : s == "backoff" ? WaitMode::backoff : WaitMode::spin;
  return p;
}

void Backoff::idle() {
  if (p_.mode == WaitMode::spin || ++idle_ <= p_.spin_polls) return;
  if (p_.mode == WaitMode::yield) {
    sched_yield();
    return;
  }
  // Exponential sleep from 1 us up to the cap, after a phase of yields.
  const std::uint32_t over = idle_ - p_.spin_polls;
  if (over < 16) {
    sched_yield();
    return;
  }
  std::uint32_t us = 1u << std::min<std::uint32_t>(over - 16, 16);
  if (us > p_.max_sleep_us) us = p_.max_sleep_us;
  timespec ts{0, static_cast<long>(us) * 1000};
  nanosleep(&ts, nullptr);
}

}  // namespace cclx::engine
