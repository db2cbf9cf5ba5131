// Shared helpers of the MPI tests: the algorithm list, input values, comparisons, cross-rank
// consistency checks and error expectations.
#pragma once

#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/cclx.hpp"

namespace cclx_test {

using Coll = cclx::sched::Collective;

// Marks progress for the stall watchdog (main.cpp) and names the position it reports.
void progress(std::string where);

// ---- the algorithms under test: adding one is one line ----
// Each entry: a label and a policy value. Which collectives a scheduled policy is asked to run
// comes from its generator's registry entry (cclx::algo::generators()); Native runs everything.
template <class F>
void for_each_algorithm(F&& f) {
  namespace algo = cclx::algo;
  f("native", algo::Native{});
  f("ring", algo::Ring{});
  f("ring/seg4KiB", algo::Ring{.segment_bytes = 4096});
  f("rhd", algo::RecursiveHalvingDoubling{});
  f("rhd_elimination", algo::RhdElimination{});
  f("recursive_doubling", algo::RecursiveDoubling{});
  f("binomial_tree", algo::BinomialTree{});
  f("pipelined_tree/seg64KiB", algo::PipelinedTree{.segment_bytes = 1 << 16});
  f("pipelined_tree/chain,seg256", algo::PipelinedTree{.segment_bytes = 256, .fanout = 1});
  f("dissemination", algo::Dissemination{});
  f("canonical_halving", algo::CanonicalHalving{});
  // On the machine's own host map here; on emulated hosts in test_hierarchical.cpp.
  f("multilane_ring", algo::MultiLane<algo::Ring>{});
  f("leader_recursive_doubling", algo::LeaderBased<algo::RecursiveDoubling>{});
}

template <class A>
inline constexpr bool is_native = std::is_same_v<A, cclx::algo::Native>;

// Collectives the registry says `name` serves; empty if it is not registered.
inline std::vector<Coll> registered_collectives(std::string_view name) {
  for (const auto& g : cclx::algo::generators())
    if (g.name == name) return g.collectives;
  return {};
}

// Whether policy A serves collective c (its compile-time declaration): serves<decltype(a)>(c) in
// `if constexpr`, since calling an algorithm on a collective it does not serve does not compile.
template <class A>
constexpr bool serves(Coll c) {
  return cclx::algo::serves<std::remove_cvref_t<A>>(c);
}
template <class A>
constexpr bool supports(const A&, Coll c) {
  return serves<A>(c);
}

// for_each_algorithm, restricted to the algorithms that serve C: a call of an algorithm on a
// collective it does not serve does not compile, so generic code selects at compile time.
template <Coll C, class F>
void for_each_algorithm_serving(F&& f) {
  for_each_algorithm([&](std::string_view name, const auto& a) {
    if constexpr (cclx::algo::serves<std::decay_t<decltype(a)>>(C)) f(name, a);
  });
}

// ---- element types ----
template <class T>
struct Tag {
  using type = T;
};

template <class F>
void for_each_type(F&& f) {
  f(Tag<float>{});
  f(Tag<double>{});
  f(Tag<std::int32_t>{});
  f(Tag<std::int64_t>{});
  f(Tag<std::uint8_t>{});
  f(Tag<std::uint64_t>{});  // with uint8: unsigned min/max on the narrowest and widest type
}

template <class T>
std::string type_name() {
  return std::string(cclx::to_string(cclx::data_type_of<T>()));
}

// Every builtin op defined for T.
template <class T, class F>
void for_each_op(F&& f) {
  f(cclx::sum);
  f(cclx::prod);
  f(cclx::min);
  f(cclx::max);
  if constexpr (std::is_integral_v<T>) {
    f(cclx::band);
    f(cclx::bor);
    f(cclx::bxor);
  }
}

// The large-count sizes of the reduction grids run this reduced set of (type, op).
template <class F>
void for_each_large_reduction(F&& f) {
  f(Tag<float>{}, cclx::sum);
  f(Tag<std::int32_t>{}, cclx::sum);
  f(Tag<double>{}, cclx::max);
}

// Floating results of sum/prod depend on the reduction order; everything else must be exact.
template <class T>
bool exact_vs_reference(cclx::OpId op) {
  return !std::is_floating_point_v<T> || op == cclx::OpId::min || op == cclx::OpId::max;
}

// The roots a rooted collective is checked at: the first, a middle and the last rank.
inline std::vector<int> all_roots(int n) {
  std::set<int> s{0, n / 2, n - 1};
  return {s.begin(), s.end()};
}

// A case's label: "base [algo, in place, root r]".
inline std::string with(const std::string& base, std::string_view algo, bool in_place,
                        int root = -1) {
  std::string s = base + " [" + std::string(algo) + (in_place ? ", in place" : ", out of place");
  if (root >= 0) s += ", root " + std::to_string(root);
  return s + "]";
}

// A nonblocking or persistent case's label: "<form> <coll> <type> <op> count=N [algo, in place,
// root r]".
inline std::string form_label(std::string_view form, std::string_view coll, std::string_view type,
                              std::string_view op, std::size_t count, std::string_view algo,
                              bool in_place, int root = -1) {
  std::ostringstream s;
  s << form << ' ' << coll << ' ' << type << ' ' << op << " count=" << count << " [" << algo
    << (in_place ? ", in place" : ", out of place");
  if (root >= 0) s << ", root " << root;
  s << ']';
  return s.str();
}

// src copied into dst from element `at` on.
template <class T>
void put(std::vector<T>& dst, std::size_t at, const std::vector<T>& src) {
  std::copy(src.begin(), src.end(), dst.begin() + static_cast<std::ptrdiff_t>(at));
}

// The persistent tests start each request kStarts times; start g sees element i's value of the
// one-shot grid at index i + g * kShift.
constexpr int kStarts = 3;
constexpr std::size_t kShift = 7919;

inline std::uint64_t mix(std::uint64_t x) {  // splitmix64
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Input of `rank` at element `i` for a reduction with `op`: for sum and prod small (no overflow
// for n <= 8 in any type), for unsigned min/max half of them in the upper half of the range,
// different on every rank (a missing or doubled contribution changes the result), and for floats
// not exactly representable sums (so the reduction order matters for the last bits).
template <class T>
T reduce_input(cclx::OpId op, int rank, std::size_t i) {
  using cclx::OpId;
  const auto r = static_cast<std::uint64_t>(rank);
  constexpr bool fp = std::is_floating_point_v<T>;
  constexpr bool sgn = std::is_signed_v<T>;
  switch (op) {
    case OpId::sum:
      if constexpr (fp)
        return static_cast<T>(0.1 * static_cast<double>(r + 1) +
                              0.001 * static_cast<double>(i % 997));
      else
        return static_cast<T>(1 + (i * 3 + r * 5) % 13 + r);  // 1..20: n*20 <= 160
    case OpId::prod:
      if constexpr (fp)
        return static_cast<T>(0.97 + 0.01 * static_cast<double>((i + 3 * r) % 7));
      else {
        // At most 2 factors of 2 among 8 consecutive ranks, signs from -1 where signed.
        T v = static_cast<T>((i + r) % 4 == 0 ? 2 : 1);
        if constexpr (sgn)
          if ((i * 3 + r) % 5 == 2) v = static_cast<T>(-v);
        return v;
      }
    case OpId::min:
    case OpId::max: {
      // Distinct on every rank (29 r mod 97). Unsigned values have the top bit set on every other
      // rank (alternating with i), so that a max/min computed as if signed is caught (MPICH 4.0.2,
      // docs/architecture.md).
      const auto k = static_cast<long long>((i * 13 + r * 29 + 5) % 97);
      if constexpr (fp)
        return static_cast<T>(static_cast<double>(k - 48) * 0.37);
      else if constexpr (sgn)
        return static_cast<T>(k - 48);
      else {
        constexpr T top = static_cast<T>(T(1) << (sizeof(T) * 8 - 1));
        return static_cast<T>(static_cast<T>(k + 1) | ((i + r) % 2 ? top : T(0)));
      }
    }
    case OpId::band:
    case OpId::bor: {
      // One bit per rank (distinct across up to `bits` consecutive ranks): band clears it, bor
      // sets it, so every rank's bit shows in the result.
      if constexpr (std::is_integral_v<T>) {
        using U = std::make_unsigned_t<T>;
        constexpr unsigned bits = sizeof(T) * 8;
        const U bit = static_cast<U>(U(1) << ((i * 3 + r) % bits));
        return static_cast<T>(op == OpId::band ? static_cast<U>(~bit) : bit);
      }
      break;
    }
    case OpId::bxor:
      if constexpr (std::is_integral_v<T>) return static_cast<T>(mix(r * 1000003 + i));
      break;
    case OpId::user:
      break;
  }
  return T{};
}

// a (+) b in T, as the builtin kernels compute it.
template <class T>
T apply_op(cclx::OpId op, T a, T b) {
  using cclx::OpId;
  switch (op) {
    case OpId::sum:
      return static_cast<T>(a + b);
    case OpId::prod:
      return static_cast<T>(a * b);
    case OpId::min:
      return b < a ? b : a;
    case OpId::max:
      return a < b ? b : a;
    default:
      if constexpr (std::is_integral_v<T>) {
        if (op == OpId::band) return static_cast<T>(a & b);
        if (op == OpId::bor) return static_cast<T>(a | b);
        if (op == OpId::bxor) return static_cast<T>(a ^ b);
      }
      return T{};
  }
}

// The reduction over ranks 0..n-1 of reduce_input(op, r, i), in rank order.
template <class T>
T expected_reduction(cclx::OpId op, int n, std::size_t i) {
  T acc = reduce_input<T>(op, 0, i);
  for (int r = 1; r < n; ++r) acc = apply_op(op, acc, reduce_input<T>(op, r, i));
  return acc;
}

// Payload of data-movement collectives: element `i` of what `rank` sends; distinct per rank.
template <class T>
T data_value(int rank, std::size_t i) {
  const auto r = static_cast<std::uint64_t>(rank);
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(static_cast<double>(r) * 1000.0 + static_cast<double>(i % 4093) * 0.25 +
                          0.1);
  else
    return static_cast<T>((r * 37 + i * 7 + 1) % 251);  // fits uint8, distinct ranks
}

// Elements [first, first + count) of a rank's data, as start g of a persistent request sees them
// (the one-shot grid's from index first + g * kShift; g = 0: the one-shot grid's): `rank`'s
// reduction input with `op`, their reduction over ranks 0..n-1, `rank`'s data-movement payload.
template <class T, class Value>
std::vector<T> shifted_values(std::size_t first, std::size_t count, int g, Value value) {
  std::vector<T> v(count);
  for (std::size_t i = 0; i < count; ++i)
    v[i] = value(first + i + static_cast<std::size_t>(g) * kShift);
  return v;
}
template <class T>
std::vector<T> reduce_inputs(cclx::OpId op, int rank, std::size_t first, std::size_t count,
                             int g = 0) {
  return shifted_values<T>(first, count, g,
                           [&](std::size_t i) { return reduce_input<T>(op, rank, i); });
}
template <class T>
std::vector<T> reduced(cclx::OpId op, int n, std::size_t first, std::size_t count, int g = 0) {
  return shifted_values<T>(first, count, g,
                           [&](std::size_t i) { return expected_reduction<T>(op, n, i); });
}
template <class T>
std::vector<T> payload(int rank, std::size_t first, std::size_t count, int g = 0) {
  return shifted_values<T>(first, count, g, [&](std::size_t i) { return data_value<T>(rank, i); });
}

// A value no algorithm should write (for "untouched" checks).
template <class T>
T sentinel() {
  if constexpr (std::is_floating_point_v<T>)
    return static_cast<T>(-12345.5);
  else if constexpr (std::is_signed_v<T>)
    return static_cast<T>(-101);
  else
    return static_cast<T>(0xEE);
}

template <class T>
auto printable(T v) {
  if constexpr (sizeof(T) == 1)
    return static_cast<int>(v);
  else
    return v;
}

// Tolerance of a floating result against MPI's (inputs are O(1), n <= 8).
template <class T>
double tolerance() {
  return std::is_same_v<T, float> ? 2e-5 : 1e-12;
}

// Element-wise comparison: exact (==, also bitwise for the values used here) or within relative
// tolerance. One assertion per buffer, naming the first mismatch.
template <class T>
void compare(const std::string& label, std::span<const T> got, std::span<const T> want,
             bool exact) {
  std::size_t bad = 0, first = 0;
  if (got.size() != want.size()) {
    CHECK_MESSAGE(got.size() == want.size(),
                  label << ": size " << got.size() << " vs " << want.size());
    return;
  }
  // Buffers of a correct result usually match the reference bit for bit: one memcmp then, the
  // element loop only to find and count the mismatches (or to apply the tolerance).
  const bool identical = got.empty() || std::memcmp(got.data(), want.data(), got.size_bytes()) == 0;
  for (std::size_t i = 0; !identical && i < got.size(); ++i) {
    bool ok;
    if (exact || !std::is_floating_point_v<T>) {
      ok = std::memcmp(&got[i], &want[i], sizeof(T)) == 0;
    } else {
      const double g = static_cast<double>(got[i]), w = static_cast<double>(want[i]);
      ok = std::fabs(g - w) <= tolerance<T>() * std::max(1.0, std::fabs(w));
    }
    if (!ok && bad++ == 0) first = i;
  }
  CHECK_MESSAGE(bad == 0, label << ": " << bad << " of " << got.size()
                                << " elements wrong; first at [" << first << "]: got "
                                << (bad ? printable(got[first]) : T{}) << ", want "
                                << (bad ? printable(want[first]) : T{}));
}

template <class T>
void compare(const std::string& label, const std::vector<T>& got, const std::vector<T>& want,
             bool exact) {
  compare<T>(label, std::span<const T>(got), std::span<const T>(want), exact);
}

// A 64-bit hash of `bytes` bytes that any changed bit changes (with overwhelming probability).
// Hashes eight bytes at a time in four independent lanes: the grids hash every result, up to
// 8 MiB each, and a byte-at-a-time hash was a tenth of their processor time.
std::uint64_t content_hash(const void* data, std::size_t bytes);

// Checks that results which must be identical on every rank are bitwise identical: collects a
// hash per result and compares them all in one MPI_Allreduce at flush(). Every rank must add the
// same number of entries in the same order.
class Consistency {
 public:
  explicit Consistency(MPI_Comm comm) : comm_(comm) {}
  ~Consistency() { flush(); }
  Consistency(const Consistency&) = delete;
  Consistency& operator=(const Consistency&) = delete;

  template <class T>
  void add(std::string label, std::span<const T> data) {
    labels_.push_back(std::move(label));
    hashes_.push_back(content_hash(data.data(), data.size_bytes()));
  }
  template <class T>
  void add(std::string label, const std::vector<T>& v) {
    add<T>(std::move(label), std::span<const T>(v));
  }

  void flush() {
    const std::size_t k = hashes_.size();
    std::vector<std::uint64_t> mine(2 * k), most(2 * k);
    for (std::size_t i = 0; i < k; ++i) {
      mine[i] = hashes_[i];
      mine[k + i] = ~hashes_[i];
    }
    std::uint64_t count = k, max_count = 0;
    MPI_Allreduce(&count, &max_count, 1, MPI_UINT64_T, MPI_MAX, comm_);
    CHECK_MESSAGE(max_count == count, "consistency checks out of step across ranks");
    if (max_count != count) return;  // cannot compare (and would not match up)
    if (k)
      MPI_Allreduce(mine.data(), most.data(), static_cast<int>(2 * k), MPI_UINT64_T, MPI_MAX,
                    comm_);
    std::size_t bad = 0;
    std::string first;
    for (std::size_t i = 0; i < k; ++i)
      if (most[i] != mine[i] || most[k + i] != mine[k + i])
        if (bad++ == 0) first = labels_[i];
    CHECK_MESSAGE(bad == 0, bad << " result(s) differ across ranks (not bitwise identical); first: "
                                << first);
    labels_.clear();
    hashes_.clear();
  }

 private:
  MPI_Comm comm_;
  std::vector<std::string> labels_;
  std::vector<std::uint64_t> hashes_;
};

// A callable taken by reference, without a template: expect_error and no_throw compile their
// checks once (support.cpp) instead of once per lambda (the grids pass over a thousand).
class Thunk {
 public:
  template <class F>
  requires(!std::same_as<std::decay_t<F>, Thunk> && std::invocable<F&>)
      Thunk(F&& f)  // NOLINT(google-explicit-constructor): call sites pass lambdas
      : obj_(static_cast<void*>(std::addressof(f))),
        call_([](void* p) { (void)(*static_cast<std::remove_reference_t<F>*>(p))(); }) {}
  void operator()() const { call_(obj_); }

 private:
  void* obj_;
  void (*call_)(void*);
};

// Runs `f`, expecting a cclx::Error on this rank whose message names this rank and contains
// every string in `needles`.
void expect_error(const std::string& label, int rank, Thunk f,
                  std::initializer_list<std::string> needles);

// Runs `f`, turning an unexpected exception into a failed assertion (so that ranks stay in
// step when every rank throws the same error). Returns false if it threw. The same error text
// (rank numbers stripped) fails only once per process, so one refused combination does not
// drown the log in thousands of copies.
bool no_throw(const std::string& label, Thunk f);

// Sets (or unsets, with nullptr) an environment variable for the scope, then restores it; cclx
// reads the environment again each time (cclx/settings.hpp reads it once). Communicators made in
// the scope read the new value; algo::Auto takes its settings at a communicator's first Auto call.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value);
  ~ScopedEnv();
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int n = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &n);
  return n;
}

}  // namespace cclx_test
