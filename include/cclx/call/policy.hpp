// The policy a call runs, as the call pipeline sees it (docs/architecture.md, "One call, file by
// file"): the typed API erases it here, once, into a pointer to the policy object and a table of
// what the stages ask of it. Every stage after the API edge (call/check.hpp, schedule.hpp,
// plan.hpp, execute.hpp) is compiled once, in lib/call/, whatever the policy; algo::Auto hands
// its choice to the same stages in the same form.
//
// Native (the backend's own collective) and the scheduled policies are erased; the policies that
// choose another one per call (algo::Auto, StragglerAware) are choosers, not erased: their choice
// is. A relay policy (algo::Adaptive) is erased for the check stage alone: it runs on its own
// runtime (relay/adaptive.hpp).
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>

#include "cclx/algo/algorithm.hpp"

namespace cclx::call {

/// What the stages ask of one policy type: one constant table per type (policy_type<A>).
struct PolicyType {
  std::string_view name;    ///< its registry name ("ring"; "native")
  bool native = false;      ///< algo::Native: the backend's own collective, no schedule
  bool uses_hosts = false;  ///< its schedule depends on the host map (algo::uses_hosts)
  /// Its object representation identifies its value (no padding, at most key_bytes): the plan
  /// cache keys on the bytes instead of asking the schedule cache (call/plan.hpp).
  bool keyed_by_bytes = false;
  /// The bytes of its object that keyed_by_bytes keys on: sizeof, or 0 for an empty policy (whose
  /// one byte holds no value).
  std::size_t key_size = 0;
  /// Whether it combines every element of a collective in the canonical order on n ranks.
  bool (*reduces_canonically)(sched::Collective, int nranks) = nullptr;
  /// A scheduled policy's: its cached schedule for a request, the parameters every rank must
  /// agree on (algo::wire_params) and its engine options. Null for the others.
  std::shared_ptr<const sched::Schedule> (*schedule)(const void* self,
                                                     const sched::ScheduleRequest& req) = nullptr;
  std::string (*wire_params)(const void* self, const sched::ScheduleRequest& req) = nullptr;
  engine::ExecOptions (*exec_options)(const void* self) = nullptr;
};

/// A policy object and its type's table. `self` points to the caller's policy, which lives for
/// the call (a nonblocking or persistent call resolves its schedule before it returns).
struct Policy {
  const PolicyType* type = nullptr;
  const void* self = nullptr;
  [[nodiscard]] bool native() const { return type->native; }
  [[nodiscard]] std::string_view name() const { return type->name; }
};

/// The most bytes of a policy the plan cache keys on (policies larger or with padding are keyed
/// by their schedule).
inline constexpr std::size_t key_bytes = 32;

namespace erasure {
template <class A>
struct Erased {
  static bool reduces_canonically(sched::Collective c, int n) {
    return sched::reduces_canonically<A>(c, n);
  }
  static std::shared_ptr<const sched::Schedule> schedule(const void* self,
                                                         const sched::ScheduleRequest& req) {
    return algo::schedule_for(*static_cast<const A*>(self), req);
  }
  static std::string wire_params(const void* self, const sched::ScheduleRequest& req) {
    return algo::wire_params(*static_cast<const A*>(self), req);
  }
  static engine::ExecOptions exec_options(const void* self) {
    return algo::exec_options(*static_cast<const A*>(self));
  }
};

template <class A>
constexpr PolicyType make_type() {
  PolicyType t;
  t.name = A::name;
  t.reduces_canonically = &Erased<A>::reduces_canonically;
  if constexpr (std::same_as<A, algo::Native>) {
    t.native = true;
  } else if constexpr (algo::ScheduledAlgorithm<A>) {
    t.uses_hosts = algo::uses_hosts<A>;
    t.keyed_by_bytes = std::is_empty_v<A> ||
                       (std::is_trivially_copyable_v<A> &&
                        std::has_unique_object_representations_v<A> && sizeof(A) <= key_bytes);
    t.key_size = std::is_empty_v<A> ? 0 : sizeof(A);
    t.schedule = &Erased<A>::schedule;
    t.wire_params = &Erased<A>::wire_params;
    t.exec_options = &Erased<A>::exec_options;
  }
  return t;
}
}  // namespace erasure

/// The table of policy type A (its address identifies the type in the plan cache's key).
template <class A>
inline constexpr PolicyType policy_type = erasure::make_type<A>();

/// `a` as the stages see it (Native, a scheduled policy, or a relay policy for its checks).
template <class A>
requires std::same_as<A, algo::Native> || algo::ScheduledAlgorithm<A> || algo::RelayAlgorithm<A>
    Policy erase(const A& a) {
  return {&policy_type<A>, &a};
}

}  // namespace cclx::call
