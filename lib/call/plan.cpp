// The plan stage of the call pipeline (call/plan.hpp).
#include "cclx/call/plan.hpp"

#include <algorithm>
#include <cstring>
#include <utility>

#include "cclx/call/check.hpp"
#include "cclx/call/schedule.hpp"
#include "cclx/collectives/collectives.hpp"

namespace cclx::call {

using detail::BlockCounts;
using detail::counts_total;
using detail::IntArray;

namespace {

// The counts a v-collective's plan depends on, Out's then In's, as the cache compares them: a
// hash for the key, and the values for an exact check on a hit.
std::uint64_t counts_hash(const BlockCounts& b) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a over the values
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i) {
      h ^= static_cast<std::uint64_t>((*a)[i]) + 0x9e3779b97f4a7c15ull * (a == &b.in_counts);
      h *= 1099511628211ull;
    }
  return h;
}
bool same_counts(const std::vector<long long>& kept, const BlockCounts& b) {
  if (kept.size() != b.out_counts.size + b.in_counts.size) return false;
  std::size_t k = 0;
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i)
      if (kept[k++] != (*a)[i]) return false;
  return true;
}
std::vector<long long> counts_values(const BlockCounts& b) {
  std::vector<long long> v;
  v.reserve(b.out_counts.size + b.in_counts.size);
  for (const IntArray* a : {&b.out_counts, &b.in_counts})
    for (std::size_t i = 0; i < a->size; ++i) v.push_back((*a)[i]);
  return v;
}

}  // namespace

Plans::Entry& Plans::plan(const CollectiveCall& c, const Policy& p, const Site& s,
                          engine::Buffers& buffers) {
  PlanKey k;
  k.count = c.count;
  k.elem_size = c.kernel.elem_size;
  k.handshake_bytes = s.handshake_bytes;
  k.root = c.root;
  k.collective = c.collective;
  k.in_place = c.in_place;
  k.order_sensitive = c.has_op && !c.kernel.commutative;
  if (c.blocks) k.counts_hash = counts_hash(*c.blocks);
  std::shared_ptr<const sched::Schedule> schedule;
  const auto req = [&] { return request(c, s.rank, s.nranks, s.hosts); };
  if (p.type->keyed_by_bytes) {
    k.policy = p.type;
    std::memcpy(k.params.data(), p.self, p.type->key_size);
  } else {
    schedule = call::schedule(p, req(), s.rank);
    k.policy = schedule.get();
    const std::size_t segment = p.type->exec_options(p.self).segment_bytes;
    std::memcpy(k.params.data(), &segment, sizeof segment);
  }
  if (Entry* e = find(k)) {
    // The key fixes the rest; a v-collective's displacements and exact counts are not in it.
    if (c.blocks) check_schedule(c, *e->plan->schedule, s.rank);
    if (!c.blocks || same_counts(e->counts, *c.blocks)) {
      buffers = buffers_at(e->layout, c);
      return *e;
    }
  }
  if (!schedule) schedule = call::schedule(p, req(), s.rank);
  check_schedule(c, *schedule, s.rank);
  const BufferLayout layout = buffer_layout(c, *schedule, s.rank);
  buffers = buffers_at(layout, c);
  engine::ExecOptions o = p.type->exec_options(p.self);
  o.handshake_bytes = k.handshake_bytes;
  Entry& e = insert(
      k, engine::make_plan(std::move(schedule), s.rank, s.nranks, buffers, c.kernel.elem_size, o));
  if (c.blocks) e.counts = counts_values(*c.blocks);
  e.layout = layout;
  return e;
}

bool operator==(const PlanKey&, const PlanKey&) = default;

Plans::Entry* Plans::find(const PlanKey& k) {
  for (std::size_t i = 0; i < entries_.size(); ++i)
    if (entries_[i]->key == k) {
      const auto at = entries_.begin() + static_cast<std::ptrdiff_t>(i);
      if (i) std::rotate(entries_.begin(), at, at + 1);
      return entries_.front().get();
    }
  return nullptr;
}

Plans::Entry& Plans::insert(const PlanKey& k, std::shared_ptr<const engine::Plan> plan) {
  Entry* e = find(k);
  if (!e) {
    if (entries_.size() == capacity) entries_.pop_back();
    entries_.insert(entries_.begin(), std::make_unique<Entry>());
    e = entries_.front().get();
    e->key = k;
  }
  e->plan = std::move(plan);
  e->idle.reset();
  return *e;
}

BufferLayout buffer_layout(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  using Base = BufferLayout::Base;
  return coll::visit(c.collective, [&](auto d) {
    using D = decltype(d);
    BufferLayout l;
    l.count = d.partition_count(c.count, s.nranks);
    if constexpr (coll::variable_counts<D>) {
      // Out's blocks (and Scratch's) by Out's counts; In's by its own where they differ
      // (alltoallv's sendcounts; in place the one buffer has Out's layout).
      l.out_counts = true;
      l.count = counts_total(c.blocks->out_counts);
      l.in_counts = coll::separate_out_counts<D> && !c.in_place;
    }
    const sched::Windows w = d.windows(s.nranks, rank, c.root, s.nblocks);
    if (w.in.present) l.in = Base::in;
    if (w.out.present) l.out = Base::out;
    const coll::InPlaceLayout L = d.in_place(rank, c.root);
    if (c.in_place && L.aliased) {
      // One user buffer U: In block i at U's block i, Out block i at U's block i - out_shift.
      // The engine addresses a buffer from its window's first block.
      const auto at = [&](std::uint32_t block) {
        std::size_t offset = 0;
        if constexpr (coll::variable_counts<D>) {
          for (std::uint32_t k = 0; k < block; ++k)
            offset += static_cast<std::size_t>(c.blocks->out_counts[k]);
        } else {
          offset = sched::Partition{l.count, s.nblocks}.block_offset(block);
        }
        return offset * c.kernel.elem_size;
      };
      if (w.in.present) {
        l.in = Base::out;
        l.in_offset = at(w.in.first);
      }
      if (w.out.present) l.out_offset = at(w.out.first - L.out_shift);
    }
    return l;
  });
}

engine::Buffers buffers_at(const BufferLayout& l, const CollectiveCall& c) {
  using Base = BufferLayout::Base;
  const auto address = [&](Base base, std::size_t offset) -> std::byte* {
    if (base == Base::none) return nullptr;
    void* p = base == Base::in ? const_cast<void*>(c.in) : c.out;
    return static_cast<std::byte*>(p) + offset;
  };
  engine::Buffers b;
  b.count = l.count;
  b.in = address(l.in, l.in_offset);
  b.out = address(l.out, l.out_offset);
  if (l.out_counts) b.out_counts = &c.blocks->out_counts;
  if (l.in_counts) b.in_counts = &c.blocks->in_counts;
  return b;
}

engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  return buffers_at(buffer_layout(c, s, rank), c);
}

}  // namespace cclx::call
