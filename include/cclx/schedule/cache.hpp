// Process-wide cache of generated schedules, keyed by (algorithm, parameters, collective, n, root,
// in-place, rank view). Generation can be expensive (StragglAR matchings); execution is not.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "cclx/schedule/generate.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::sched {

/// The key's parts that depend on the request, appended to an algorithm's own "name:params" prefix.
std::string cache_key(std::string_view algorithm_and_params, const ScheduleRequest& req);

/// Returns the cached schedule for `key`, generating it with `make` on a miss. Thread-safe.
std::shared_ptr<const Schedule> cached_schedule(const std::string& key,
                                                const std::function<Schedule()>& make);
/// Empties the cache (thread-safe); schedules already handed out live on with their holders.
void clear_schedule_cache();
/// The number of cached schedules (thread-safe).
std::size_t schedule_cache_size();

}  // namespace cclx::sched
