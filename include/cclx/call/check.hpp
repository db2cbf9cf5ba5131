// Call pipeline, the check stage: what a call must satisfy before anything runs. Compiled once in
// lib/call/check.cpp (block_counts.cpp: the v-collectives' part).
//
// The pipeline (docs/architecture.md): choose (a fixed policy, or algo::Auto's choice) → check
// (this) → plan (call/plan.hpp, with the schedule of call/schedule.hpp on a miss) → execute
// (call/execute.hpp). The check comes after the choice so that it checks, and with validation
// agrees on, the policy that will run.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "cclx/call/policy.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::call {

/// Throws rank `rank`'s cclx::Error when `c` is not a valid call on `nranks` ranks (check_call()),
/// or when it needs the canonical order (reproducible mode) and `p` does not keep it there.
void check(const CollectiveCall& c, const Policy& p, int rank, int nranks);

/// True when check() cannot fail, whatever the policy: an allreduce outside reproducible mode whose
/// buffers are present, equal in size and either identical (in place) or disjoint. Inline, so that
/// the common call skips check() (and asking the backend for its rank and size).
[[nodiscard]] inline bool plainly_valid(const CollectiveCall& c) {
  if (c.collective != sched::Collective::allreduce || c.in_size != c.out_size || c.reproducible)
    return false;
  if (c.out_size == 0) return true;
  if (!c.in || !c.out) return false;
  if (c.in_place) return true;
  const auto* a = static_cast<const std::byte*>(c.in);
  const auto* b = static_cast<const std::byte*>(c.out);
  const std::size_t bytes = c.out_size * c.kernel.elem_size;
  return a + bytes <= b || b + bytes <= a;
}

/// check_schedule() in full, out of line: the messages, and a v-collective's displacements.
void check_schedule_in_full(const CollectiveCall& c, const sched::Schedule& s, int rank);

/// Throws rank `rank`'s cclx::Error when schedule `s` cannot honor `c` (a non-commutative op on an
/// algorithm that reorders, no program for this rank, a v-collective's displacements that are not
/// the packed layout). Inline, so that a call served from the plan cache pays a few comparisons.
inline void check_schedule(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  if ((c.has_op && !c.kernel.commutative && !s.preserves_order) ||
      static_cast<int>(s.programs.size()) <= rank || c.blocks)
    check_schedule_in_full(c, s, rank);
}

/// With validation (CCLX_VALIDATE): what this rank brings to the agreement besides the call. For a
/// scheduled policy the schedule is made (or fetched from the cache) here, before the agreement, so
/// that a rank whose generator refuses the call still takes part and every rank throws instead of
/// some hanging.
struct Validation {
  std::string params;       ///< algo::wire_params() of a scheduled policy; empty for native
  std::string local_error;  ///< check()'s or the schedule's error on this rank; empty when fine
};
Validation validation(const CollectiveCall& c, const Policy& p, const sched::ScheduleRequest& req,
                      int rank, int nranks);

/// Local argument checks (null data, root, buffer sizes, overlap). "" when fine, else the message
/// (without the rank prefix).
std::string check_call(const CollectiveCall& c, int rank, int nranks);

/// The v-collectives' part of check_call(): the counts' and displacements' lengths and signs, and
/// the buffer sizes they imply (descriptor.hpp states the rule). "" when fine.
std::string check_block_counts(const CollectiveCall& c, int rank, int nranks);

/// "" when the displacements that apply on this rank are the packed layout (or none were given),
/// else the message saying that a scheduled algorithm needs the packed layout.
std::string check_packed(const CollectiveCall& c, int rank, int nranks);

/// Why `algorithm` cannot run `c`, a call that needs the canonical order (needs_canonical_order()):
/// the message names the call, the mode and the algorithms that keep the order on `nranks` ranks
/// (without the rank prefix).
std::string order_refusal(std::string_view algorithm, const CollectiveCall& c, int nranks);

/// CCLX_REPRODUCIBLE, a bad value thrown as rank `rank`'s cclx::Error.
bool reproducible_setting(int rank);

}  // namespace cclx::call
