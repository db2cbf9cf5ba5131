// The Communicator's cache of one-shot scheduled calls: for the last few call shapes, the plan
// (engine/plan.hpp: schedule resolved for the buffer shape, pipelining and handshake decisions,
// scratch size) and an idle execution to run it again. A repeated call then costs a key
// comparison, the transfers and the reductions: no schedule-cache string, no set-up analysis, no
// allocation.
//
// The key is built without strings: the policy is identified by a tag per policy type plus its
// object representation (its fields: segment sizes, fanout, straggler), when that representation
// is unique (no padding; has_unique_object_representations); a policy with padding is identified
// by the schedule the process-wide cache gives it (one string-keyed lookup per call) plus its
// segment size. Either way, equal keys mean equal schedules and engine options, because a
// policy's schedule depends only on its fields and the request (algo::cache_params' contract).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "cclx/engine/execution.hpp"
#include "cclx/engine/plan.hpp"
#include "cclx/schedule/schedule.hpp"

namespace cclx::detail {

// One address per policy type.
template <class A>
inline constexpr char policy_tag = 0;

inline constexpr std::size_t policy_key_bytes = 32;

// Whether a policy value is identified by its bytes (see above).
template <class A>
inline constexpr bool policy_is_bytes = std::is_empty_v<A> ||
                                        (std::is_trivially_copyable_v<A> &&
                                         std::has_unique_object_representations_v<A> &&
                                         sizeof(A) <= policy_key_bytes);

struct PlanKey {
  const void* policy = nullptr;  // &policy_tag<A>, or the schedule
  std::array<unsigned char, policy_key_bytes> params{};
  std::size_t count = 0;
  std::size_t elem_size = 0;
  std::size_t handshake_bytes = 0;
  int root = 0;
  sched::Collective collective = sched::Collective::allreduce;
  bool in_place = false;
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

class PlanCache {
 public:
  struct Entry {
    PlanKey key;
    std::shared_ptr<const engine::Plan> plan;
    std::unique_ptr<engine::Execution> idle;  // none while a call runs it
  };

  // The entry of `k`, moved to the front (most recently used), or null.
  Entry* find(const PlanKey& k) {
    for (std::size_t i = 0; i < entries_.size(); ++i)
      if (entries_[i]->key == k) {
        const auto at = entries_.begin() + static_cast<std::ptrdiff_t>(i);
        if (i) std::rotate(entries_.begin(), at, at + 1);
        return entries_.front().get();
      }
    return nullptr;
  }
  // Adds (or replaces) the entry of `k`; the least recently used one goes when full.
  Entry& insert(const PlanKey& k, std::shared_ptr<const engine::Plan> plan) {
    Entry* e = find(k);
    if (!e) {
      if (entries_.size() == capacity) entries_.pop_back();
      entries_.insert(entries_.begin(), std::make_unique<Entry>());
      e = entries_.front().get();
      e->key = k;
    }
    e->plan = std::move(plan);
    e->idle.reset();
    return *e;
  }
  [[nodiscard]] std::size_t size() const { return entries_.size(); }

  // Call shapes kept; each holds a plan (about the schedule's program) and an idle execution.
  static constexpr std::size_t capacity = 16;
  // An idle execution keeps scratch up to this size (so a repeated small call does not go to the
  // pool, a mutex and a search); larger scratch goes back to the pool after each call.
  static constexpr std::size_t keep_scratch_bytes = std::size_t{64} << 10;

 private:
  std::vector<std::unique_ptr<Entry>> entries_;
};

}  // namespace cclx::detail
