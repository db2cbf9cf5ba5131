#include "cclx/schedule/concat.hpp"

#include <cstddef>
#include <cstdint>

#include "cclx/error.hpp"

namespace cclx::sched {

Schedule concat_phases(const Schedule& phase1, const Schedule& phase2) {
  if (phase1.collective != phase2.collective || phase1.nranks != phase2.nranks ||
      phase1.root != phase2.root || phase1.in_place != phase2.in_place ||
      phase1.nblocks != phase2.nblocks || phase1.scratch_copies != phase2.scratch_copies)
    throw Error("phases differ in collective, nranks, root, in_place, nblocks or scratch_copies");
  if (phase1.programs.size() != phase2.programs.size() ||
      phase1.programs.size() != static_cast<std::size_t>(phase1.nranks))
    throw Error("both phases need a program per rank");
  Schedule both = phase1;
  both.preserves_order = phase1.preserves_order && phase2.preserves_order;
  both.one_sender_per_receiver = false;
  both.canonical_order = false;  // phase 2 combines phase 1's partial results: a new order
  const std::size_t l1 = phase1.num_rounds();
  for (std::size_t r = 0; r < both.programs.size(); ++r) {
    Program& p = both.programs[r];
    while (p.num_steps() < l1) p.step_begin.push_back(static_cast<std::uint32_t>(p.ops.size()));
    const Program& q = phase2.programs[r];
    const auto base = static_cast<std::uint32_t>(p.ops.size());
    p.ops.insert(p.ops.end(), q.ops.begin(), q.ops.end());
    for (std::size_t k = 1; k < q.step_begin.size(); ++k)
      p.step_begin.push_back(base + q.step_begin[k]);
  }
  return both;
}

}  // namespace cclx::sched
