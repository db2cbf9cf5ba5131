#include "cclx/schedule/cache.hpp"

#include <mutex>
#include <unordered_map>

namespace cclx::sched {

namespace {
struct Cache {
  std::mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const Schedule>> map;
};
Cache& cache() {
  static Cache c;
  return c;
}
}  // namespace

std::string cache_key(std::string_view algorithm_and_params, const ScheduleRequest& req) {
  std::string key(algorithm_and_params);
  key += '|';
  key += to_string(req.collective);
  for (long long v : {static_cast<long long>(req.nranks), static_cast<long long>(req.root),
                      static_cast<long long>(req.in_place), static_cast<long long>(req.only_rank),
                      static_cast<long long>(req.only_rank_end)}) {
    key += '|';
    key += std::to_string(v);
  }
  return key;
}

std::shared_ptr<const Schedule> cached_schedule(const std::string& key,
                                                const std::function<Schedule()>& make) {
  auto& c = cache();
  {
    std::lock_guard lock(c.mu);
    if (auto it = c.map.find(key); it != c.map.end()) return it->second;
  }
  // Generate outside the lock: generation can be slow and other keys should not wait.
  auto made = std::make_shared<const Schedule>(make());
  std::lock_guard lock(c.mu);
  return c.map.emplace(key, std::move(made)).first->second;
}

void clear_schedule_cache() {
  std::lock_guard lock(cache().mu);
  cache().map.clear();
}

std::size_t schedule_cache_size() {
  std::lock_guard lock(cache().mu);
  return cache().map.size();
}

}  // namespace cclx::sched
