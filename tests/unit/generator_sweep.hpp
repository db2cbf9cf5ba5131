// Shared sweep for generator tests: verifies a generator over rank counts, roots, in place / out of
// place and element counts with the symbolic verifier, and checks that scratch_copies is exactly
// what the programs use.
#pragma once

#include <doctest/doctest.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "cclx/algo/policies.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/verifier.hpp"
#include "sweep_limit.hpp"

namespace cclx::test {

inline std::vector<int> sweep_sizes() {
  std::vector<int> ns;
  for (int n = 1; n <= 64; ++n) ns.push_back(n);
  for (int n : {96, 100, 127, 128, 200}) ns.push_back(n);
  std::erase_if(ns, [](int n) { return n > sweep_max_n(); });
  return ns;
}

using Accept = std::function<bool(const sched::ScheduleRequest&)>;

// Scratch copies the programs touch (0 when none): the copy of each region's last block.
inline std::uint32_t scratch_copies_used(const sched::Schedule& s) {
  std::uint32_t used = 0;
  for (const auto& p : s.programs)
    for (const auto& op : p.ops)
      for (const sched::Region* g : {&op.dst, &op.src, &op.src2})
        if (g->buf == sched::Buf::scratch && g->count > 0)
          used = std::max(used, (g->end() - 1) / s.nblocks + 1);
  return used;
}

// Returns how many (schedule, count) pairs were verified. Requests `accept` rejects must throw
// cclx::Error instead.
inline std::size_t sweep(const std::function<sched::Schedule(const sched::ScheduleRequest&)>& gen,
                         const std::vector<sched::Collective>& colls,
                         const std::vector<int>& ns = sweep_sizes(), const Accept& accept = {},
                         std::size_t elem = 4) {
  using sched::Collective;
  std::size_t verified = 0;
  for (int n : ns)
    for (Collective c : colls) {
      std::vector<int> roots{0};
      if (coll::visit(c, [](auto d) { return d.rooted; })) roots = {0, n / 2, n - 1};
      for (int root : roots)
        for (bool ip : {false, true})
          for (std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t(n - 1),
                                    std::size_t(n + 1), std::size_t{1000}, std::size_t{4097}}) {
            sched::ScheduleRequest req{c, n, root, ip, count * elem};
            if (accept && !accept(req)) {
              CHECK_THROWS_AS((void)gen(req), cclx::Error);
              continue;
            }
            const auto s = gen(req);
            const auto rep = sched::verify(s, count, elem);
            std::string errs;
            for (const auto& e : rep.errors) errs += "\n  " + e;
            INFO(std::string(to_string(c)), " n=", n, " root=", root, " in_place=", ip,
                 " count=", count, errs);
            CHECK(rep.ok);
            // The verifier rejects using more copies than declared; declaring more than used
            // would only waste memory.
            CHECK(s.scratch_copies == std::max(1u, scratch_copies_used(s)));
            ++verified;
          }
    }
  return verified;
}

}  // namespace cclx::test
