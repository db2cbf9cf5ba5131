// The correctness grid of the v-collectives (per-rank counts): gatherv, scatterv, allgatherv,
// reduce_scatterv, alltoallv; every algorithm serving each (for_each_algorithm_serving) x element
// types x ops (reductions) x in place / out of place x roots {0, n/2, n-1} x count patterns.
//
// Count patterns (one entry per rank, the same array on every rank; alltoallv: a matrix m where
// rank i sends m[i][j] elements to rank j):
//   mod5    counts[r] = (r * 7 + 3) % 5: uneven, with zeros from n = 2 on (alltoallv:
//           (i * 7 + j * 3 + 3) % 5; in place the symmetric (i * j + i + j + 3) % 5)
//   zero    every count 0 (reduce_scatterv: with sum only)
//   ramp    counts[r] = r (rank 0's block is empty; alltoallv: i + 2j, in place i + j)
//   large   about 100k elements in all, uneven, one empty block (a reduced set of types and ops)
// Counts are passed as std::vector<int> (as MPI has them), std::vector<std::size_t> for the large
// pattern, and std::array for the displacement test.
// Checks as in test_grid.cpp: reductions equal a locally computed reference (exact for integers
// and min/max, within tolerance for floating sum/prod), data exactly; results that are the same on
// every rank (allgatherv) bitwise identical across ranks; out-of-place inputs untouched; what a
// rank must not write (a non-root's buffers, gaps between displaced blocks) keeps its contents.
#include <doctest/doctest.h>

#include <array>
#include <numeric>
#include <set>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

enum class Pattern { mod5, zero, ramp, large };
constexpr Pattern small_patterns[] = {Pattern::mod5, Pattern::zero, Pattern::ramp};

const char* name(Pattern p) {
  switch (p) {
    case Pattern::mod5:
      return "mod5";
    case Pattern::zero:
      return "zero";
    case Pattern::ramp:
      return "ramp";
    case Pattern::large:
      return "large";
  }
  return "?";
}

// The counts array of pattern p on n ranks.
std::vector<int> counts_of(Pattern p, int n) {
  std::vector<int> c(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) {
    int& k = c[static_cast<std::size_t>(r)];
    switch (p) {
      case Pattern::mod5:
        k = (r * 7 + 3) % 5;
        break;
      case Pattern::zero:
        k = 0;
        break;
      case Pattern::ramp:
        k = r;
        break;
      case Pattern::large:
        // Weights 1..7, rank n/2 empty, about 100000 elements in all.
        k = r == n / 2 && n > 1 ? 0 : (1 + (r * 5 + 2) % 7) * (100000 / (4 * n));
        break;
    }
  }
  return c;
}

// Elements rank i sends to rank j under pattern p (alltoallv); symmetric for in-place calls.
int matrix_of(Pattern p, int n, int i, int j, bool in_place) {
  switch (p) {
    case Pattern::mod5:
      return in_place ? (i * j + i + j + 3) % 5 : (i * 7 + j * 3 + 3) % 5;
    case Pattern::zero:
      return 0;
    case Pattern::ramp:
      return in_place ? i + j : i + 2 * j;
    case Pattern::large:
      return in_place ? ((i * j + i + j) % 3 == 0 ? 0 : 1 + (i + j) % 7) * (100000 / (4 * n * n))
                      : ((i + j) % 3 == 0 ? 0 : 1 + (i * 3 + j * 5) % 7) * (100000 / (4 * n * n));
  }
  return 0;
}

std::vector<std::size_t> prefix(const std::vector<int>& c) {
  std::vector<std::size_t> o(c.size() + 1, 0);
  for (std::size_t b = 0; b < c.size(); ++b) o[b + 1] = o[b] + static_cast<std::size_t>(c[b]);
  return o;
}

// Rank s's block under counts c: element j is data_value(s, j).
template <class T>
std::vector<T> block_of(int s, std::size_t count) {
  std::vector<T> v(count);
  for (std::size_t j = 0; j < count; ++j) v[j] = data_value<T>(s, j);
  return v;
}

// All ranks' blocks, packed.
template <class T>
std::vector<T> all_blocks(const std::vector<int>& c) {
  std::vector<T> v;
  for (std::size_t s = 0; s < c.size(); ++s) {
    const auto b = block_of<T>(static_cast<int>(s), static_cast<std::size_t>(c[s]));
    v.insert(v.end(), b.begin(), b.end());
  }
  return v;
}

// The v-collectives' grid passes the counts as std::vector<int>, or std::vector<std::size_t>
// for the large pattern (both are accepted).
template <class F>
void with_counts(Pattern p, int n, F&& f) {
  const std::vector<int> c = counts_of(p, n);
  if (p == Pattern::large)
    f(c, std::vector<std::size_t>(c.begin(), c.end()));
  else
    f(c, c);
}

// ---- gatherv / scatterv ----

template <class T>
void check_gatherv(Comm& comm, Pattern p, int root) {
  const int n = comm.size(), r = comm.rank();
  with_counts(p, n, [&](const std::vector<int>& c, const auto& counts) {
    const auto o = prefix(c);
    const auto total = o.back();
    const auto mine = block_of<T>(r, static_cast<std::size_t>(c[static_cast<std::size_t>(r)]));
    const auto want = all_blocks<T>(c);
    const std::string base = "gatherv " + type_name<T>() + " counts=" + name(p);
    for_each_algorithm_serving<Coll::gatherv>([&](std::string_view algo, const auto& a) {
      for (bool in_place : {false, true}) {
        const std::string l = with(base, algo, in_place, root);
        progress(l);
        if (in_place) {
          // The root's buffer holds the n blocks with its own at its place; the others' is theirs.
          std::vector<T> buf = mine;
          if (r == root) {
            buf.assign(total, sentinel<T>());
            std::copy(mine.begin(), mine.end(), buf.begin() + static_cast<std::ptrdiff_t>(o[r]));
          }
          if (!no_throw(l, [&] { comm.gatherv(buf, counts, root, a); })) continue;
          compare(l, buf, r == root ? want : mine, true);
        } else {
          const std::vector<T> in = mine;
          std::vector<T> out(r == root ? total : 0, sentinel<T>());
          if (!no_throw(l, [&] { comm.gatherv(in, out, counts, root, a); })) continue;
          compare(l + " input untouched", in, mine, true);
          if (r == root) compare(l, out, want, true);
        }
      }
    });
  });
}

template <class T>
void check_scatterv(Comm& comm, Pattern p, int root) {
  const int n = comm.size(), r = comm.rank();
  with_counts(p, n, [&](const std::vector<int>& c, const auto& counts) {
    const auto o = prefix(c);
    // The root's input: element k is data_value(root, k); rank r gets [o[r], o[r + 1]).
    const auto all = block_of<T>(root, o.back());
    const std::vector<T> want(all.begin() + static_cast<std::ptrdiff_t>(o[r]),
                              all.begin() + static_cast<std::ptrdiff_t>(o[r + 1]));
    const std::string base = "scatterv " + type_name<T>() + " counts=" + name(p);
    for_each_algorithm_serving<Coll::scatterv>([&](std::string_view algo, const auto& a) {
      for (bool in_place : {false, true}) {
        const std::string l = with(base, algo, in_place, root);
        progress(l);
        if (in_place) {
          // The root's buffer holds all n blocks (and keeps them); the others' gets theirs.
          std::vector<T> buf = r == root ? all : std::vector<T>(want.size(), sentinel<T>());
          if (!no_throw(l, [&] { comm.scatterv(buf, counts, root, a); })) continue;
          compare(l, buf, r == root ? all : want, true);
        } else {
          const std::vector<T> in = r == root ? all : std::vector<T>{};
          std::vector<T> out(want.size(), sentinel<T>());
          if (!no_throw(l, [&] { comm.scatterv(in, out, counts, root, a); })) continue;
          if (r == root) compare(l + " input untouched", in, all, true);
          compare(l, out, want, true);
        }
      }
    });
  });
}

// ---- allgatherv ----

template <class T>
void check_allgatherv(Comm& comm, Consistency& cons, Pattern p) {
  const int n = comm.size(), r = comm.rank();
  with_counts(p, n, [&](const std::vector<int>& c, const auto& counts) {
    const auto o = prefix(c);
    const auto mine = block_of<T>(r, static_cast<std::size_t>(c[static_cast<std::size_t>(r)]));
    const auto want = all_blocks<T>(c);
    const std::string base = "allgatherv " + type_name<T>() + " counts=" + name(p);
    for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view algo, const auto& a) {
      for (bool in_place : {false, true}) {
        const std::string l = with(base, algo, in_place);
        progress(l);
        std::vector<T> out(o.back(), sentinel<T>());
        if (in_place) {
          std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(o[r]));
          if (!no_throw(l, [&] { comm.allgatherv(out, counts, a); })) continue;
        } else {
          const std::vector<T> in = mine;
          if (!no_throw(l, [&] { comm.allgatherv(in, out, counts, a); })) continue;
          compare(l + " input untouched", in, mine, true);
        }
        compare(l, out, want, true);
        cons.add(l, out);
      }
    });
  });
}

// ---- reduce_scatterv ----

template <class T, class Op>
void check_reduce_scatterv(Comm& comm, const Op& op, Pattern p) {
  const int n = comm.size(), r = comm.rank();
  with_counts(p, n, [&](const std::vector<int>& c, const auto& counts) {
    const auto o = prefix(c);
    const std::size_t total = o.back(), own = static_cast<std::size_t>(c[r]);
    std::vector<T> input(total), ref(own);
    for (std::size_t i = 0; i < total; ++i) input[i] = reduce_input<T>(Op::id, r, i);
    for (std::size_t i = 0; i < own; ++i) ref[i] = expected_reduction<T>(Op::id, n, o[r] + i);
    const std::string base = "reduce_scatterv " + type_name<T>() + ' ' +
                             std::string(cclx::to_string(Op::id)) + " counts=" + name(p);
    for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view algo, const auto& a) {
      for (bool in_place : {false, true}) {
        const std::string l = with(base, algo, in_place);
        progress(l);
        if (in_place) {
          std::vector<T> buf = input;
          if (!no_throw(l, [&] { comm.reduce_scatterv(buf, counts, op, a); })) continue;
          buf.resize(own);  // the result is the buffer's first counts[r] elements
          compare(l, buf, ref, exact_vs_reference<T>(Op::id));
        } else {
          std::vector<T> out(own, sentinel<T>());
          const std::vector<T> in = input;
          if (!no_throw(l, [&] { comm.reduce_scatterv(in, out, counts, op, a); })) continue;
          compare(l + " input untouched", in, input, true);
          compare(l, out, ref, exact_vs_reference<T>(Op::id));
        }
      }
    });
  });
}

// ---- alltoallv ----

template <class T>
void check_alltoallv(Comm& comm, Pattern p) {
  const int n = comm.size(), r = comm.rank();
  for (bool in_place : {false, true}) {
    // m(i, j): elements rank i sends to rank j. Block j of rank i's input: data_value(i, k) for k
    // from i's send offset of j on.
    auto m = [&](int i, int j) { return matrix_of(p, n, i, j, in_place); };
    std::vector<int> sendcounts(static_cast<std::size_t>(n)), recvcounts(sendcounts.size());
    for (int j = 0; j < n; ++j) {
      sendcounts[static_cast<std::size_t>(j)] = m(r, j);
      recvcounts[static_cast<std::size_t>(j)] = m(j, r);
    }
    const auto so = prefix(sendcounts);
    const auto input = block_of<T>(r, so.back());
    std::vector<T> want;
    for (int i = 0; i < n; ++i) {
      std::size_t at = 0;  // rank i's send offset of block r
      for (int j = 0; j < r; ++j) at += static_cast<std::size_t>(m(i, j));
      for (int k = 0; k < m(i, r); ++k)
        want.push_back(data_value<T>(i, at + static_cast<std::size_t>(k)));
    }
    const std::string base = "alltoallv " + type_name<T>() + " counts=" + name(p);
    for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view algo, const auto& a) {
      const std::string l = with(base, algo, in_place);
      progress(l);
      if (in_place) {
        // Symmetric counts: the one buffer (recvcounts' layout) holds what goes to each rank.
        std::vector<T> buf = input;
        if (!no_throw(l, [&] { comm.alltoallv(buf, recvcounts, a); })) return;
        compare(l, buf, want, true);
      } else {
        const std::vector<T> in = input;
        std::vector<T> out(want.size(), sentinel<T>());
        if (!no_throw(l, [&] { comm.alltoallv(in, sendcounts, out, recvcounts, a); })) return;
        compare(l + " input untouched", in, input, true);
        compare(l, out, want, true);
      }
    });
  }
}

}  // namespace

TEST_CASE("grid gatherv") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (Pattern p : small_patterns)
      for (int root : all_roots(comm.size())) check_gatherv<T>(comm, p, root);
  });
  check_gatherv<float>(comm, Pattern::large, comm.size() - 1);
  check_gatherv<std::uint8_t>(comm, Pattern::large, 0);
}

TEST_CASE("grid scatterv") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (Pattern p : small_patterns)
      for (int root : all_roots(comm.size())) check_scatterv<T>(comm, p, root);
  });
  check_scatterv<float>(comm, Pattern::large, 0);
  check_scatterv<std::uint8_t>(comm, Pattern::large, comm.size() - 1);
}

TEST_CASE("grid allgatherv") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (Pattern p : small_patterns) check_allgatherv<T>(comm, cons, p);
    cons.flush();
  });
  check_allgatherv<float>(comm, cons, Pattern::large);
  check_allgatherv<std::uint8_t>(comm, cons, Pattern::large);
}

TEST_CASE("grid reduce_scatterv") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_op<T>([&](const auto& op) {
      for (Pattern p : small_patterns)
        // All-zero counts move nothing, whatever the op: once per type is enough.
        if (p != Pattern::zero || std::decay_t<decltype(op)>::id == cclx::OpId::sum)
          check_reduce_scatterv<T>(comm, op, p);
    });
  });
  for_each_large_reduction([&](auto tag, const auto& op) {
    using T = typename decltype(tag)::type;
    check_reduce_scatterv<T>(comm, op, Pattern::large);
  });
}

TEST_CASE("grid alltoallv") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (Pattern p : small_patterns) check_alltoallv<T>(comm, p);
  });
  check_alltoallv<float>(comm, Pattern::large);
  check_alltoallv<std::uint8_t>(comm, Pattern::large);
}

// Displacements: native honours any layout (here blocks in reverse order with one-element gaps,
// which keep their contents); scheduled algorithms take explicitly packed ones.
TEST_CASE("grid allgatherv displacements") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> c = counts_of(Pattern::mod5, n);
  const auto o = prefix(c);
  // Block b at (sum of the counts of the blocks after b) + (n - b) gaps before it.
  std::vector<long> displs(static_cast<std::size_t>(n));
  std::size_t extent = 0;
  for (int b = 0; b < n; ++b) {
    const auto ub = static_cast<std::size_t>(b);
    displs[ub] = static_cast<long>(o.back() - o[ub + 1] + static_cast<std::size_t>(n - b));
    extent =
        std::max(extent, static_cast<std::size_t>(displs[ub]) + static_cast<std::size_t>(c[ub]));
  }
  std::vector<double> want(extent, sentinel<double>());
  for (int b = 0; b < n; ++b) {
    const auto blk = block_of<double>(b, static_cast<std::size_t>(c[static_cast<std::size_t>(b)]));
    std::copy(blk.begin(), blk.end(), want.begin() + displs[static_cast<std::size_t>(b)]);
  }
  const auto mine = block_of<double>(r, static_cast<std::size_t>(c[static_cast<std::size_t>(r)]));
  {
    std::vector<double> out(extent, sentinel<double>());
    const std::string l = "allgatherv displaced [native, out of place]";
    if (no_throw(l, [&] { comm.allgatherv(mine, out, c, cclx::Displs(displs)); }))
      compare(l, out, want, true);
  }
  {
    std::vector<double> buf(extent, sentinel<double>());
    std::copy(mine.begin(), mine.end(), buf.begin() + displs[static_cast<std::size_t>(r)]);
    const std::string l = "allgatherv displaced [native, in place]";
    if (no_throw(l, [&] { comm.allgatherv(buf, c, cclx::Displs(displs)); }))
      compare(l, buf, want, true);
  }
  // Packed displacements given explicitly (as an std::array where it fits) serve every algorithm.
  std::vector<std::size_t> packed(o.begin(), o.end() - 1);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view algo, const auto& a) {
    const std::string l = "allgatherv packed displs [" + std::string(algo) + "]";
    std::vector<double> out(o.back(), sentinel<double>());
    if (no_throw(l, [&] { comm.allgatherv(mine, out, c, cclx::Displs(packed), a); }))
      compare(l, out, all_blocks<double>(c), true);
  });
  if (n == 4) {
    const std::array<int, 4> counts{2, 0, 1, 3};
    const std::array<int, 4> at{0, 2, 2, 3};
    std::vector<int> out(6, -1), want4;
    for (int b = 0; b < 4; ++b) {
      const auto blk =
          block_of<int>(b, static_cast<std::size_t>(counts[static_cast<std::size_t>(b)]));
      want4.insert(want4.end(), blk.begin(), blk.end());
    }
    const auto in = block_of<int>(r, static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]));
    if (no_throw("allgatherv std::array counts",
                 [&] { comm.allgatherv(in, out, counts, cclx::Displs(at), cclx::algo::Ring{}); }))
      compare("allgatherv std::array counts", out, want4, true);
  }
}

// Displacements of the other v-collectives with native (gaps between blocks keep their contents):
// gatherv's root output, scatterv's root input, alltoallv's both.
TEST_CASE("grid gatherv scatterv alltoallv displacements (native)") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> c = counts_of(Pattern::ramp, n);
  const auto o = prefix(c);
  // Block b at o[b] + 2b + 1: gaps of one element first, then two between blocks.
  std::vector<int> displs(static_cast<std::size_t>(n));
  for (int b = 0; b < n; ++b)
    displs[static_cast<std::size_t>(b)] = static_cast<int>(o[b]) + 2 * b + 1;
  const std::size_t extent = o.back() + 2 * static_cast<std::size_t>(n);
  const int root = n - 1;
  std::vector<std::int64_t> spread(extent, sentinel<std::int64_t>());
  for (int b = 0; b < n; ++b) {
    const auto blk =
        block_of<std::int64_t>(b, static_cast<std::size_t>(c[static_cast<std::size_t>(b)]));
    std::copy(blk.begin(), blk.end(), spread.begin() + displs[static_cast<std::size_t>(b)]);
  }
  const auto mine =
      block_of<std::int64_t>(r, static_cast<std::size_t>(c[static_cast<std::size_t>(r)]));
  {
    std::vector<std::int64_t> out(r == root ? extent : 0, sentinel<std::int64_t>());
    const std::string l = "gatherv displaced [native]";
    if (no_throw(l, [&] { comm.gatherv(mine, out, c, cclx::Displs(displs), root); }) && r == root)
      compare(l, out, spread, true);
  }
  {
    // The root scatters block b of `spread` (rank b's data) to rank b.
    const std::vector<std::int64_t> in = r == root ? spread : std::vector<std::int64_t>{};
    std::vector<std::int64_t> out(mine.size(), sentinel<std::int64_t>());
    const std::string l = "scatterv displaced [native]";
    if (no_throw(l, [&] { comm.scatterv(in, out, c, cclx::Displs(displs), root); }))
      compare(l, out, mine, true);
  }
  {
    // Everyone sends `mine` (counts[r] elements) to every rank: sendcounts all counts[r], at
    // displacements j * (counts[r] + 1); receives rank i's block at displs[i].
    const auto own = static_cast<std::size_t>(c[static_cast<std::size_t>(r)]);
    std::vector<int> sc(static_cast<std::size_t>(n), static_cast<int>(own)), sd(sc.size());
    std::vector<std::int64_t> in((own + 1) * static_cast<std::size_t>(n), sentinel<std::int64_t>());
    for (int j = 0; j < n; ++j) {
      sd[static_cast<std::size_t>(j)] = j * static_cast<int>(own + 1);
      std::copy(mine.begin(), mine.end(), in.begin() + sd[static_cast<std::size_t>(j)]);
    }
    std::vector<std::int64_t> out(extent, sentinel<std::int64_t>());
    const std::string l = "alltoallv displaced [native]";
    if (no_throw(l,
                 [&] { comm.alltoallv(in, sc, cclx::Displs(sd), out, c, cclx::Displs(displs)); }))
      compare(l, out, spread, true);
  }
}

}  // namespace cclx_test
