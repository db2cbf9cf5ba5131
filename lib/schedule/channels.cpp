#include "cclx/schedule/channels.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

bool splits_into_channels(Collective c) {
  return coll::visit(c, [](auto d) { return !d.blocks_are_ranks; }) && !coll::synchronizes(c);
}

namespace {

// Part j's copy of region g of a part of nb blocks, in a whole of `whole` blocks: the same blocks
// in the part's own range of the partition; a scratch region of copy c moves to copy c of the
// whole.
Region part_region(Region g, std::uint32_t j, std::uint32_t nb, std::uint32_t whole) {
  if (g.count == 0) return g;  // token() or an unused operand: moves nothing
  const std::uint32_t copy = g.buf == Buf::scratch ? g.first / nb : 0;
  g.first = copy * whole + j * nb + (g.first - copy * nb);
  return g;
}

// `part` on k contiguous ranges of k * nb blocks (nb: part's), part j's step s at the whole's step
// s + shift(j, s); in a step of the whole, part j's ops follow part j - 1's. shift must make
// s + shift(j, s) increase with s (every part keeps its steps' order) and not depend on the rank,
// so that both ends of a message place it in the same step and in the same order. Each rank's
// program is built in place, its part's program released once copied: a pipeline of many ranks
// and segments holds little more than its result.
template <class Shift>
Schedule replicate(Schedule part, std::uint32_t k, Shift shift) {
  const std::uint32_t nb = part.nblocks;
  std::vector<Program> from = std::move(part.programs);
  Schedule s = std::move(part);  // every field but the blocks and the programs is the part's
  s.nblocks = nb * k;
  s.programs.resize(from.size());
  const auto moved = [&](Region g, std::uint32_t j) { return part_region(g, j, nb, s.nblocks); };
  std::vector<std::uint32_t> fill;  // per step of the whole: where its next op goes
  for (std::size_t r = 0; r < from.size(); ++r) {
    Program& p = from[r];
    Program& q = s.programs[r];
    // Ops per step of the whole, then their offsets; parts are placed in order j = 0, 1, ...
    // (shift is increasing in s, so part j puts at most one of its steps in a step of the whole).
    fill.clear();
    for (std::uint32_t j = 0; j < k; ++j)
      for (std::size_t step = 0; step < p.num_steps(); ++step) {
        const std::size_t at = step + shift(j, step);
        if (fill.size() <= at) fill.resize(at + 1, 0);
        fill[at] += static_cast<std::uint32_t>(p.step_size(step));
      }
    q.step_begin.assign(1, 0);
    for (const std::uint32_t n : fill) q.step_begin.push_back(q.step_begin.back() + n);
    q.ops.resize(q.step_begin.back());
    std::copy(q.step_begin.begin(), q.step_begin.end() - 1, fill.begin());
    for (std::uint32_t j = 0; j < k; ++j)
      for (std::size_t step = 0; step < p.num_steps(); ++step) {
        std::uint32_t& next = fill[step + shift(j, step)];
        for (std::size_t i = 0; i < p.step_size(step); ++i) {
          Op op = p.step_data(step)[i];
          op.dst = moved(op.dst, j);
          op.src = moved(op.src, j);
          op.src2 = moved(op.src2, j);
          q.ops[next++] = op;
        }
      }
    p = Program{};
  }
  return s;
}

}  // namespace

std::uint32_t split_count(std::string_view algorithm, std::string_view param,
                          std::string_view parts, long long k, Collective c) {
  const std::string name(algorithm), key(param);
  if (k < 1 || k > max_channels)
    throw Error(name + ": " + key + " must be in [1, " + std::to_string(max_channels) + "], got " +
                std::to_string(k));
  if (k > 1 && !splits_into_channels(c))
    throw Error(name + ": " + key + "=" + std::to_string(k) + ": " + std::string(to_string(c)) +
                " does not split into " + std::string(parts) +
                " (only allreduce, reduce and bcast do)");
  return static_cast<std::uint32_t>(k);
}

Schedule split_channels(std::string_view algorithm, const ScheduleRequest& req, long long channels,
                        const std::function<Schedule(const ScheduleRequest&)>& generate) {
  const std::uint32_t k = split_count(algorithm, "channels", "channels", channels, req.collective);
  if (k == 1) return generate(req);
  ScheduleRequest part_req = channel_part_request(req, channels);
  part_req.segment_only = nullptr;  // each channel is the whole pipeline, built
  Schedule part = generate(part_req);
  const std::string params = part.params.empty() ? "channels=" + std::to_string(k)
                                                 : part.params + ",channels=" + std::to_string(k);
  Schedule s =
      replicate(std::move(part), k, [](std::uint32_t, std::size_t) { return std::size_t{0}; });
  s.params = params;
  return s;
}

PipelineLayout::PipelineLayout(const PipelineShape& shape, std::uint32_t segment_nblocks)
    : bounds_(shape.phase_bounds),
      segments_(std::max<std::uint32_t>(shape.segments, 1)),
      segment_nblocks_(segment_nblocks) {
  if (bounds_.size() < 2) bounds_ = {0, 0};  // one phase, which step() does not read
  // A phase of segment j waits for the segment's previous phase and for segment j - 1's same
  // phase (each phase one stage of the pipeline).
  const std::size_t phases = bounds_.size() - 1;
  const auto length = [&](std::size_t p) { return bounds_[p + 1] - bounds_[p]; };
  start_.resize(segments_ * phases);
  for (std::uint32_t j = 0; j < segments_; ++j)
    for (std::size_t p = 0; p < phases; ++p) {
      std::size_t at = j == 0 ? bounds_[p] : start_[(j - 1) * phases + p] + length(p);
      if (p > 0) at = std::max(at, start_[j * phases + p - 1] + length(p - 1));
      start_[j * phases + p] = at;
    }
}

std::size_t PipelineLayout::step(std::uint32_t j, std::size_t s) const {
  if (segments_ == 1) return s;
  const std::size_t phases = bounds_.size() - 1;
  std::size_t p = phases - 1;
  while (p > 0 && bounds_[p] > s) --p;
  return s + start_[j * phases + p] - bounds_[p];
}

Region PipelineLayout::region(Region g, std::uint32_t j) const {
  return part_region(g, j, segment_nblocks_, nblocks());
}

Schedule pipeline(Schedule segment, std::span<const std::size_t> phase_bounds,
                  std::uint32_t segments) {
  if (segments <= 1 || phase_bounds.size() < 2) return segment;
  const PipelineLayout layout({{phase_bounds.begin(), phase_bounds.end()}, segments},
                              segment.nblocks);
  const std::string params = segment.params.empty()
                                 ? "pipeline=" + std::to_string(segments)
                                 : segment.params + ",pipeline=" + std::to_string(segments);
  Schedule s = replicate(std::move(segment), segments, [&](std::uint32_t j, std::size_t step) {
    return layout.step(j, step) - step;
  });
  s.params = params;
  return s;
}

}  // namespace cclx::sched
