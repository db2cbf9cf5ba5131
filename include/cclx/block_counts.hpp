// Per-rank counts and displacements of the v-collectives (gatherv, scatterv, allgatherv,
// reduce_scatterv, alltoallv) as the caller passes them: any contiguous range of integers (int as
// in MPI, std::size_t, ...). They are read where they are, never copied at the API edge; what must
// outlive the call (the engine's block offsets, MPI's int arrays) is copied by whoever keeps it.
#pragma once

#include <climits>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <ranges>
#include <type_traits>
#include <vector>

namespace cclx {

/// A contiguous range of integers (not bool): per-rank counts or displacements.
template <class R>
concept CountRange = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
    std::integral<std::remove_cv_t<std::ranges::range_value_t<R>>> &&
    !std::same_as<std::remove_cv_t<std::ranges::range_value_t<R>>, bool>;

namespace detail {

/// A caller's integer array with its element type erased; valid during the call only.
struct IntArray {
  const void* data = nullptr;
  std::size_t size = 0;
  std::uint8_t width = 0;  ///< bytes per value (1, 2, 4 or 8); 0: not given
  bool is_signed = false;

  [[nodiscard]] bool given() const { return width != 0; }
  /// Value i. Unsigned values above LLONG_MAX read as LLONG_MAX (no buffer is that large, so the
  /// size checks reject them).
  [[nodiscard]] long long operator[](std::size_t i) const {
    const auto* p = static_cast<const unsigned char*>(data) + i * width;
    switch (width) {
      case 1:
        return is_signed ? static_cast<long long>(load<std::int8_t>(p)) : load<std::uint8_t>(p);
      case 2:
        return is_signed ? static_cast<long long>(load<std::int16_t>(p)) : load<std::uint16_t>(p);
      case 4:
        return is_signed ? static_cast<long long>(load<std::int32_t>(p)) : load<std::uint32_t>(p);
      default:
        if (is_signed) return load<std::int64_t>(p);
        const std::uint64_t u = load<std::uint64_t>(p);
        return u > static_cast<std::uint64_t>(LLONG_MAX) ? LLONG_MAX : static_cast<long long>(u);
    }
  }

 private:
  template <class T>
  static T load(const unsigned char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
};

template <CountRange R>
IntArray int_array(const R& r) {
  using T = std::remove_cv_t<std::ranges::range_value_t<R>>;
  static_assert(sizeof(T) == 1 || sizeof(T) == 2 || sizeof(T) == 4 || sizeof(T) == 8,
                "cclx: counts and displacements must be 8-, 16-, 32- or 64-bit integers");
  return {std::ranges::data(r), std::ranges::size(r), static_cast<std::uint8_t>(sizeof(T)),
          std::is_signed_v<T>};
}

/// The sum of the non-negative entries, saturating (negative ones are check_call's to report).
inline std::size_t counts_total(const IntArray& a) {
  std::size_t t = 0;
  for (std::size_t i = 0; i < a.size; ++i) {
    const long long v = a[i];
    if (v <= 0) continue;
    const auto u = static_cast<std::size_t>(v);
    t = u > SIZE_MAX - t ? SIZE_MAX : t + u;
  }
  return t;
}

/// What a v-collective call carries besides its buffers: the element counts of In's blocks and of
/// Out's blocks (the same array except alltoallv's, whose Out has recvcounts), and the MPI
/// displacements of In's and Out's n-block buffer where the caller gave them (not given: packed).
struct BlockCounts {
  IntArray in_counts, out_counts, in_displs, out_displs;
};

/// A copy of a call's counts and displacements that lives as long as a nonblocking or persistent
/// request (the caller's arrays need only outlive the call that passes them), with `view`
/// pointing into it.
class OwnedBlockCounts {
 public:
  explicit OwnedBlockCounts(const BlockCounts& b) {
    const IntArray* from[4] = {&b.in_counts, &b.out_counts, &b.in_displs, &b.out_displs};
    std::size_t total = 0;
    for (const IntArray* a : from) total += a->size;
    values_.resize(total);
    IntArray* to[4] = {&view.in_counts, &view.out_counts, &view.in_displs, &view.out_displs};
    std::size_t at = 0;
    for (int k = 0; k < 4; ++k) {
      for (std::size_t i = 0; i < from[k]->size; ++i) values_[at + i] = (*from[k])[i];
      if (from[k]->given()) *to[k] = {values_.data() + at, from[k]->size, 8, true};
      at += from[k]->size;
    }
  }
  OwnedBlockCounts(const OwnedBlockCounts&) = delete;
  OwnedBlockCounts& operator=(const OwnedBlockCounts&) = delete;
  BlockCounts view;

 private:
  std::vector<long long> values_;
};

}  // namespace detail

/// MPI-style displacements of a v-collective's n-block buffer: block b starts displs[b] elements
/// into it. Without them the blocks are packed (block b at counts[0] + ... + counts[b - 1]), which
/// every algorithm serves; other layouts need algo::Native. A view, like the counts: the range must
/// live until the call returns.
///   comm.allgatherv(in, out, counts, cclx::Displs(displs));
class Displs {
 public:
  template <CountRange R>
  /// Views `displs`: one displacement per block, in elements.
  explicit Displs(const R& displs) : a_(detail::int_array(displs)) {}
  /// The displacements with their element type erased, as the call carries them.
  [[nodiscard]] const detail::IntArray& array() const { return a_; }

 private:
  detail::IntArray a_;
};

}  // namespace cclx
