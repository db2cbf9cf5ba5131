// StragglAR allreduce schedule: the round plan (stragglar.hpp) translated into programs.
//
// Labels: virtual rank v < n-1 is a non-straggler, v = n-1 the straggler; real ranks keep the
// non-stragglers' order around the straggler. Chunk k = block k of n-1 blocks.
//   prologue  ring reduce-scatter among the non-stragglers (n-2 steps): non-straggler g ends with
//             chunk g reduced over the non-stragglers in Scratch[g]. The straggler's prologue
//             steps are empty, so at run time it simply arrives late and starts at round 0.
//   round r   the plan's exchanges. Rank r sends Scratch[r] to the straggler and gets its In[r];
//             both compute Out[r] = partial (+) straggler's part, with the same operand order, so
//             the results are bitwise identical. Fully reduced chunks travel Out -> Out.
// In place, the straggler cannot write Out[r] (= In[r]) while sending In[r]: it reduces into
// Scratch[r], sends from there, and copies to Out[r] in the next step. With n = 2 (no
// reduce-scatter) the lone non-straggler's partial is its In[0]; in place it is first copied to
// Scratch[0] in a one-step prologue, and the straggler's copy takes one extra local step.
#include "cclx/schedule/stragglar.hpp"

#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/error.hpp"
#include "ring_phases.hpp"

namespace cclx::sched {

Schedule stragglar(const ScheduleRequest& req, int straggler) {
  const int n = req.nranks;
  Schedule s = begin_schedule<algo::StragglAR>(req, static_cast<std::uint32_t>(n > 1 ? n - 1 : 1));
  if (straggler < 0 || straggler >= n)
    throw Error("stragglar: straggler " + std::to_string(straggler) + " out of range for " +
                std::to_string(n) + " ranks");
  s.params = "straggler=" + std::to_string(straggler);
  if (n == 1) {
    if (!req.in_place) ProgramBuilder(s.programs[0]).copy(out(0), in(0)).end_step();
    return s;
  }

  const int m = n - 1, S = n - 1;  // non-stragglers; the straggler's virtual rank
  auto real = [&](int v) { return v == S ? straggler : (v < straggler ? v : v + 1); };
  auto wanted = [&](int v) { return req.wants(real(v)); };
  const bool in_place = req.in_place;
  const auto shared = stragglar_rounds::shared_plan(n);  // checked
  const stragglar_rounds::Plan& plan = *shared;

  std::vector<ProgramBuilder> b;
  b.reserve(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) b.emplace_back(s.programs[static_cast<std::size_t>(real(v))]);
  // Where a rank holds chunk k fully reduced (what it sends from).
  auto full = [&](int v, std::uint32_t k) { return v == S && in_place ? scratch(k) : out(k); };
  // Where non-straggler g holds its partial chunk g after the prologue.
  const bool partial_in_input = m == 1 && !in_place;

  // Prologue.
  std::uint32_t prologue = 0;
  if (m >= 2) {
    prologue = static_cast<std::uint32_t>(m - 1);
    for (int g = 0; g < m; ++g)
      if (wanted(g))
        detail::ring_reduce_scatter(b[static_cast<std::size_t>(g)], m, g, -1, Buf::scratch,
                                    Buf::scratch, real);
  } else if (in_place) {
    prologue = 1;
    if (wanted(0)) b[0].copy(scratch(0), in(0)).end_step();
  }
  if (wanted(S))
    for (std::uint32_t i = 0; i < prologue; ++i) b[static_cast<std::size_t>(S)].end_step();
  s.prologue_steps = prologue;

  // Rounds.
  auto& sb = b[static_cast<std::size_t>(S)];
  for (std::size_t r = 0; r < plan.rounds.size(); ++r) {
    const auto& round = plan.rounds[r];
    const auto rr = static_cast<std::uint32_t>(r);
    const bool meets = static_cast<int>(r) < m;
    for (std::size_t i = 0; i < round.size(); ++i) {
      const auto& e = round[i];
      if (meets && i == 0) {
        const int g = e.a;
        const auto k = static_cast<std::uint32_t>(g);
        if (wanted(g)) {
          const Region partial = partial_in_input ? in(k) : scratch(k);
          b[static_cast<std::size_t>(g)]
              .send(real(S), partial)
              .recv(real(S), out(k))
              .reduce(out(k), partial, out(k));
        }
        if (wanted(S)) {
          sb.send(real(g), in(k)).recv(real(g), scratch(k));
          if (in_place)
            sb.reduce(scratch(k), scratch(k), in(k));
          else
            sb.reduce(out(k), scratch(k), in(k));
        }
        continue;
      }
      const int ends[2] = {e.a, e.b};
      const int gives[2] = {e.chunk_ab, e.chunk_ba};
      for (int side = 0; side < 2; ++side) {
        const int self = ends[side], peer = ends[1 - side];
        if (!wanted(self)) continue;
        auto& pb = b[static_cast<std::size_t>(self)];
        if (gives[side] >= 0)
          pb.send(real(peer), full(self, static_cast<std::uint32_t>(gives[side])));
        if (gives[1 - side] >= 0)
          pb.recv(real(peer), out(static_cast<std::uint32_t>(gives[1 - side])));
      }
    }
    // In place, the straggler's chunk of the previous round moves to its Out now.
    if (in_place && wanted(S) && r >= 1 && rr - 1 < static_cast<std::uint32_t>(m))
      sb.copy(out(rr - 1), scratch(rr - 1));
    for (int v = 0; v < n; ++v)
      if (wanted(v)) b[static_cast<std::size_t>(v)].end_step();
  }
  // Only n = 2 in place ends with the straggler's last copy still pending.
  if (in_place && plan.rounds.size() <= static_cast<std::size_t>(m)) {
    if (wanted(S)) sb.copy(out(static_cast<std::uint32_t>(m - 1)), scratch(m - 1)).end_step();
  }
  return s;
}

}  // namespace cclx::sched
