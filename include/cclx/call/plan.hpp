// Call pipeline, the plan stage: the Communicator's cache of one-shot scheduled calls. For the last
// few call shapes it keeps the plan (engine/plan.hpp: the schedule resolved for the buffer shape,
// pipelining and handshake decisions, scratch size) and an idle execution to run it again. A
// repeated call then costs a key comparison, the transfers and the reductions: no schedule-cache
// string, no set-up analysis, no allocation. On a miss the plan is made from the policy's schedule
// (call/schedule.hpp). Compiled once in lib/call/plan.cpp; a persistent request takes its plan
// from here too and keeps it.
//
// The key is built without strings: the policy is identified by its type (call::policy_type) plus
// its object representation (its fields: segment sizes, fanout, straggler), when that
// representation is unique (PolicyType::keyed_by_bytes); another policy is identified by the
// schedule the process-wide cache gives it (one string-keyed lookup per call) plus its segment
// size. Either way, equal keys mean equal schedules and engine options, because a policy's
// schedule depends only on its fields and the request (algo::cache_params' contract). The key also
// fixes what the checks of the schedule against the call found (call::check_schedule()) and where
// the engine's buffers lie in the call's (BufferLayout), so a hit redoes neither: only a
// v-collective's counts and displacements, which the key holds as a hash, are compared and checked.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "cclx/block_counts.hpp"
#include "cclx/call/policy.hpp"
#include "cclx/collective_call.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::call {

/// What the plan stage needs of the communicator.
struct Site {
  int rank = 0;
  int nranks = 1;
  std::size_t handshake_bytes = 0;  ///< the backend's (engine::ExecOptions::handshake_bytes)
  std::span<const int> hosts;       ///< the host map, where the policy uses it (else empty)
};

struct PlanKey {
  const void* policy = nullptr;  // the policy's PolicyType, or its schedule
  std::array<unsigned char, key_bytes> params{};
  std::size_t count = 0;
  std::size_t elem_size = 0;
  std::size_t handshake_bytes = 0;
  std::uint64_t counts_hash = 0;  // a v-collective's counts (the entry keeps them, below)
  int root = 0;
  sched::Collective collective = sched::Collective::allreduce;
  bool in_place = false;
  bool order_sensitive = false;  // a non-commutative op (check_schedule's verdict depends on it)
  friend bool operator==(const PlanKey&, const PlanKey&);  // every field (lib/call/plan.cpp)
};

/// Where the engine's buffers lie in a call's own, as offsets: the same for every call with one
/// key, so a hit computes the addresses without the collective's descriptor (engine_buffers()).
struct BufferLayout {
  enum class Base : std::uint8_t { none, in, out };  ///< the call's buffer an engine buffer is in
  Base in = Base::none, out = Base::none;
  std::size_t in_offset = 0, out_offset = 0;   ///< bytes from the start of that buffer
  std::size_t count = 0;                       ///< engine::Buffers::count
  bool out_counts = false, in_counts = false;  ///< a v-collective's counts, taken from the call
};

/// The plan cache; plan() is the stage.
class Plans {
 public:
  struct Entry {
    PlanKey key;
    std::shared_ptr<const engine::Plan> plan;
    std::unique_ptr<engine::Execution> idle;  // none while a call runs it
    std::vector<long long> counts;            // a v-collective's (counts_values)
    BufferLayout layout;                      // of the calls it serves
  };

  /// The stage: the entry holding the plan of `c` run by scheduled policy `p` (made on a miss,
  /// from p's schedule), and in `buffers` the engine's addresses for this call. Throws rank
  /// s.rank's cclx::Error when the schedule cannot honor the call (call::check_schedule()).
  Entry& plan(const CollectiveCall& c, const Policy& p, const Site& s, engine::Buffers& buffers);

  /// The entry of `k`, moved to the front (most recently used), or null.
  Entry* find(const PlanKey& k);
  /// Adds (or replaces) the entry of `k`; the least recently used one goes when full.
  Entry& insert(const PlanKey& k, std::shared_ptr<const engine::Plan> plan);
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

  // Call shapes kept; each holds a plan (about the schedule's program) and an idle execution.
  static constexpr std::size_t capacity = 16;
  // An idle execution keeps scratch up to this size (so a repeated small call does not go to the
  // pool, a mutex and a search); larger scratch goes back to the pool after each call.
  static constexpr std::size_t keep_scratch_bytes = std::size_t{64} << 10;

 private:
  std::vector<std::unique_ptr<Entry>> entries_;
};

/// Where the engine's buffers of `c` lie on `rank` for schedule `s`, including the in-place
/// aliasing of partition.hpp.
BufferLayout buffer_layout(const CollectiveCall& c, const sched::Schedule& s, int rank);
/// The engine's buffer addresses of `c` laid out as `l` says.
engine::Buffers buffers_at(const BufferLayout& l, const CollectiveCall& c);
/// buffers_at(buffer_layout(c, s, rank), c).
engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank);

}  // namespace cclx::call
