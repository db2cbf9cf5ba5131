// Non-template pieces of a collective call, compiled once in lib/api/.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "cclx/collective_call.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::detail {

// Local argument checks (null data, root, buffer sizes, overlap). Returns "" when fine, else the
// message (without the rank prefix).
std::string check_call(const CollectiveCall& c, int rank, int nranks);

// The schedule request for `c` on this rank.
sched::ScheduleRequest schedule_request(const CollectiveCall& c, int rank, int nranks);

// Throws when the schedule cannot honor the call (e.g. a non-commutative op on a reordering
// algorithm).
void check_schedule(const CollectiveCall& c, const sched::Schedule& s, int rank);

// Buffer addresses for the engine, including the in-place aliasing of partition.hpp.
engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank);

}  // namespace cclx::detail
