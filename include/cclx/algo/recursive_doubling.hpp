// Recursive doubling allreduce: every rank exchanges its whole partial result with the partner at
// distance 1, 2, 4, ... (log2 p rounds of the whole message); latency-optimal, so the candidate
// for short messages (MPICH's choice for small allreduce). Non-powers of two fold the first
// 2(n - p) ranks pairwise first and hand the result back at the end (+2 rounds). Combines in rank
// order (the lower interval is always the left operand), so non-commutative ops are honored.
// Allreduce only: recursive-doubling allgather is already RHD's allgather, and a reduce that
// computes the result on every rank would only add traffic to a binomial tree's.
#pragma once

#include <bit>

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Recursive doubling allreduce: whole-message exchanges at distance 1, 2, 4, ...; combines in
/// rank order.
Schedule recursive_doubling(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: recursive doubling allreduce, for small messages.
struct RecursiveDoubling {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "recursive_doubling";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::allreduce};
  /// Those of them on which it keeps rank order, so that non-commutative ops are honored.
  static constexpr std::array keeps_rank_order = {sched::Collective::allreduce};
  /// Where it combines in the canonical order (schedule/canonical_order.hpp): at powers of two its
  /// exchanges at distance 1, 2, 4, ... build the canonical tree; other sizes fold ranks first.
  static constexpr std::array canonical_order = {sched::Collective::allreduce};
  /// The rank counts of that claim.
  static constexpr bool canonical_at(int nranks) {
    return nranks > 0 && std::has_single_bit(static_cast<unsigned>(nranks));
  }
  static constexpr std::string_view canonical_ranks = "powers of two";  ///< canonical_at, in words
  std::size_t segment_bytes = 0;                                        ///< as in Ring

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// field, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(RecursiveDoubling, segment_bytes, 0, kUnbounded, "as in ring"),
        CCLX_POLICY_PARAM(
            RecursiveDoubling, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::recursive_doubling(r);
  }
};

}  // namespace cclx::algo
