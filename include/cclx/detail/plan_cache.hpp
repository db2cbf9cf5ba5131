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
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "cclx/block_counts.hpp"
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
  std::uint64_t counts_hash = 0;  // a v-collective's counts (the entry keeps them, below)
  int root = 0;
  sched::Collective collective = sched::Collective::allreduce;
  bool in_place = false;
  friend bool operator==(const PlanKey&, const PlanKey&) = default;
};

// The counts a v-collective's plan depends on, Out's then In's, as the cache compares them: a
// hash for the key, and the values for an exact check on a hit.
inline std::uint64_t counts_hash(const BlockCounts& b) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the values
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i) {
      h ^= static_cast<std::uint64_t>((*a)[i]) + 0x9e3779b97f4a7c15ull * (a == &b.in_counts);
      h *= 1099511628211ull;
    }
  return h;
}
inline bool same_counts(const std::vector<long long>& kept, const BlockCounts& b) {
  if (kept.size() != b.out_counts.size + b.in_counts.size) return false;
  std::size_t k = 0;
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i)
      if (kept[k++] != (*a)[i]) return false;
  return true;
}
inline std::vector<long long> counts_values(const BlockCounts& b) {
  std::vector<long long> v;
  v.reserve(b.out_counts.size + b.in_counts.size);
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i) v.push_back((*a)[i]);
  return v;
}

class PlanCache {
 public:
  struct Entry {
    PlanKey key;
    std::shared_ptr<const engine::Plan> plan;
    std::unique_ptr<engine::Execution> idle;  // none while a call runs it
    std::vector<long long> counts;            // a v-collective's (counts_values)
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
