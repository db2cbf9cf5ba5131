#include "cclx/engine/wait_policy.hpp"

#include <sched.h>
#include <time.h>

#include <cstdlib>
#include <string>
#include <string_view>

#include "cclx/error.hpp"

namespace cclx::engine {

WaitPolicy WaitPolicy::from_env() {
  WaitPolicy p;
  const char* v = std::getenv("CCLX_WAIT");
  if (!v || !*v) return p;
  const std::string_view s(v);
  if (s == "spin")
    p.mode = WaitMode::spin;
  else if (s == "yield")
    p.mode = WaitMode::yield;
  else if (s == "backoff")
    p.mode = WaitMode::backoff;
  else
    throw Error("CCLX_WAIT='" + std::string(s) + "' is not one of spin, yield, backoff");
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
