// The schedule stage of the call pipeline (call/schedule.hpp).
#include "cclx/call/schedule.hpp"

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::call {

sched::ScheduleRequest request(const CollectiveCall& c, int rank, int n,
                               std::span<const int> hosts) {
  sched::ScheduleRequest r;
  r.collective = c.collective;
  r.nranks = n;
  r.root = c.root;
  r.in_place = c.in_place;
  r.bytes = coll::partition_count(c.collective, c.count, n) * c.kernel.elem_size;
  r.only_rank = rank;
  r.hosts = hosts;
  return r;
}

std::shared_ptr<const sched::Schedule> schedule(const Policy& p, const sched::ScheduleRequest& req,
                                                int rank) {
  try {
    return p.type->schedule(p.self, req);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
}

}  // namespace cclx::call
