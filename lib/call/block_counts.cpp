// The check stage's part for the v-collectives' counts and displacements (call/check.hpp;
// descriptor.hpp states the rules, each descriptor its buffers).
#include <algorithm>
#include <limits>
#include <string>

#include "cclx/call/check.hpp"
#include "cclx/collectives/collectives.hpp"

namespace cclx::call {

using detail::BlockCounts;
using detail::IntArray;

namespace {

std::string str(long long v) {
  return std::to_string(v);
}

// The names a collective's arrays have in its signature.
struct Names {
  const char* in_counts;
  const char* out_counts;
  const char* in_displs;
  const char* out_displs;
};
constexpr Names one_array{"counts", "counts", "displs", "displs"};
constexpr Names send_recv{"sendcounts", "recvcounts", "sdispls", "rdispls"};

std::string check_array(const std::string& what, const char* name, const IntArray& a, int n) {
  if (a.size != static_cast<std::size_t>(n))
    return what + ": " + name + " has " + std::to_string(a.size) + " entries, expected " +
           std::to_string(n) + " (one per rank)";
  for (std::size_t i = 0; i < a.size; ++i)
    if (a[i] < 0) return what + ": " + name + "[" + std::to_string(i) + "] is " + str(a[i]);
  return {};
}

// counts[first] + ... over `w`, saturating (counts are non-negative).
std::size_t total(const IntArray& counts, sched::Window w) {
  std::size_t t = 0;
  for (std::uint32_t b = w.first; b < w.first + w.count; ++b) {
    const auto k = static_cast<std::size_t>(counts[b]);
    t = k > std::numeric_limits<std::size_t>::max() - t ? std::numeric_limits<std::size_t>::max()
                                                        : t + k;
  }
  return t;
}

// Which of a rank's buffers hold all n blocks (rather than the rank's own): the windows that grow
// with the block count (at n = 1 both kinds are one block).
struct AllBlocks {
  bool in, out;
};
template <class D>
AllBlocks all_blocks(D d, int n, int rank, int root) {
  const sched::Windows wide = d.windows(n, rank, root, static_cast<std::uint32_t>(n) + 1);
  return {wide.in.present && wide.in.count > 1, wide.out.present && wide.out.count > 1};
}

// One user buffer covering window `w` of a layout: the rank's own block holds exactly its count;
// all n blocks (`all`) are packed (exactly the sum) or at displacements (up to the end of the last
// non-empty block).
std::string check_buffer(const std::string& what, const char* buffer, std::size_t size,
                         sched::Window w, bool all, int n, const IntArray& counts,
                         const char* counts_name, const IntArray& displs, const char* displs_name) {
  const auto un = static_cast<std::uint32_t>(n);
  if (all && displs.given()) {
    std::size_t extent = 0;
    std::uint32_t last = 0;
    for (std::uint32_t b = 0; b < un; ++b) {
      if (counts[b] == 0) continue;
      const auto end = static_cast<std::size_t>(displs[b]) + static_cast<std::size_t>(counts[b]);
      if (end > extent) extent = end, last = b;
    }
    if (size < extent)
      return what + ": the " + buffer + " has " + std::to_string(size) + " elements but block " +
             std::to_string(last) + " (" + displs_name + "[" + std::to_string(last) + "] + " +
             counts_name + "[" + std::to_string(last) + "]) ends at element " +
             std::to_string(extent);
    return {};
  }
  const std::size_t need = total(counts, w);
  if (size == need) return {};
  if (!all)
    return what + ": the " + buffer + " has " + std::to_string(size) + " elements but " +
           counts_name + "[" + std::to_string(w.first) + "] (this rank's block) is " +
           std::to_string(need);
  return what + ": the " + buffer + " has " + std::to_string(size) + " elements but the " +
         counts_name + " sum to " + std::to_string(need);
}

// The union of the windows present (in place: the one buffer holds both).
sched::Window buffer_window(const sched::Windows& w) {
  if (!w.in.present) return w.out;
  if (!w.out.present) return w.in;
  const std::uint32_t first = std::min(w.in.first, w.out.first);
  const std::uint32_t end = std::max(w.in.first + w.in.count, w.out.first + w.out.count);
  return {true, first, end - first};
}

}  // namespace

std::string check_block_counts(const CollectiveCall& c, int rank, int n) {
  return coll::visit(c.collective, [&](auto d) -> std::string {
    using D = decltype(d);
    if constexpr (!coll::variable_counts<D>) {
      return {};
    } else {
      const std::string what(D::name);
      if (!c.blocks) return what + ": no counts given";
      const BlockCounts& bc = *c.blocks;
      constexpr bool two = coll::separate_out_counts<D>;
      constexpr Names names = two ? send_recv : one_array;
      // In place, alltoallv's one buffer has recvcounts' layout; sendcounts are not given.
      const bool own_in = two && !c.in_place;
      if (auto e = check_array(what, names.out_counts, bc.out_counts, n); !e.empty()) return e;
      if (own_in)
        if (auto e = check_array(what, names.in_counts, bc.in_counts, n); !e.empty()) return e;
      if (bc.out_displs.given())
        if (auto e = check_array(what, names.out_displs, bc.out_displs, n); !e.empty()) return e;
      if (own_in && bc.in_displs.given())
        if (auto e = check_array(what, names.in_displs, bc.in_displs, n); !e.empty()) return e;
      const auto r = static_cast<std::size_t>(rank);
      if (own_in && bc.in_counts[r] != bc.out_counts[r])
        return what + ": sendcounts[" + std::to_string(rank) + "] is " + str(bc.in_counts[r]) +
               " but recvcounts[" + std::to_string(rank) + "] is " + str(bc.out_counts[r]) +
               " (this rank's block to itself)";
      const sched::Windows w = d.windows(n, rank, c.root, static_cast<std::uint32_t>(n));
      const AllBlocks all = all_blocks(d, n, rank, c.root);
      if (c.in_place)
        return check_buffer(what, "in-place buffer", c.out_size, buffer_window(w),
                            all.in || all.out, n, bc.out_counts, names.out_counts, bc.out_displs,
                            names.out_displs);
      if (w.in.present)
        if (auto e = check_buffer(
                what, "input", c.in_size, w.in, all.in, n, own_in ? bc.in_counts : bc.out_counts,
                own_in ? names.in_counts : names.out_counts, own_in ? bc.in_displs : bc.out_displs,
                own_in ? names.in_displs : names.out_displs);
            !e.empty())
          return e;
      if (w.out.present)
        return check_buffer(what, "output", c.out_size, w.out, all.out, n, bc.out_counts,
                            names.out_counts, bc.out_displs, names.out_displs);
      return {};
    }
  });
}

std::string check_packed(const CollectiveCall& c, int rank, int n) {
  if (!c.blocks) return {};
  return coll::visit(c.collective, [&](auto d) -> std::string {
    using D = decltype(d);
    constexpr Names names = coll::separate_out_counts<D> ? send_recv : one_array;
    const BlockCounts& bc = *c.blocks;
    const AllBlocks all = all_blocks(d, n, rank, c.root);
    const auto un = static_cast<std::uint32_t>(n);
    // Displacements matter for the buffers that hold all n blocks on this rank.
    auto packed = [&](const IntArray& counts, const IntArray& displs, const char* displs_name,
                      bool applies) -> std::string {
      if (!applies || !displs.given()) return {};
      long long at = 0;
      for (std::uint32_t b = 0; b < un; ++b) {
        if (counts[b] != 0 && displs[b] != at)
          return std::string(D::name) + ": " + displs_name + "[" + std::to_string(b) + "] is " +
                 str(displs[b]) + " but the packed layout puts block " + std::to_string(b) +
                 " at " + str(at);
        at += counts[b];
      }
      return {};
    };
    const bool own_in = coll::separate_out_counts<D> && !c.in_place;
    std::string e = packed(bc.out_counts, bc.out_displs, names.out_displs,
                           c.in_place ? all.in || all.out : all.out);
    if (e.empty() && !c.in_place)
      e = packed(own_in ? bc.in_counts : bc.out_counts, own_in ? bc.in_displs : bc.out_displs,
                 own_in ? names.in_displs : names.out_displs, all.in);
    if (!e.empty()) e += "; non-packed displacements need algo::Native";
    return e;
  });
}

}  // namespace cclx::call
