// Recursive halving-doubling (Rabenseifner): reduce-scatter by recursive halving, allgather by
// recursive doubling; 2 log2(p) steps, 2(n-1)/n s bytes; non-powers of two fold the extra ranks
// into partners first and get the result back at the end. RhdElimination: the same allreduce with
// Rabenseifner and Traeff's elimination in place of the fold (pairs split the message in halves
// instead of handing over the whole of it: s less on the critical path at n != 2^k).
// RecursiveHalvingDoubling's reduce_scatter and allgather schedules also serve reduce_scatterv and
// allgatherv.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::sched {
/// Recursive halving-doubling allreduce, reduce, reduce_scatter, allgather and bcast, and
/// reduce_scatterv and allgatherv; non-powers of two fold the extra ranks into partners.
Schedule recursive_halving_doubling(const ScheduleRequest& req);
/// The recursive halving-doubling allreduce with Rabenseifner and Traeff's elimination in place
/// of the fold.
Schedule rhd_elimination(const ScheduleRequest& req);
}  // namespace cclx::sched

namespace cclx::algo {

/// Policy: recursive halving-doubling (Rabenseifner) allreduce, reduce, reduce_scatter, allgather
/// and bcast, and reduce_scatterv and allgatherv with the same schedules.
struct RecursiveHalvingDoubling {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "rhd";
  /// What it serves; with keeps_rank_order the one declaration of it, read by the registry
  /// (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::reduce_scatter,
      sched::Collective::allgather, sched::Collective::bcast,  sched::Collective::reduce_scatterv,
      sched::Collective::allgatherv};
  /// Those of them on which it keeps rank order, so that non-commutative ops are honored.
  static constexpr std::array<sched::Collective, 5> keeps_rank_order = {
      sched::Collective::allreduce, sched::Collective::reduce, sched::Collective::allgather,
      sched::Collective::bcast, sched::Collective::allgatherv};
  std::size_t segment_bytes = 0;  ///< as in Ring

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// field, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(RecursiveHalvingDoubling, segment_bytes, 0, kUnbounded, "as in ring"),
        CCLX_POLICY_PARAM(
            RecursiveHalvingDoubling, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::recursive_halving_doubling(r);
  }
};

/// Policy: the rhd allreduce with Rabenseifner and Traeff's elimination in place of the fold for
/// a rank count that is not a power of two.
///
/// Allreduce only (the elimination is written for it); n = 2^k gives the rhd schedule. A separate
/// policy rather than a field of RecursiveHalvingDoubling so that the registry, the verifier sweep
/// and the MPI grid cover both schemes, and benchmarks can put them side by side.
struct RhdElimination {
  /// Its registry name, as CCLX_ALGO, tuning tables, cclx-bench and error messages spell it.
  static constexpr std::string_view name = "rhd_elimination";
  /// What it serves, allreduce alone; with keeps_rank_order the one declaration of it, read by
  /// the registry (algo::generators()) and the Communicator's compile-time checks.
  static constexpr std::array collectives = {sched::Collective::allreduce};
  /// Allreduce: it keeps rank order, so non-commutative ops are honored.
  static constexpr std::array keeps_rank_order = {sched::Collective::allreduce};
  std::size_t segment_bytes = 0;  ///< as in Ring

  /// Concurrent parts of the data (schedule/channels.hpp); 1: no split. size_t like the other
  /// field, so the policy has no padding and the plan cache keys it by its bytes.
  std::size_t channels = 1;

  /// Its run-time parameters (CCLX_ALGO, tuning tables, cclx-bench); defaults: the initializers.
  static constexpr auto params() {
    return std::array{
        CCLX_POLICY_PARAM(RhdElimination, segment_bytes, 0, kUnbounded, "as in ring"),
        CCLX_POLICY_PARAM(
            RhdElimination, channels, 1, sched::max_channels,
            "concurrent parts of the data, each its own schedule (schedule/channels.hpp)"),
    };
  }

  /// The schedule for `r`, one channel's part when `channels` > 1 (algo::generate() splits);
  /// throws cclx::Error when it cannot serve `r`.
  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::rhd_elimination(r);
  }
};

}  // namespace cclx::algo
