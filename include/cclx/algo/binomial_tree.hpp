// Binomial tree: reduce and bcast in ceil(log2 n) steps of the whole message; allreduce = reduce to
// rank 0 + bcast. Combines in rank order, so non-commutative ops are honored. Best for small
// messages.
#pragma once

#include "cclx/algo/algorithm.hpp"

namespace cclx::algo {

struct BinomialTree {
  static constexpr std::string_view name = "binomial_tree";

  [[nodiscard]] sched::Schedule generate(const sched::ScheduleRequest& r) const {
    return sched::binomial_tree(r);
  }
  [[nodiscard]] std::string cache_params(const sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx::algo
