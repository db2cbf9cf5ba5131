// Algorithms are compile-time policies. `Native` hands the call to the backend's own collective;
// every other policy produces a schedule (through the cache) that the engine executes. Fields of
// a policy carry its run-time settings, e.g. `algo::Ring{.segment_bytes = 1 << 20}`.
#pragma once

#include <algorithm>
#include <array>
#include <concepts>
#include <memory>
#include <string>
#include <string_view>

#include "cclx/algo/param.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/engine/execution.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/cache.hpp"
#include "cclx/schedule/channels.hpp"
#include "cclx/schedule/generate.hpp"

namespace cclx::algo {

/// The MPI library's own collective; always available, every collective and op.
struct Native {
  /// Its name in CCLX_ALGO, tuning tables and error messages.
  static constexpr std::string_view name = "native";
  /// Every collective: the backend has its own for each.
  static constexpr auto collectives = coll::all_collectives;
  /// Every collective: MPI applies a non-commutative op in rank order.
  static constexpr auto keeps_rank_order = coll::all_collectives;
};

/// Whether policy A serves collective c (its `collectives` declaration).
template <class A>
constexpr bool serves(sched::Collective c) {
  return std::find(A::collectives.begin(), A::collectives.end(), c) != A::collectives.end();
}

/// A schedule-producing policy:
///   name                      registry-style name ("ring")
///   collectives               the collectives it serves (a constexpr array)
///   keeps_rank_order          those on which it keeps rank order (non-commutative ops)
///   generate(req)             the schedule (throws cclx::Error if it cannot serve req)
/// and optionally
///   cache_params(req)         everything besides req's fields that changes the schedule
///                             (absent: nothing)
///   exec_options()            engine settings (absent: its `segment_bytes` field, if any, and
///                             the rest default)
///   channels                  a field: generate() below splits its schedule into that many
///                             concurrent parts (schedule/channels.hpp) around the policy's
///                             generate(), so no generator deals with it.
template <class A>
concept ScheduledAlgorithm = requires(const A& a, const sched::ScheduleRequest& req) {
  { A::name } -> std::convertible_to<std::string_view>;
  A::collectives.size();
  A::keeps_rank_order.size();
  { a.generate(req) } -> std::same_as<sched::Schedule>;
};

/// A policy that picks another policy per call and learns from what it observes (e.g.
/// StragglerAware): dispatch(run) calls run(policy) with its choice for this call.
template <class A>
concept AdaptiveAlgorithm = requires {
  requires A::adaptive;
};

/// A policy that leaves the choice to the communicator's tuner (algo::Auto, auto.hpp): per call it
/// runs native or a scheduled candidate chosen from CCLX_ALGO, a tuning table, online tuning or the
/// model.
template <class A>
concept AutoAlgorithm = requires {
  requires A::automatic;
};

/// A policy run by the relay runtime on persistent requests only (algo::Adaptive, adaptive.hpp).
template <class A>
concept RelayAlgorithm = requires {
  requires A::relay;
};

template <class A>
concept Algorithm = std::same_as<A, Native> || ScheduledAlgorithm<A> || AdaptiveAlgorithm<A> ||
    AutoAlgorithm<A> || RelayAlgorithm<A>;

/// Whether policy A's schedule depends on the host map (its `uses_hosts` declaration).
template <class A>
inline constexpr bool uses_hosts = requires {
  requires A::uses_hosts;
};

/// What besides `req`'s fields changes the policy's schedule: its cache_params(req), "" when it
/// declares none.
template <ScheduledAlgorithm A>
std::string cache_params(const A& a, const sched::ScheduleRequest& req) {
  if constexpr (requires { a.cache_params(req); })
    return a.cache_params(req);
  else
    return {};
}

/// The policy's engine settings: its exec_options(), else its `segment_bytes` field (0 without
/// one) and the rest default.
template <ScheduledAlgorithm A>
engine::ExecOptions exec_options(const A& a) {
  if constexpr (requires { a.exec_options(); })
    return a.exec_options();
  else if constexpr (requires { a.segment_bytes; })
    return {a.segment_bytes, {}};
  else
    return {};
}

/// The policy's channel count (1 for a policy without the field).
template <ScheduledAlgorithm A>
int channels_of(const A& a) {
  if constexpr (requires { a.channels; })
    return static_cast<int>(a.channels);
  else
    return 1;
}

/// The schedule's parameters of `a` for `req`: cache_params() of one channel's part, then the
/// channel count when it splits ("fanout=2,channels=2"). The cache key and the wire check share it.
template <ScheduledAlgorithm A>
std::string schedule_params(const A& a, const sched::ScheduleRequest& req) {
  const int k = channels_of(a);
  std::string s = algo::cache_params(a, sched::channel_part_request(req, k));
  if (k != 1) s += (s.empty() ? "channels=" : ",channels=") + std::to_string(k);
  return s;
}

/// What must match across ranks for `a` to run `req` (CCLX_VALIDATE compares it): the schedule's
/// parameters, which cache_params() already names completely (anything it left out would make the
/// schedule cache return a wrong schedule), the channel count, and the engine's segmentation from
/// exec_options() (the wait policy there is local; the handshake threshold is the backend's and
/// compared there). E.g. "segment_bytes=1048576,fanout=2,segments=1" (PipelinedTree),
/// "straggler=3" (StragglAR), "segment_bytes=0" (Ring), "channels=2,segment_bytes=0" (Ring with
/// two channels).
template <ScheduledAlgorithm A>
std::string wire_params(const A& a, const sched::ScheduleRequest& req) {
  std::string s = schedule_params(a, req);
  const std::size_t seg = algo::exec_options(a).segment_bytes;
  if (seg != 0 || s.empty()) {
    if (!s.empty()) s += ',';
    s += "segment_bytes=" + std::to_string(seg);
  }
  return s;
}

/// The schedule of `a` for `req`, split into its channels.
template <ScheduledAlgorithm A>
sched::Schedule generate(const A& a, const sched::ScheduleRequest& req) {
  return sched::split_channels(A::name, req, channels_of(a),
                               [&](const sched::ScheduleRequest& r) { return a.generate(r); });
}

/// The cached schedule of `a` for `req`.
template <ScheduledAlgorithm A>
std::shared_ptr<const sched::Schedule> schedule_for(const A& a, const sched::ScheduleRequest& req) {
  std::string prefix(A::name);
  prefix += ':';
  prefix += schedule_params(a, req);
  return sched::cached_schedule(sched::cache_key(prefix, req), [&] { return generate(a, req); });
}

}  // namespace cclx::algo
