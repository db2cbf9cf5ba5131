#include "cclx/detail/call_support.hpp"

#include <algorithm>
#include <cstdint>

#include "cclx/algo/registry.hpp"
#include "cclx/collectives/collectives.hpp"
#include "cclx/error.hpp"
#include "cclx/settings.hpp"

namespace cclx::detail {

std::string order_refusal(std::string_view algorithm, const CollectiveCall& c, int nranks) {
  std::string keep;
  for (const auto& g : algo::generators())
    if (g.reduces_canonically(c.collective, nranks)) keep += (keep.empty() ? "" : ", ") + g.name;
  const std::string op = c.kernel.op == OpId::user ? std::string("a user-defined op")
                                                   : std::string(to_string(c.kernel.op));
  return std::string(sched::to_string(c.collective)) + " of " + std::string(to_string(c.type)) +
         " " + op + " in reproducible mode (CCLX_REPRODUCIBLE): '" + std::string(algorithm) +
         "' does not combine in the canonical order on " + std::to_string(nranks) +
         " ranks; use algo::Auto or one of: " + keep + " (docs/reproducibility.md)";
}

bool reproducible_setting(int rank) {
  try {
    return settings::get<bool>(settings::Id::reproducible);
  } catch (const Error& e) {
    throw e.on_rank(rank);
  }
}

std::string check_call(const CollectiveCall& c, int rank, int n) {
  // Strings are built only on failure: this runs on every call, including 8-byte native ones.
  return coll::visit(c.collective, [&](auto d) -> std::string {
    const auto what = [&] { return std::string(d.name); };
    if (d.rooted && (c.root < 0 || c.root >= n))
      return what() + ": invalid root " + std::to_string(c.root) + " (communicator has " +
             std::to_string(n) + " ranks)";
    const sched::Windows w = d.windows(n, rank, c.root, 1);
    const bool uses_out = w.out.present;  // e.g. reduce's output matters on the root only
    if (c.in_size && !c.in)
      return what() + ": input is null but has " + std::to_string(c.in_size) + " elements";
    if (uses_out && c.out_size && !c.out)
      return what() + ": output is null but has " + std::to_string(c.out_size) + " elements";
    if constexpr (coll::variable_counts<decltype(d)>) {
      if (std::string e = check_block_counts(c, rank, n); !e.empty()) return e;
    } else if (std::string e = d.check_sizes(c.in_size, c.out_size, c.in_place, rank == c.root, n);
               !e.empty()) {
      return e;
    }
    if (!c.in_place && uses_out && c.in && c.out) {
      const auto* a = static_cast<const std::byte*>(c.in);
      const auto* b = static_cast<const std::byte*>(c.out);
      const std::size_t es = c.kernel.elem_size;
      if (a < b + c.out_size * es && b < a + c.in_size * es)
        return what() +
               ": input and output buffers overlap (use the one-buffer overload for an "
               "in-place call)";
    }
    return {};
  });
}

sched::ScheduleRequest schedule_request(const CollectiveCall& c, int rank, int n) {
  sched::ScheduleRequest r;
  r.collective = c.collective;
  r.nranks = n;
  r.root = c.root;
  r.in_place = c.in_place;
  r.bytes = coll::partition_count(c.collective, c.count, n) * c.kernel.elem_size;
  r.only_rank = rank;
  return r;
}

void check_schedule(const CollectiveCall& c, const sched::Schedule& s, int rank) {
  if (c.has_op && !c.kernel.commutative && !s.preserves_order)
    throw Error(rank, "algorithm '" + s.algorithm +
                          "' reorders contributions and cannot honor a non-commutative op; use "
                          "an algorithm that keeps rank order (" +
                          algo::order_preserving_algorithms(c.collective) + ")");
  if (static_cast<int>(s.programs.size()) <= rank)
    throw Error(rank, "algorithm '" + s.algorithm + "' produced no program for this rank");
  if (c.blocks)
    if (std::string e = check_packed(c, rank, s.nranks); !e.empty()) throw Error(rank, e);
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

}  // namespace cclx::detail
