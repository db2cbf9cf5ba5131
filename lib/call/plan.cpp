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
    const sched::Schedule& cached = *e->plan->schedule;
    check_schedule(c, cached, s.rank);  // the op's commutativity is not in the key
    buffers = engine_buffers(c, cached, s.rank);
    if (e->plan->fits(buffers) && (!c.blocks || same_counts(e->counts, *c.blocks))) return *e;
  }
  if (!schedule) schedule = call::schedule(p, req(), s.rank);
  check_schedule(c, *schedule, s.rank);
  buffers = engine_buffers(c, *schedule, s.rank);
  engine::ExecOptions o = p.type->exec_options(p.self);
  o.handshake_bytes = k.handshake_bytes;
  Entry& e = insert(
      k, engine::make_plan(std::move(schedule), s.rank, s.nranks, buffers, c.kernel.elem_size, o));
  if (c.blocks) e.counts = counts_values(*c.blocks);
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

engine::Buffers engine_buffers(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  return coll::visit(c.collective, [&](auto d) {
    using D = decltype(d);
    engine::Buffers b;
    b.count = d.partition_count(c.count, s.nranks);
    if constexpr (coll::variable_counts<D>) {
      // Out's blocks (and Scratch's) by Out's counts; In's by its own where they differ
      // (alltoallv's sendcounts; in place the one buffer has Out's layout).
      b.out_counts = &c.blocks->out_counts;
      b.count = counts_total(c.blocks->out_counts);
      if (coll::separate_out_counts<D> && !c.in_place) b.in_counts = &c.blocks->in_counts;
    }
    const sched::Windows w = d.windows(s.nranks, rank, c.root, s.nblocks);
    b.in = w.in.present ? c.in : nullptr;
    b.out = w.out.present ? c.out : nullptr;
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
          offset = sched::Partition{b.count, s.nblocks}.block_offset(block);
        }
        return static_cast<std::byte*>(c.out) + offset * c.kernel.elem_size;
      };
      if (w.in.present) b.in = at(w.in.first);
      if (w.out.present) b.out = at(w.out.first - L.out_shift);
    }
    return b;
  });
}

}  // namespace cclx::call
