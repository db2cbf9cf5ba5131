#include "cclx/engine/plan.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/schedule/partition.hpp"

namespace cclx::engine {

using sched::Buf;
using sched::OpKind;
using sched::Region;

namespace {

std::uintptr_t address_of(const void* p) {
  return reinterpret_cast<std::uintptr_t>(p);
}

// The buffers in one address space where only their relative placement counts: Out, In and
// Scratch far apart, except that an aliased In lies at its fixed distance from Out. Overlap
// answers are those of any real call of the plan's shape (out-of-place buffers are disjoint:
// the argument check refuses overlapping ones; scratch is the library's own).
struct Space {
  std::uint64_t base[3];  // indexed by Buf
  Space(bool aliased, std::ptrdiff_t alias) {
    constexpr std::uint64_t far = std::uint64_t{1} << 60;
    base[static_cast<int>(Buf::out)] = 2 * far;
    base[static_cast<int>(Buf::in)] =
        aliased ? 2 * far + static_cast<std::uint64_t>(alias) : 1 * far;
    base[static_cast<int>(Buf::scratch)] = 3 * far;
  }
};

struct ByteRange {
  std::uint64_t lo, hi;
  [[nodiscard]] bool overlaps(const ByteRange& o) const { return lo < o.hi && o.lo < hi; }
};

}  // namespace

bool Plan::fits(const Buffers& b) const {
  const bool both = b.in && b.out;
  if (!aliased) return true;  // disjoint by the argument check, or only one buffer present
  return both && static_cast<std::ptrdiff_t>(address_of(b.in) - address_of(b.out)) == alias;
}

std::shared_ptr<const Plan> make_plan(std::shared_ptr<const sched::Schedule> schedule, int rank,
                                      int transport_size, const Buffers& buffers,
                                      std::size_t elem_size, const ExecOptions& options) {
  const sched::Schedule& s = *schedule;
  if (s.nranks != transport_size || static_cast<int>(s.programs.size()) != s.nranks)
    throw Error(rank, "schedule '" + s.algorithm + "' is for " + std::to_string(s.nranks) +
                          " ranks, communicator has " + std::to_string(transport_size));
  auto plan = std::make_shared<Plan>();
  Plan& p = *plan;
  p.rank = rank;
  p.count = buffers.count;
  p.elem_size = elem_size;
  // In and Out are aliased when an in-place call's descriptor places both in the user's buffer
  // (engine_buffers: both present); otherwise at most one of them is the user's buffer.
  p.aliased = s.in_place && buffers.in && buffers.out;
  p.alias =
      p.aliased ? static_cast<std::ptrdiff_t>(address_of(buffers.in) - address_of(buffers.out)) : 0;
  p.segment_bytes = options.segment_bytes;
  if (p.segment_bytes)
    p.segment_bytes = std::max(elem_size, p.segment_bytes / elem_size * elem_size);
  // A schedule where every rank hears from one peer only has nothing to interfere with.
  p.handshake_bytes = s.one_sender_per_receiver ? 0 : options.handshake_bytes;

  p.synchronizes = coll::synchronizes(s.collective);

  const sched::Program& prog = s.programs[static_cast<std::size_t>(rank)];
  // Out's and Scratch's partition, and In's (the same but for alltoallv); a v-collective's block
  // offsets come from its counts.
  sched::Partition part{buffers.count, s.nblocks}, in_part = part;
  std::vector<std::size_t> offsets;
  if (buffers.out_counts) {
    const std::size_t k = std::size_t{s.nblocks} + 1;
    const detail::IntArray* in = buffers.in_counts;
    if (buffers.out_counts->size + 1 != k || (in && in->size + 1 != k))
      throw Error(rank, "engine: block counts for " + std::to_string(buffers.out_counts->size) +
                            " blocks, schedule has " + std::to_string(s.nblocks));
    offsets.resize(in ? 2 * k : k);
    sched::prefix_offsets(*buffers.out_counts, s.nblocks, offsets.data());
    if (in) sched::prefix_offsets(*in, s.nblocks, offsets.data() + k);
    part = {offsets[k - 1], s.nblocks, offsets.data()};
    in_part = in ? sched::Partition{offsets.back(), s.nblocks, offsets.data() + k} : part;
  }
  const sched::Windows w = coll::windows_of(s.collective, s.nranks, rank, s.root, s.nblocks);
  // Element offsets of the first block of In's and Out's windows (where the buffers point).
  const std::size_t in_first = w.in.present && w.in.first ? in_part.block_offset(w.in.first) : 0;
  const std::size_t out_first = w.out.present && w.out.first ? part.block_offset(w.out.first) : 0;
  const std::size_t es = elem_size;

  // Byte ranges relative to each buffer: In and Out are addressed from their window's first
  // block, scratch copy j starts at j * count elements and mirrors the partition. Unused operands
  // (a copy's src2, ...) get values nothing reads.
  auto range = [&](const Region& g) {
    Plan::Range r;
    r.buf = g.buf;
    switch (g.buf) {
      case Buf::in:
        r.offset = (in_part.block_offset(g.first) - in_first) * es;
        r.bytes = in_part.region_size(g) * es;
        break;
      case Buf::out:
        r.offset = (part.block_offset(g.first) - out_first) * es;
        r.bytes = part.region_size(g) * es;
        break;
      case Buf::scratch: {
        const std::uint32_t copy = g.first / s.nblocks;
        const Region local{g.buf, g.first - copy * s.nblocks, g.count};
        r.offset = (copy * part.count + part.block_offset(local.first)) * es;
        r.bytes = part.region_size(local) * es;
        if (g.count) p.scratch_bytes = std::max(p.scratch_bytes, r.offset + r.bytes);
        break;
      }
    }
    return r;
  };

  const Space space(p.aliased, p.alias);
  auto bytes_of = [&](const Plan::Range& r) {
    const std::uint64_t lo = space.base[static_cast<int>(r.buf)] + r.offset;
    return ByteRange{lo, lo + r.bytes};
  };

  p.ops.reserve(prog.ops.size());
  for (std::size_t step = 0; step < prog.num_steps(); ++step) {
    const sched::Op* ops = prog.step_data(step);
    const std::size_t nops = prog.step_size(step);
    const std::size_t first = p.ops.size();
    for (std::size_t i = 0; i < nops; ++i) {
      Plan::Op o;
      o.kind = ops[i].kind;
      o.peer = ops[i].peer;
      o.dst = range(ops[i].dst);
      o.src = range(ops[i].src);
      o.src2 = range(ops[i].src2);
      p.ops.push_back(o);
    }
    Plan::Op* po = p.ops.data() + first;

    // Pipelining: a local that consumes exactly one receive's landing region may run segment by
    // segment as the data lands, if running it early cannot change the result: nothing else of
    // the step writes what it reads or reads/writes what it writes.
    for (std::size_t j = 0; j < nops; ++j) {
      const sched::Op& l = ops[j];
      if (l.is_transfer() || po[j].dst.bytes == 0) continue;
      std::int32_t recv = -1;
      for (std::size_t i = 0; i < nops && recv < 0; ++i)
        if (ops[i].kind == OpKind::recv && po[i].attached < 0 &&
            (ops[i].dst == l.src || (l.kind == OpKind::reduce && ops[i].dst == l.src2)))
          recv = static_cast<std::int32_t>(i);
      if (recv < 0) continue;
      const Plan::Range& landed = po[recv].dst;
      if (landed.bytes != po[j].dst.bytes) continue;
      const Plan::Op& lj = po[j];
      // A destination that partially overlaps an operand (in-place reduce_scatterv: the result
      // goes to the buffer's start, below its own block) is right only front to back in one
      // piece, as the step's end runs it.
      const auto shifted = [&](const Plan::Range& a) {
        const ByteRange x = bytes_of(lj.dst), y = bytes_of(a);
        return x.overlaps(y) && x.lo != y.lo;
      };
      if (shifted(lj.src) || (l.kind == OpKind::reduce && shifted(lj.src2))) continue;
      const Plan::Range& other =
          (l.kind == OpKind::reduce && ops[recv].dst == l.src) ? po[j].src2 : po[j].src;
      bool safe = true;
      for (std::size_t i = 0; i < nops && safe; ++i) {
        const Plan::Op& o = po[i];
        if (i == j || static_cast<std::int32_t>(i) == recv) continue;
        if (o.kind == OpKind::recv) {
          safe = !bytes_of(o.dst).overlaps(bytes_of(other)) &&
                 !bytes_of(o.dst).overlaps(bytes_of(lj.dst));
        } else if (o.kind == OpKind::send) {
          safe = !bytes_of(o.src).overlaps(bytes_of(lj.dst));
        } else if (i < j) {
          safe = !bytes_of(o.dst).overlaps(bytes_of(lj.src)) &&
                 !bytes_of(o.dst).overlaps(bytes_of(lj.dst)) &&
                 !bytes_of(lj.dst).overlaps(bytes_of(o.src)) &&
                 (o.kind != OpKind::reduce || !bytes_of(lj.dst).overlaps(bytes_of(o.src2))) &&
                 (l.kind != OpKind::reduce || !bytes_of(o.dst).overlaps(bytes_of(lj.src2)));
        }
      }
      if (safe) po[recv].attached = static_cast<std::int32_t>(j);
    }

    // Per peer, the bytes this step sends to it and receives from it: pairs that move at least
    // handshake_bytes one way do the receiver-ready handshake (both sides compute the same sums).
    std::size_t tokens = 0;
    if (p.handshake_bytes) {
      auto total = [&](OpKind kind, int peer) {
        std::size_t b = 0;
        for (std::size_t i = 0; i < nops; ++i)
          if (po[i].kind == kind && po[i].peer == peer)
            b += kind == OpKind::recv ? po[i].dst.bytes : po[i].src.bytes;
        return b;
      };
      const std::size_t held0 = p.held.size(), ready0 = p.ready.size();
      for (std::size_t i = 0; i < nops; ++i) {
        const Plan::Op& o = po[i];
        if (o.kind != OpKind::send && o.kind != OpKind::recv) continue;
        auto& list = o.kind == OpKind::send ? p.held : p.ready;
        const std::size_t from = o.kind == OpKind::send ? held0 : ready0;
        if (std::find(list.begin() + static_cast<std::ptrdiff_t>(from), list.end(), o.peer) ==
                list.end() &&
            total(o.kind, o.peer) >= p.handshake_bytes)
          list.push_back(o.peer);
      }
      for (std::size_t i = 0; i < nops; ++i)
        if (po[i].kind == OpKind::send)
          po[i].held = std::find(p.held.begin() + static_cast<std::ptrdiff_t>(held0), p.held.end(),
                                 po[i].peer) != p.held.end();
      tokens = p.held.size() - held0 + p.ready.size() - ready0;
    }
    p.held_begin.push_back(static_cast<std::uint32_t>(p.held.size()));
    p.ready_begin.push_back(static_cast<std::uint32_t>(p.ready.size()));
    p.step_begin.push_back(static_cast<std::uint32_t>(p.ops.size()));

    std::size_t posted = tokens;
    for (std::size_t i = 0; i < nops; ++i) {
      if (po[i].kind != OpKind::send && po[i].kind != OpKind::recv) continue;
      const std::size_t b = po[i].kind == OpKind::recv ? po[i].dst.bytes : po[i].src.bytes;
      if (b == 0)
        posted += p.synchronizes ? 1 : 0;  // an empty message (Execution::post_transfer)
      else
        posted += p.segment_bytes ? (b + p.segment_bytes - 1) / p.segment_bytes : 1;
    }
    p.max_posted = std::max(p.max_posted, posted);
    p.max_step_ops = std::max(p.max_step_ops, nops);
  }
  p.schedule = std::move(schedule);
  return plan;
}

}  // namespace cclx::engine
