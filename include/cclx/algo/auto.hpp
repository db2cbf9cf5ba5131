// algo::Auto: the communicator chooses the algorithm per call (docs/tuning.md). Sources, highest
// authority first: CCLX_ALGO, a tuning table (CCLX_TUNE_FILE), online tuning (CCLX_TUNE=online or
// `.online = true`), the α-β model. It serves every collective and every op: a candidate that
// cannot serve the call (another collective, reorders a non-commutative op, displacements that are
// not the packed layout) is never chosen, and native always can.
//
//   comm.allreduce(grad, cclx::sum, cclx::algo::Auto{});
//
// The policy holds no state: what Auto learns lives in the Communicator (one tune::AutoState per
// communicator, created at its first Auto call), so that every temporary `Auto{}` of every call
// site shares it, and so that the state dies with the communicator whose ranks agreed on it.
#pragma once

#include <string_view>

#include "cclx/collectives/collectives.hpp"

namespace cclx::algo {

/// Policy that lets the communicator choose the algorithm per call (CCLX_ALGO, a tuning table,
/// online tuning, the α-β model; docs/tuning.md).
struct Auto {
  /// The policy's name; every policy declares one, and messages about a policy show it.
  static constexpr std::string_view name = "auto";
  /// Marks it as an AutoAlgorithm: the communicator chooses the algorithm of each call.
  static constexpr bool automatic = true;
  /// Every collective: a candidate that cannot serve a call is never chosen, and native can.
  static constexpr auto collectives = coll::all_collectives;
  /// It only ever runs a candidate that keeps rank order where the op is not commutative.
  static constexpr auto keeps_rank_order = coll::all_collectives;
  /// Tune this call's workload online even when CCLX_TUNE is not "online". Like any policy
  /// argument, it must be the same on every rank.
  bool online = false;
};

}  // namespace cclx::algo
