// Dissemination barrier: ceil(log2 n) rounds; in round k rank r sends an empty message (token())
// to (r + 2^k) mod n and receives one from (r - 2^k) mod n. After round k, rank r has heard from
// the ranks r - j for j < 2^(k+1) (the ones it heard from directly, and whom they had heard from a
// round earlier), so after ceil(log2 n) rounds from all n. n = 1 has no rounds.
#include "cclx/algo/policies.hpp"

namespace cclx::sched {

Schedule dissemination(const ScheduleRequest& req) {
  const int n = req.nranks;
  Schedule s = begin_schedule<algo::Dissemination>(req, 1);
  s.root = 0;
  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    for (long long d = 1; d < n; d *= 2)
      b.send(static_cast<int>((r + d) % n), token())
          .recv(static_cast<int>((r - d + n) % n), token())
          .end_step();
  }
  return s;
}

}  // namespace cclx::sched
