// Internal to lib/schedule: per-rank, per-step op lists that relay plans fill in any order and
// turn into programs at the end (program order within a step is emission order).
#pragma once

#include <map>
#include <vector>

#include "cclx/schedule/schedule.hpp"

namespace cclx::sched::detail {

class Steps {
 public:
  // only >= 0: keep that rank's ops only (ScheduleRequest::only_rank).
  Steps(int n, int only) : only_(only), ops_(static_cast<std::size_t>(n)) {}
  [[nodiscard]] bool wants(int r) const { return only_ < 0 || r == only_; }
  void add(int r, long long step, const Op& op) {
    if (wants(r)) ops_[static_cast<std::size_t>(r)][step].push_back(op);
  }
  void finish(Schedule& s) const {
    s.programs.assign(ops_.size(), Program{});
    for (std::size_t r = 0; r < ops_.size(); ++r) {
      ProgramBuilder b(s.programs[r]);
      long long step = 0;
      for (const auto& [st, ops] : ops_[r]) {
        for (; step < st; ++step) b.end_step();
        s.programs[r].ops.insert(s.programs[r].ops.end(), ops.begin(), ops.end());
      }
      if (!ops_[r].empty()) b.end_step();
    }
  }

 private:
  int only_;
  std::vector<std::map<long long, std::vector<Op>>> ops_;
};

inline Op send_op(int peer, Region src) {
  return Op{OpKind::send, peer, {}, src, {}};
}
inline Op recv_op(int peer, Region dst) {
  return Op{OpKind::recv, peer, dst, {}, {}};
}
inline Op copy_op(Region dst, Region src) {
  return Op{OpKind::copy, -1, dst, src, {}};
}
inline Op reduce_op(Region dst, Region a, Region b) {
  return Op{OpKind::reduce, -1, dst, a, b};
}

}  // namespace cclx::sched::detail
