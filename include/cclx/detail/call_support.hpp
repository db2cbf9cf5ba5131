// Non-template pieces of a collective call, compiled once in lib/api/.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/collective_call.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::detail {

// Local argument checks (null data, root, buffer sizes, overlap). Returns "" when fine, else the
// message (without the rank prefix).
std::string check_call(const CollectiveCall& c, int rank, int nranks);

// True when check_call() cannot fail: an allreduce whose buffers are present, equal in size and
// either identical (in place) or disjoint. Inline so that the common call skips the full check.
[[nodiscard]] inline bool plainly_valid(const CollectiveCall& c) {
  if (c.collective != sched::Collective::allreduce || c.in_size != c.out_size) return false;
  if (c.out_size == 0) return true;
  if (!c.in || !c.out) return false;
  if (c.in_place) return true;
  const auto* a = static_cast<const std::byte*>(c.in);
  const auto* b = static_cast<const std::byte*>(c.out);
  const std::size_t bytes = c.out_size * c.kernel.elem_size;
  return a + bytes <= b || b + bytes <= a;
}

// The v-collectives' part of check_call(): the counts' and displacements' lengths and signs, and
// the buffer sizes they imply (descriptor.hpp states the rule). "" when fine.
std::string check_block_counts(const CollectiveCall& c, int rank, int nranks);

// "" when the displacements that apply on this rank are the packed layout (or none were given),
// else the message saying that a scheduled algorithm needs the packed layout.
std::string check_packed(const CollectiveCall& c, int rank, int nranks);

// The schedule request for `c` on this rank.
sched::ScheduleRequest schedule_request(const CollectiveCall& c, int rank, int nranks);

// Throws when the schedule cannot honor the call (e.g. a non-commutative op on a reordering
// algorithm).
void check_schedule(const CollectiveCall& c, const sched::Schedule& s, int rank);

// Why `algorithm` cannot run `c`, a call that needs the canonical order (needs_canonical_order()):
// the message names the call, the mode and the algorithms that keep the order on `nranks` ranks
// (without the rank prefix).
std::string order_refusal(std::string_view algorithm, const CollectiveCall& c, int nranks);

// CCLX_REPRODUCIBLE, a bad value thrown as rank `rank`'s cclx::Error.
bool reproducible_setting(int rank);

// Buffer addresses for the engine, including the in-place aliasing of partition.hpp.
engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank);

}  // namespace cclx::detail
