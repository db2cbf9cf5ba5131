// Call pipeline, the schedule stage: the schedule request of a call and the policy's schedule for
// it, from the process-wide schedule cache (schedule/cache.hpp). Compiled once in
// lib/call/schedule.cpp. The plan stage (call/plan.hpp) asks for it on a plan-cache miss; the
// check stage with validation (call/check.hpp).
#pragma once

#include <memory>
#include <span>

#include "cclx/call/policy.hpp"
#include "cclx/collective_call.hpp"

namespace cclx::call {

/// The schedule request for `c` on this rank, with the host map `hosts` (read by the hierarchical
/// policies alone; not owned: it must outlive the request).
sched::ScheduleRequest request(const CollectiveCall& c, int rank, int nranks,
                               std::span<const int> hosts = {});

/// The schedule of scheduled policy `p` for `req`; a generator's error is thrown as rank `rank`'s.
std::shared_ptr<const sched::Schedule> schedule(const Policy& p, const sched::ScheduleRequest& req,
                                                int rank);

}  // namespace cclx::call
