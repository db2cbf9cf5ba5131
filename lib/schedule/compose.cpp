#include "cclx/schedule/compose.hpp"

#include <algorithm>
#include <string>
#include <utility>

#include "cclx/error.hpp"

namespace cclx::sched {

std::vector<std::uint32_t> block_bounds(std::uint32_t first, std::uint32_t nblocks,
                                        std::uint32_t scale) {
  std::vector<std::uint32_t> b(nblocks + 1);
  for (std::uint32_t i = 0; i <= nblocks; ++i) b[i] = first + i * scale;
  return b;
}

ScheduleComposer::ScheduleComposer(int nranks, std::uint32_t nblocks)
    : nranks_(nranks), nblocks_(nblocks), steps_(static_cast<std::size_t>(nranks)) {}

ScheduleComposer::ScheduleComposer(const ScheduleRequest& req, std::uint32_t nblocks)
    : ScheduleComposer(req.nranks, nblocks) {
  wanted_.only_rank = req.only_rank;
  wanted_.only_rank_end = req.only_rank_end;
}

BlockMap contiguous(const std::vector<std::uint32_t>& bounds) {
  BlockMap m(bounds.empty() ? 0 : bounds.size() - 1);
  for (std::size_t b = 0; b < m.size(); ++b)
    for (std::uint32_t w = bounds[b]; w < bounds[b + 1]; ++w) m[b].push_back(w);
  return m;
}

void ScheduleComposer::embed(const Schedule& part, const Embedding& e) {
  bool fits = e.ranks.size() == static_cast<std::size_t>(part.nranks) &&
              part.programs.size() == e.ranks.size() &&
              e.blocks.size() == static_cast<std::size_t>(part.nblocks);
  for (const auto& set : e.blocks)
    for (std::uint32_t b : set) fits = fits && b < nblocks_;
  if (!fits)
    throw Error("embedding of '" + part.algorithm + "' does not fit its schedule (" +
                std::to_string(part.nranks) + " ranks, " + std::to_string(part.nblocks) +
                " blocks) or the whole (" + std::to_string(nblocks_) + " blocks)");
  scratch_copies_ = std::max(scratch_copies_, part.scratch_copies);
  // From the part's rounds, not the programs built: with only_rank the others are not built, and
  // every rank must still number the steps alike.
  phase_end_ = std::max(phase_end_, phase_start_ + part.num_rounds());
  for (const auto& [buf, copy] : {std::pair{e.in, e.in_copy}, std::pair{e.out, e.out_copy}})
    if (buf == Buf::scratch) scratch_copies_ = std::max(scratch_copies_, copy + 1);
  // The whole's regions of part region g: one per run of adjacent blocks (none when its blocks
  // cover none of the whole's).
  const auto moved = [&](Region g) {
    std::vector<Region> runs;
    if (g.count == 0) {  // token() or an unused operand
      runs.push_back(g);
      return runs;
    }
    std::uint32_t copy = 0, b = g.first;
    if (g.buf == Buf::scratch) {
      copy = g.first / part.nblocks;
      b = g.first % part.nblocks;
    } else {
      copy = g.buf == Buf::in ? e.in_copy : e.out_copy;
      g.buf = g.buf == Buf::in ? e.in : e.out;
    }
    const std::uint32_t base = g.buf == Buf::scratch ? copy * nblocks_ : 0;
    for (std::uint32_t p = b; p < b + g.count; ++p)
      for (std::uint32_t w : e.blocks[p]) {
        if (!runs.empty() && runs.back().end() == base + w)
          ++runs.back().count;
        else
          runs.push_back({g.buf, base + w, 1});
      }
    return runs;
  };
  const auto counts = [](const std::vector<Region>& r) {
    std::vector<std::uint32_t> c;
    c.reserve(r.size());
    for (const Region& g : r) c.push_back(g.count);
    return c;
  };
  for (std::size_t i = 0; i < e.ranks.size(); ++i) {
    const int rank = e.ranks[i];
    if (rank < 0 || rank >= nranks_) throw Error("embedding names rank " + std::to_string(rank));
    if (!wanted_.wants(rank)) continue;
    auto& prog = steps_[static_cast<std::size_t>(rank)];
    const Program& p = part.programs[i];
    if (prog.size() < phase_start_ + p.num_steps()) prog.resize(phase_start_ + p.num_steps());
    for (std::size_t s = 0; s < p.num_steps(); ++s)
      for (std::size_t k = 0; k < p.step_size(s); ++k) {
        const Op op = p.step_data(s)[k];
        auto& step = prog[phase_start_ + s];
        if (op.is_transfer()) {
          const int peer = e.ranks[static_cast<std::size_t>(op.peer)];
          const bool send = op.kind == OpKind::send;
          for (const Region& g : moved(send ? op.src : op.dst))
            step.push_back(send ? Op{OpKind::send, peer, {}, g, {}}
                                : Op{OpKind::recv, peer, g, {}, {}});
          continue;
        }
        const std::vector<Region> dst = moved(op.dst), src = moved(op.src);
        const std::vector<Region> src2 =
            op.kind == OpKind::reduce ? moved(op.src2) : std::vector<Region>(dst.size());
        if (counts(src) != counts(dst) ||
            (op.kind == OpKind::reduce && counts(src2) != counts(dst)))
          throw Error("embedding of '" + part.algorithm + "': a " +
                      std::string(to_string(op.kind)) +
                      " whose operands cover different runs of the whole's blocks");
        for (std::size_t j = 0; j < dst.size(); ++j)
          step.push_back(Op{op.kind, op.peer, dst[j], src[j], src2[j]});
      }
  }
}

void ScheduleComposer::next_phase() {
  phase_start_ = phase_end_;
  phase_starts_.push_back(phase_start_);
}

std::vector<std::size_t> ScheduleComposer::phase_bounds() const {
  std::vector<std::size_t> b = phase_starts_;
  b.push_back(phase_end_);
  return b;
}

Schedule ScheduleComposer::finish(Schedule header) const {
  header.nranks = nranks_;
  header.nblocks = nblocks_;
  header.scratch_copies = scratch_copies_;
  header.programs.assign(steps_.size(), Program{});
  for (std::size_t r = 0; r < steps_.size(); ++r) {
    ProgramBuilder b(header.programs[r]);
    for (const auto& step : steps_[r]) {
      header.programs[r].ops.insert(header.programs[r].ops.end(), step.begin(), step.end());
      b.end_step();
    }
  }
  return header;
}

}  // namespace cclx::sched
