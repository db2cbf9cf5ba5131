#include "cclx/schedule/channels.hpp"

#include <string>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"

namespace cclx::sched {

bool splits_into_channels(Collective c) {
  return coll::visit(c, [](auto d) { return !d.blocks_are_ranks; }) && !coll::synchronizes(c);
}

Schedule split_channels(std::string_view algorithm, const ScheduleRequest& req, long long channels,
                        const std::function<Schedule(const ScheduleRequest&)>& generate) {
  if (channels < 1 || channels > max_channels)
    throw Error(std::string(algorithm) + ": channels must be in [1, " +
                std::to_string(max_channels) + "], got " + std::to_string(channels));
  if (channels == 1) return generate(req);
  if (!splits_into_channels(req.collective))
    throw Error(std::string(algorithm) + ": channels=" + std::to_string(channels) + ": " +
                std::string(to_string(req.collective)) +
                " does not split into channels (only allreduce, reduce and bcast do)");
  const auto k = static_cast<std::uint32_t>(channels);
  Schedule part = generate(channel_part_request(req, channels));
  const std::uint32_t nb = part.nblocks;

  Schedule s = part;  // every field but the blocks and the programs is the part's
  s.params = part.params.empty() ? "channels=" + std::to_string(k)
                                 : part.params + ",channels=" + std::to_string(k);
  s.nblocks = nb * k;
  // Part j's region: the same blocks in its own range of the partition; a scratch region of copy c
  // moves to copy c of the split partition.
  const auto moved = [&](Region g, std::uint32_t j) {
    if (g.count == 0) return g;  // token() or an unused operand: moves nothing
    const std::uint32_t copy = g.buf == Buf::scratch ? g.first / nb : 0;
    g.first = copy * s.nblocks + j * nb + (g.first - copy * nb);
    return g;
  };
  for (std::size_t r = 0; r < part.programs.size(); ++r) {
    const Program& p = part.programs[r];
    Program& q = s.programs[r];
    q.ops.clear();
    q.ops.reserve(p.ops.size() * k);
    q.step_begin.assign(1, 0);
    for (std::size_t step = 0; step < p.num_steps(); ++step) {
      for (std::uint32_t j = 0; j < k; ++j)
        for (std::size_t i = 0; i < p.step_size(step); ++i) {
          Op op = p.step_data(step)[i];
          op.dst = moved(op.dst, j);
          op.src = moved(op.src, j);
          op.src2 = moved(op.src2, j);
          q.ops.push_back(op);
        }
      q.step_begin.push_back(static_cast<std::uint32_t>(q.ops.size()));
    }
  }
  return s;
}

}  // namespace cclx::sched
