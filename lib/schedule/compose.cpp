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
    : nranks_(nranks),
      nblocks_(nblocks),
      placed_(static_cast<std::size_t>(nranks)),
      length_(static_cast<std::size_t>(nranks), 0) {}

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
  // Each part block's whole blocks as one run {first, count} where they are adjacent and in order
  // (count 0 where not: moved() then takes them one by one).
  std::vector<std::pair<std::uint32_t, std::uint32_t>> run_of(e.blocks.size(), {0, 0});
  for (std::size_t b = 0; b < e.blocks.size(); ++b) {
    const auto& w = e.blocks[b];
    bool adjacent = !w.empty();
    for (std::size_t i = 0; i < w.size(); ++i) {
      fits = fits && w[i] < nblocks_;
      adjacent = adjacent && w[i] == w[0] + i;
    }
    if (adjacent) run_of[b] = {w[0], static_cast<std::uint32_t>(w.size())};
  }
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
  // The whole's regions of part region g, into `runs`: one per run of adjacent blocks (none when
  // its blocks cover none of the whole's).
  const auto moved = [&](Region g, std::vector<Region>& runs) {
    runs.clear();
    if (g.count == 0) {  // token() or an unused operand
      runs.push_back(g);
      return;
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
    const auto append = [&](std::uint32_t first, std::uint32_t count) {
      if (!runs.empty() && runs.back().end() == base + first)
        runs.back().count += count;
      else
        runs.push_back({g.buf, base + first, count});
    };
    for (std::uint32_t p = b; p < b + g.count; ++p) {
      if (run_of[p].second > 0) {
        append(run_of[p].first, run_of[p].second);
        continue;
      }
      for (std::uint32_t w : e.blocks[p]) append(w, 1);
    }
  };
  const auto same_counts = [](const std::vector<Region>& a, const std::vector<Region>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end(),
                      [](const Region& x, const Region& y) { return x.count == y.count; });
  };
  std::vector<Region> dst, src, src2;  // an op's operands in the whole, reused op after op
  for (std::size_t i = 0; i < e.ranks.size(); ++i) {
    const int rank = e.ranks[i];
    if (rank < 0 || rank >= nranks_) throw Error("embedding names rank " + std::to_string(rank));
    if (!wanted_.wants(rank)) continue;
    auto& placed = placed_[static_cast<std::size_t>(rank)];
    const Program& p = part.programs[i];
    auto& length = length_[static_cast<std::size_t>(rank)];
    length = std::max(length, phase_start_ + p.num_steps());
    for (std::size_t s = 0; s < p.num_steps(); ++s) {
      const auto step = static_cast<std::uint32_t>(phase_start_ + s);
      for (std::size_t k = 0; k < p.step_size(s); ++k) {
        const Op op = p.step_data(s)[k];
        if (op.is_transfer()) {
          const int peer = e.ranks[static_cast<std::size_t>(op.peer)];
          const bool send = op.kind == OpKind::send;
          moved(send ? op.src : op.dst, dst);
          for (const Region& g : dst)
            placed.emplace_back(
                step, send ? Op{OpKind::send, peer, {}, g, {}} : Op{OpKind::recv, peer, g, {}, {}});
          continue;
        }
        moved(op.dst, dst);
        moved(op.src, src);
        if (op.kind == OpKind::reduce)
          moved(op.src2, src2);
        else
          src2.assign(dst.size(), Region{});
        if (!same_counts(src, dst) || (op.kind == OpKind::reduce && !same_counts(src2, dst)))
          throw Error("embedding of '" + part.algorithm + "': a " +
                      std::string(to_string(op.kind)) +
                      " whose operands cover different runs of the whole's blocks");
        for (std::size_t j = 0; j < dst.size(); ++j)
          placed.emplace_back(step, Op{op.kind, op.peer, dst[j], src[j], src2[j]});
      }
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
  header.programs.assign(placed_.size(), Program{});
  for (std::size_t r = 0; r < placed_.size(); ++r) {
    // A counting sort by step: each step's ops in the order they were embedded.
    Program& p = header.programs[r];
    p.step_begin.assign(length_[r] + 1, 0);
    for (const auto& [step, op] : placed_[r]) ++p.step_begin[step + 1];
    for (std::size_t s = 0; s < length_[r]; ++s) p.step_begin[s + 1] += p.step_begin[s];
    p.ops.resize(placed_[r].size());
    std::vector<std::uint32_t> next(p.step_begin.begin(), p.step_begin.end() - 1);
    for (const auto& [step, op] : placed_[r]) p.ops[next[step]++] = op;
  }
  return header;
}

}  // namespace cclx::sched
