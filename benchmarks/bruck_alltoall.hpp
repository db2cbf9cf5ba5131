// A Bruck alltoall schedule, for measurement only (docs/results.md, "alltoallv: is a Bruck-style
// algorithm worth adding?"); not a library algorithm. Equal blocks, out of place:
//   step 0        rotate: slot i <- In block (r + i) mod n; pack the slots with bit 0 set
//   step k + 1    send the packed slots with bit k set to r + 2^k, receive the same slots from
//                 r - 2^k, unpack them, pack those with bit k + 1 set (last step: Out block
//                 (r - i) mod n <- slot i)
// ceil(log2 n) messages per rank instead of the pairwise exchange's n - 1, each of about half the
// data. Slots live in scratch copy 0, the packed message alternates between copies 1 and 3 (a step
// packs the next message while sending this one), and arrives in copy 2. A v-collective version
// cannot be expressed with per-rank block layouts: an intermediate rank forwards blocks whose
// sizes belong to other pairs of ranks, so it would need every rank's counts first (one more
// collective). This equal-block one is its best case.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "cclx/algo/algorithm.hpp"
#include "cclx/schedule/verifier.hpp"

namespace cclx_bench {

inline cclx::sched::Schedule bruck_alltoall(const cclx::sched::ScheduleRequest& req) {
  using namespace cclx::sched;
  if (req.collective != Collective::alltoall || req.in_place)
    throw cclx::Error("bruck_proto: out-of-place alltoall only");
  const int n = req.nranks;
  const auto N = static_cast<std::uint32_t>(n);
  Schedule s;
  s.algorithm = "bruck_proto";
  s.collective = req.collective;
  s.nranks = n;
  s.nblocks = N;
  s.scratch_copies = n > 1 ? 4 : 1;
  s.programs.resize(N);
  int levels = 0;
  while ((1 << levels) < n) ++levels;
  // The slots with bit k set, in order: message k carries them.
  std::vector<std::vector<std::uint32_t>> sel(static_cast<std::size_t>(levels));
  for (int k = 0; k < levels; ++k)
    for (std::uint32_t i = 0; i < N; ++i)
      if (i >> k & 1u) sel[static_cast<std::size_t>(k)].push_back(i);
  auto mod = [n](long long a) { return static_cast<std::uint32_t>(((a % n) + n) % n); };
  for (int r = 0; r < n; ++r) {
    if (!req.wants(r)) continue;
    ProgramBuilder b(s.programs[static_cast<std::size_t>(r)]);
    if (n == 1) {
      b.copy(out(0), in(0)).end_step();
      continue;
    }
    auto packed = [&](int k, std::uint32_t j) { return scratch((k % 2 ? 3 : 1) * N + j); };
    auto pack = [&](int k) {
      const auto& v = sel[static_cast<std::size_t>(k)];
      for (std::uint32_t j = 0; j < v.size(); ++j) b.copy(packed(k, j), scratch(v[j]));
    };
    for (std::uint32_t i = 0; i < N; ++i) b.copy(scratch(i), in(mod(r + i)));
    pack(0);
    b.end_step();
    for (int k = 0; k < levels; ++k) {
      const auto& v = sel[static_cast<std::size_t>(k)];
      const auto m = static_cast<std::uint32_t>(v.size());
      b.send(static_cast<int>(mod(r + (1 << k))), Region{Buf::scratch, packed(k, 0).first, m});
      b.recv(static_cast<int>(mod(r - (1 << k))), scratch(2 * N, m));
      for (std::uint32_t j = 0; j < m; ++j) b.copy(scratch(v[j]), scratch(2 * N + j));
      if (k + 1 < levels)
        pack(k + 1);
      else
        for (std::uint32_t i = 0; i < N; ++i) b.copy(out(mod(r - i)), scratch(i));
      b.end_step();
    }
  }
  return s;
}

// The policy cclx-bench runs it with ("bruck_proto"); it verifies its schedule once per request.
struct BruckProto {
  static constexpr std::string_view name = "bruck_proto";
  static constexpr std::array collectives = {cclx::sched::Collective::alltoall};
  static constexpr std::array<cclx::sched::Collective, 0> keeps_rank_order = {};
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    auto all = r;
    all.only_rank = -1;
    cclx::sched::verify_or_throw(bruck_alltoall(all), 3 * static_cast<std::size_t>(r.nranks), 4);
    return bruck_alltoall(r);
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace cclx_bench
