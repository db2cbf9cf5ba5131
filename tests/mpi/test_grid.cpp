// The correctness grid: every algorithm x every collective it serves x element types x ops x
// counts x in-place/out-of-place (x roots), run on MPI_COMM_WORLD at every N the suite runs.
//
// Grid design (chosen to keep all N = 1..8 under a few minutes on 2 oversubscribed cores, where a
// small collective costs milliseconds):
//   algorithms  for_each_algorithm() in support.hpp (one line each); an algorithm runs the
//               collectives its registry entry lists (cclx::algo::generators()); Native all six.
//   small       counts {0, 1, n-1, n+1} (deduplicated) with the FULL cross product:
//               {float, double, int32, int64, uint8, uint64} x {sum, prod, min, max, + band, bor,
//               bxor for integers} x {in place, out of place} x roots {0, n/2, n-1} (rooted
//               collectives).
//   large       counts {1<<20, 999983} with a reduced set: reductions on (float, sum),
//               (int32, sum), (double, max); data movement on float and uint8; roots {n-1} for
//               reduce, {0, n-1} for bcast; both in place and out of place.
//   counts      are elements of the whole vector for allreduce/reduce/bcast and elements of ONE
//               rank's block for reduce_scatter/allgather/alltoall (small counts), so that the
//               per-rank block is {0, 1, n-1, n+1}; for the large counts the block is count/n so
//               that the whole buffer stays about `count` elements.
// Checks per call:
//   reductions  the reference is computed locally (the reduction of every rank's input in rank
//               order, support.hpp), never by MPI: a wrong MPI must not make a wrong cclx pass
//               (MPICH 4.0.2's unsigned max/min was wrong). Every algorithm's result, Native's
//               included, must EQUAL it for integers and for min/max, and be within a relative
//               tolerance (2e-5 float, 1e-12 double) of it for floating sum/prod;
//   data        bcast/allgather/alltoall/gather/scatter results must equal the expected payload
//               exactly;
//   ranks       results that are the same on every rank (allreduce, bcast, allgather) must be
//               bitwise identical across ranks (hashes compared in one MPI_Allreduce per batch);
//   untouched   out-of-place inputs are unchanged, non-roots' reduce buffers (in place) are
//               unchanged and their outputs (out of place) keep the sentinel.
// Buffers: each check reuses its buffers from one algorithm to the next (assigned at the same
// size, so each keeps its allocation and its exact bounds): a fresh 4 MiB vector per call is a
// fresh mapping under ASan, and its page faults were most of the large grids' time.
// Inputs (support.hpp): small values for sum/prod (no overflow: sums <= 160, products of {1, 2, -1}
// with at most two 2s), unsigned min/max inputs with the top bit set on half the ranks, distinct
// per rank so a missing or doubled contribution is caught, and for floats
// sums that are not exact (so the last bits depend on the order of the reduction).
#include <doctest/doctest.h>

#include <set>
#include <utility>

#include "cclx/settings.hpp"
#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

std::vector<std::size_t> small_counts(int n) {
  const auto un = static_cast<std::size_t>(n);
  std::set<std::size_t> s{0, 1, un - 1, un + 1};
  return {s.begin(), s.end()};
}

constexpr std::size_t large_counts[] = {std::size_t{1} << 20, 999983};

template <class T, class Op>
std::string label(std::string_view coll, const Op& op, std::size_t count) {
  std::ostringstream s;
  s << coll << ' ' << type_name<T>() << ' ' << cclx::to_string(Op::id) << " count=" << count;
  (void)op;
  return s.str();
}

// ---- reductions ----

template <class T, class Op>
void check_allreduce(Comm& comm, Consistency& cons, const Op& op, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  const auto input = reduce_inputs<T>(Op::id, r, 0, count);
  const std::string base = label<T>("allreduce", op, count);
  const std::vector<T> ref = reduced<T>(Op::id, n, 0, count);

  std::vector<T> out, in;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      if (in_place) {
        out = input;
        if (!no_throw(l, [&] { comm.allreduce(out, op, a); })) continue;
      } else {
        out.assign(count, sentinel<T>());
        in = input;
        if (!no_throw(l, [&] { comm.allreduce(std::as_const(in), out, op, a); })) continue;
        compare(l + " input untouched", in, input, true);
      }
      compare(l, out, ref, exact_vs_reference<T>(Op::id));
      cons.add(l, out);
    }
  });
}

template <class T, class Op>
void check_reduce(Comm& comm, const Op& op, std::size_t count, int root) {
  const int n = comm.size(), r = comm.rank();
  const bool is_root = r == root;
  const auto input = reduce_inputs<T>(Op::id, r, 0, count);
  const std::string base = label<T>("reduce", op, count);
  const std::vector<T> ref = is_root ? reduced<T>(Op::id, n, 0, count) : std::vector<T>{};
  const std::vector<T> untouched =
      is_root ? std::vector<T>{} : std::vector<T>(count, sentinel<T>());

  std::vector<T> buf, out, in;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::reduce>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place, root);
      using A = std::decay_t<decltype(a)>;
      progress(l);
      if (in_place) {
        buf = input;
        if (!no_throw(l, [&] { comm.reduce(buf, op, root, a); })) continue;
        if (is_root)
          compare(l, buf, ref, exact_vs_reference<T>(Op::id));
        else
          compare(l + " non-root buffer untouched", buf, input, true);
      } else {
        out.assign(count, sentinel<T>());
        in = input;
        if (!no_throw(l, [&] { comm.reduce(std::as_const(in), out, op, root, a); })) continue;
        compare(l + " input untouched", in, input, true);
        if (is_root)
          compare(l, out, ref, exact_vs_reference<T>(Op::id));
        else
          compare(l + " non-root output untouched", out, untouched, true);
      }
    }
  });
}

template <class T, class Op>
void check_reduce_scatter(Comm& comm, const Op& op, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const std::size_t total = block * static_cast<std::size_t>(n);
  const auto input = reduce_inputs<T>(Op::id, r, 0, total);
  const std::string base = label<T>("reduce_scatter", op, block);
  const std::vector<T> ref = reduced<T>(Op::id, n, block * static_cast<std::size_t>(r), block);

  std::vector<T> buf, out, in;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::reduce_scatter>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      if (in_place) {
        buf = input;
        if (!no_throw(l, [&] { comm.reduce_scatter(buf, op, a); })) continue;
        // The result is the first block.
        compare<T>(l, std::span<const T>(buf).first(block), ref, exact_vs_reference<T>(Op::id));
      } else {
        out.assign(block, sentinel<T>());
        in = input;
        if (!no_throw(l, [&] { comm.reduce_scatter(std::as_const(in), out, op, a); })) continue;
        compare(l + " input untouched", in, input, true);
        compare(l, out, ref, exact_vs_reference<T>(Op::id));
      }
    }
  });
}

// ---- data movement ----

template <class T>
void check_bcast(Comm& comm, Consistency& cons, std::size_t count, int root) {
  const int r = comm.rank();
  std::vector<T> want(count);
  for (std::size_t i = 0; i < count; ++i) want[i] = data_value<T>(root, i);
  const std::string base = "bcast " + type_name<T>() + " count=" + std::to_string(count);
  std::vector<T> buf;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
    const std::string l = with(base, name, true, root);
    progress(l);
    if (r == root)
      buf = want;
    else
      buf.assign(count, sentinel<T>());
    if (!no_throw(l, [&] { comm.bcast(buf, root, a); })) return;
    compare(l, buf, want, true);
    cons.add(l, buf);
  });
}

template <class T>
void check_allgather(Comm& comm, Consistency& cons, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  std::vector<T> want(block * un);
  for (int s = 0; s < n; ++s)
    for (std::size_t j = 0; j < block; ++j)
      want[static_cast<std::size_t>(s) * block + j] = data_value<T>(s, j);
  std::vector<T> mine(block);
  for (std::size_t j = 0; j < block; ++j) mine[j] = data_value<T>(r, j);
  const std::string base = "allgather " + type_name<T>() + " count=" + std::to_string(block);
  std::vector<T> out, in;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      out.assign(block * un, sentinel<T>());
      if (in_place) {
        std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(block * r));
        if (!no_throw(l, [&] { comm.allgather(out, a); })) continue;
      } else {
        in = mine;
        if (!no_throw(l, [&] { comm.allgather(std::as_const(in), out, a); })) continue;
        compare(l + " input untouched", in, mine, true);
      }
      compare(l, out, want, true);
      cons.add(l, out);
    }
  });
}

template <class T>
void check_gather(Comm& comm, std::size_t block, int root) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  std::vector<T> want(block * un);
  for (int s = 0; s < n; ++s)
    for (std::size_t j = 0; j < block; ++j)
      want[static_cast<std::size_t>(s) * block + j] = data_value<T>(s, j);
  std::vector<T> mine(block);
  for (std::size_t j = 0; j < block; ++j) mine[j] = data_value<T>(r, j);
  const std::string base = "gather " + type_name<T>() + " count=" + std::to_string(block) +
                           " root=" + std::to_string(root);
  std::vector<T> buf, in, out;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::gather>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      if (in_place) {
        // The root's buffer holds n blocks with its own at block root; the others' is theirs.
        buf.assign(r == root ? block * un : block, sentinel<T>());
        std::copy(mine.begin(), mine.end(),
                  buf.begin() + static_cast<std::ptrdiff_t>(r == root ? block * r : 0));
        if (!no_throw(l, [&] { comm.gather(buf, root, a); })) continue;
        compare(l, buf, r == root ? want : mine, true);
      } else {
        in = mine;
        out.assign(r == root ? block * un : 0, sentinel<T>());
        if (!no_throw(l, [&] { comm.gather(std::as_const(in), out, root, a); })) continue;
        compare(l + " input untouched", in, mine, true);
        if (r == root) compare(l, out, want, true);
      }
    }
  });
}

template <class T>
void check_scatter(Comm& comm, std::size_t block, int root) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  // The root's block d is data_value(root, d * block + j).
  std::vector<T> all(block * un), want(block);
  for (std::size_t k = 0; k < block * un; ++k) all[k] = data_value<T>(root, k);
  for (std::size_t j = 0; j < block; ++j)
    want[j] = data_value<T>(root, static_cast<std::size_t>(r) * block + j);
  const std::string base = "scatter " + type_name<T>() + " count=" + std::to_string(block) +
                           " root=" + std::to_string(root);
  std::vector<T> buf, in, out;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::scatter>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      if (in_place) {
        // The root's buffer holds all n blocks (its own stays at block root); the others' one.
        if (r == root)
          buf = all;
        else
          buf.assign(block, sentinel<T>());
        if (!no_throw(l, [&] { comm.scatter(buf, root, a); })) continue;
        compare(l, buf, r == root ? all : want, true);
      } else {
        if (r == root) in = all;  // the others send nothing: `in` stays empty
        out.assign(block, sentinel<T>());
        if (!no_throw(l, [&] { comm.scatter(std::as_const(in), out, root, a); })) continue;
        if (r == root) compare(l + " input untouched", in, all, true);
        compare(l, out, want, true);
      }
    }
  });
}

template <class T>
void check_alltoall(Comm& comm, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  // Block d of rank s's input goes to rank d: element j is data_value(s, d * block + j).
  std::vector<T> input(block * un), want(block * un);
  for (int d = 0; d < n; ++d)
    for (std::size_t j = 0; j < block; ++j) {
      const std::size_t k = static_cast<std::size_t>(d) * block + j;
      input[k] = data_value<T>(r, k);
      want[k] = data_value<T>(d, static_cast<std::size_t>(r) * block + j);
    }
  const std::string base = "alltoall " + type_name<T>() + " count=" + std::to_string(block);
  std::vector<T> buf, in, out;  // reused: see "Buffers" at the top
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = with(base, name, in_place);
      progress(l);
      if (in_place) {
        buf = input;
        if (!no_throw(l, [&] { comm.alltoall(buf, a); })) continue;
        compare(l, buf, want, true);
      } else {
        out.assign(block * un, sentinel<T>());
        in = input;
        if (!no_throw(l, [&] { comm.alltoall(std::as_const(in), out, a); })) continue;
        compare(l + " input untouched", in, input, true);
        compare(l, out, want, true);
      }
    }
  });
}

template <class F>
void for_each_large_data_type(F&& f) {
  f(Tag<float>{});
  f(Tag<std::uint8_t>{});
}

std::size_t large_block(std::size_t count, int n) {
  return count / static_cast<std::size_t>(n);
}

// check.operator()<T>(count) for every element type and small count, and for the large data types
// and counts.
template <class Check>
void for_small(const Comm& comm, Check check) {
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t c : small_counts(comm.size())) check.template operator()<T>(c);
  });
}

template <class Check>
void for_large(Check check) {
  for_each_large_data_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (std::size_t c : large_counts) check.template operator()<T>(c);
  });
}

}  // namespace

TEST_CASE("grid: every listed algorithm is registered with its generator") {
  std::set<std::string_view> listed;
  for_each_algorithm([&](std::string_view name, const auto& a) {
    using A = std::decay_t<decltype(a)>;
    if constexpr (!is_native<A>) {
      CHECK_MESSAGE(!registered_collectives(A::name).empty(),
                    name << ": no entry in cclx::algo::generators(), so the grid would skip it");
      listed.insert(A::name);
    }
  });
  // And the other way round: a new registry algorithm runs in the grids once it is registered,
  // or fails here until for_each_algorithm (support.hpp) lists it. StragglAR has its own tests
  // (test_stragglar.cpp: every straggler position), and so have the hierarchical policies beyond
  // the two listed (test_hierarchical.cpp: every one on emulated hosts; on the test machine's one
  // host they differ only in the inter-host algorithm they do not run).
  for (const auto& g : cclx::algo::generators())
    CHECK_MESSAGE(
        (listed.count(g.name) != 0 || g.name == cclx::algo::StragglAR::name || g.uses_hosts),
        g.name << ": registered but not in for_each_algorithm (tests/mpi/support.hpp)");
  // What each algorithm must serve (RHD: whatever it registers).
  auto serves = [](std::string_view algo, Coll c) {
    const auto cs = registered_collectives(algo);
    return std::find(cs.begin(), cs.end(), c) != cs.end();
  };
  for (Coll c : {Coll::allreduce, Coll::reduce_scatter, Coll::allgather, Coll::alltoall})
    CHECK_MESSAGE(serves("ring", c), "ring should serve " << cclx::sched::to_string(c));
  for (Coll c : {Coll::reduce, Coll::bcast, Coll::allreduce}) {
    CHECK_MESSAGE(serves("binomial_tree", c),
                  "binomial_tree should serve " << cclx::sched::to_string(c));
    CHECK_MESSAGE(serves("pipelined_tree", c),
                  "pipelined_tree should serve " << cclx::sched::to_string(c));
  }
}

TEST_CASE("grid allreduce small") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_op<T>([&](const auto& op) {
      for (std::size_t c : small_counts(comm.size())) check_allreduce<T>(comm, cons, op, c);
    });
    cons.flush();
  });
}

TEST_CASE("grid allreduce large") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_each_large_reduction([&](auto tag, const auto& op) {
    using T = typename decltype(tag)::type;
    for (std::size_t c : large_counts) check_allreduce<T>(comm, cons, op, c);
  });
}

TEST_CASE("grid reduce small") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_op<T>([&](const auto& op) {
      for (int root : all_roots(comm.size()))
        for (std::size_t c : small_counts(comm.size())) check_reduce<T>(comm, op, c, root);
    });
  });
}

TEST_CASE("grid reduce large") {
  Comm comm(MPI_COMM_WORLD);
  for_each_large_reduction([&](auto tag, const auto& op) {
    using T = typename decltype(tag)::type;
    for (std::size_t c : large_counts) check_reduce<T>(comm, op, c, comm.size() - 1);
  });
}

TEST_CASE("grid reduce_scatter small") {
  Comm comm(MPI_COMM_WORLD);
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for_each_op<T>([&](const auto& op) {
      for (std::size_t c : small_counts(comm.size())) check_reduce_scatter<T>(comm, op, c);
    });
  });
}

TEST_CASE("grid reduce_scatter large") {
  Comm comm(MPI_COMM_WORLD);
  for_each_large_reduction([&](auto tag, const auto& op) {
    using T = typename decltype(tag)::type;
    for (std::size_t c : large_counts)
      check_reduce_scatter<T>(comm, op, large_block(c, comm.size()));
  });
}

TEST_CASE("grid bcast small") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int root : all_roots(comm.size()))
      for (std::size_t c : small_counts(comm.size())) check_bcast<T>(comm, cons, c, root);
  });
}

TEST_CASE("grid bcast large") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  std::set<int> roots{0, comm.size() - 1};
  for_each_large_data_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    for (int root : roots)
      for (std::size_t c : large_counts) check_bcast<T>(comm, cons, c, root);
  });
}

// Run by the ctest entries that set CCLX_MAX_MESSAGE_BYTES (mpi-n{n}-message-limit): counts whose
// transfers are many times the limit, on the large grids' reduced set of types and ops, so that
// every transfer goes as many messages and the reductions run piece by piece.
TEST_CASE("grid message limit") {
  REQUIRE_MESSAGE(cclx::settings::get<std::size_t>(cclx::settings::Id::max_message_bytes) > 0,
                  "this test case runs with CCLX_MAX_MESSAGE_BYTES set");
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  constexpr std::size_t count = 5003;  // a prime: the last message of a block is shorter
  for_each_large_reduction([&](auto tag, const auto& op) {
    using T = typename decltype(tag)::type;
    check_allreduce<T>(comm, cons, op, count);
    check_reduce<T>(comm, op, count, comm.size() - 1);
    check_reduce_scatter<T>(comm, op, large_block(count, comm.size()));
  });
  for_each_large_data_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    check_bcast<T>(comm, cons, count, 0);
    check_allgather<T>(comm, cons, large_block(count, comm.size()));
  });
  cons.flush();
}

TEST_CASE("grid allgather small") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_small(comm, [&]<class T>(std::size_t c) { check_allgather<T>(comm, cons, c); });
}

TEST_CASE("grid allgather large") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_large(
      [&]<class T>(std::size_t c) { check_allgather<T>(comm, cons, large_block(c, comm.size())); });
}

TEST_CASE("grid gather small") {
  Comm comm(MPI_COMM_WORLD);
  for_small(comm, [&]<class T>(std::size_t c) {
    for (int root : all_roots(comm.size())) check_gather<T>(comm, c, root);
  });
}

TEST_CASE("grid gather large") {
  Comm comm(MPI_COMM_WORLD);
  for_large([&]<class T>(std::size_t c) {
    check_gather<T>(comm, large_block(c, comm.size()), comm.size() - 1);
  });
}

TEST_CASE("grid scatter small") {
  Comm comm(MPI_COMM_WORLD);
  for_small(comm, [&]<class T>(std::size_t c) {
    for (int root : all_roots(comm.size())) check_scatter<T>(comm, c, root);
  });
}

TEST_CASE("grid scatter large") {
  Comm comm(MPI_COMM_WORLD);
  for_large(
      [&]<class T>(std::size_t c) { check_scatter<T>(comm, large_block(c, comm.size()), 0); });
}

TEST_CASE("grid alltoall small") {
  Comm comm(MPI_COMM_WORLD);
  for_small(comm, [&]<class T>(std::size_t c) { check_alltoall<T>(comm, c); });
}

TEST_CASE("grid alltoall large") {
  Comm comm(MPI_COMM_WORLD);
  for_large([&]<class T>(std::size_t c) { check_alltoall<T>(comm, large_block(c, comm.size())); });
}

}  // namespace cclx_test
