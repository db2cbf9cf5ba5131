// Internal to lib/relay, shared by its schedule families: their request checks and block
// split, and per-rank, per-step op lists that they fill in any order and turn into programs at
// the end (program order within a step is emission order).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/relay/schedules.hpp"
#include "cclx/schedule/generate.hpp"
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

// A phase of an allreduce plan family, without programs: "phase=P,active=K/N,<plan>,chunks=NB"
// in its params; rank order is kept only by the trivial plan (n = 1).
inline Schedule plan_phase(const ScheduleRequest& req, int phase, int active, std::string_view plan,
                           std::uint32_t nblocks) {
  Schedule s;
  s.algorithm = "adaptive";
  s.params = "phase=" + std::to_string(phase) + ",active=" + std::to_string(active) + "/" +
             std::to_string(req.nranks) + "," + std::string(plan) +
             ",chunks=" + std::to_string(nblocks);
  s.collective = req.collective;
  s.nranks = req.nranks;
  s.root = 0;
  s.in_place = req.in_place;
  s.nblocks = nblocks;
  s.preserves_order = req.nranks == 1;
  return s;
}

// The checks every allreduce-only plan family makes of its request (`family` names it in the
// message: "subset relay plans"); throws cclx::Error.
inline void check_allreduce_plan(std::string_view family, const ScheduleRequest& req,
                                 const std::vector<bool>& active) {
  const std::string f(family);
  if (req.collective != Collective::allreduce)
    throw Error(f + " serve allreduce only, not " + std::string(to_string(req.collective)));
  if (req.nranks < 1) throw Error(f + ": communicator size must be >= 1");
  if (active.size() != static_cast<std::size_t>(req.nranks))
    throw Error(f + ": active set has " + std::to_string(active.size()) + " entries for " +
                std::to_string(req.nranks) + " ranks");
  if (req.only_rank >= req.nranks)
    throw Error(f + ": rank " + std::to_string(req.only_rank) + " out of range");
  if (req.only_rank >= 0 && req.only_rank_end > req.only_rank + 1)
    throw Error(f + ": build one rank's programs or every rank's, not a range");
}

// Blocks per unit when `units` units (a generator's blocks, owners' chunks) are split so that
// there are about bytes / segment_bytes blocks in all, at most kMaxSubsetChunks rounded up to a
// multiple of `units`, at least one per unit.
inline std::uint32_t blocks_per_unit(std::size_t bytes, std::size_t segment_bytes,
                                     std::uint32_t units) {
  const std::size_t seg = std::max<std::size_t>(segment_bytes, 1);
  const std::size_t want = std::min<std::size_t>((bytes + seg - 1) / seg, kMaxSubsetChunks);
  const std::size_t u = std::max<std::uint32_t>(units, 1);
  return static_cast<std::uint32_t>(std::max<std::size_t>(1, (want + u - 1) / u));
}

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
