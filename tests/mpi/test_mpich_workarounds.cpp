// Regression tests for MPI-library bugs that cclx works around.
#include <doctest/doctest.h>

#include <limits>

#include "support.hpp"

namespace cclx_test {

// MPICH 4.0.2 (Debian, ch4:ucx): MPI_Reduce(MPI_IN_PLACE, buf, count, ...) at a root other than 0
// segfaults inside MPICH's device-level reduce from about 1000 floats on (a plain C program
// reproduces it). cclx's Native in-place reduce stages the root's input instead
// (MpiBackend::native), so this must pass at every size and root.
TEST_CASE("mpich workaround: native in-place reduce at a non-zero root") {
  cclx::Communicator comm(MPI_COMM_WORLD);
  const int n = comm.size();
  for (int root : {n - 1, n / 2}) {
    for (std::size_t count : {std::size_t{100}, std::size_t{4096}, std::size_t{1} << 20}) {
      std::vector<float> buf(count, 1.0f);
      progress("native in-place reduce, " + std::to_string(count) + " floats, root " +
               std::to_string(root));
      no_throw("native in-place reduce", [&] { comm.reduce(buf, cclx::sum, root); });
      if (comm.rank() == root)
        compare("native in-place reduce", buf, std::vector<float>(count, static_cast<float>(n)),
                true);
      else
        compare("non-root buffer untouched", buf, std::vector<float>(count, 1.0f), true);
    }
  }
}

}  // namespace cclx_test

namespace cclx_test {
namespace {

// The values: rank 0 holds a value with the top bit set, every other rank a small one, so
// a max/min computed as if the type were signed picks the wrong one.
template <class T>
T unsigned_input(int rank, std::size_t i) {
  constexpr T big = sizeof(T) == 1   ? T(200)
                    : sizeof(T) == 2 ? T(60000)
                    : sizeof(T) == 4 ? T(3000000000u)
                                     : T(18000000000000000000ull);
  constexpr T small = sizeof(T) == 1 ? T(100) : T(5);
  // Element 0: rank 0 big; element 1: the last rank big; element 2: all
  // big but one; element 3: every rank small.
  switch (i % 4) {
    case 0:
      return rank == 0 ? big : small;
    case 1:
      return rank == world_size() - 1 ? big : small;
    case 2:
      return rank == 0 ? small : big;
    default:
      return static_cast<T>(small + static_cast<T>(rank));
  }
}

template <class T>
bool raw_mpi_wrong(MPI_Datatype dt, MPI_Op op) {
  const bool max = op == MPI_MAX;
  const T big = std::numeric_limits<T>::max(), small = 1;
  T in[1] = {big}, inout[1] = {small};
  MPI_Reduce_local(in, inout, 1, dt, op);
  return inout[0] != (max ? big : small);
}

template <class T, class Op>
void check_unsigned_minmax(cclx::Communicator<>& comm, const Op& op, MPI_Datatype dt) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const std::string base = "native " + type_name<T>() + " " + std::string(cclx::to_string(Op::id));
  const bool wrong = raw_mpi_wrong<T>(dt, Op::id == cclx::OpId::max ? MPI_MAX : MPI_MIN);
  if (r == 0 && wrong) MESSAGE(base << ": this MPI's builtin op is wrong; cclx's replacement runs");
  CHECK_MESSAGE(
      cclx::detail::mpi_unsigned_minmax_workaround(cclx::data_type_of<T>(), Op::id) == wrong,
      base << ": the probe disagrees with a direct check of MPI_Reduce_local");

  constexpr std::size_t count = 8;
  auto input = [&](std::size_t total) {
    std::vector<T> v(total);
    for (std::size_t i = 0; i < total; ++i) v[i] = unsigned_input<T>(r, i);
    return v;
  };
  auto want = [&](std::size_t first, std::size_t len) {
    std::vector<T> w(len);
    for (std::size_t i = 0; i < len; ++i) {
      T acc = unsigned_input<T>(0, first + i);
      for (int s = 1; s < n; ++s) acc = apply_op(Op::id, acc, unsigned_input<T>(s, first + i));
      w[i] = acc;
    }
    return w;
  };
  const std::vector<T> in = input(count), all = want(0, count);

  progress(base + " allreduce");
  std::vector<T> out(count, 0), buf = in;
  comm.allreduce(in, out, op);
  compare(base + " allreduce", out, all, true);
  comm.allreduce(buf, op);
  compare(base + " allreduce in place", buf, all, true);

  progress(base + " iallreduce");
  out.assign(count, 0);
  buf = in;
  comm.iallreduce(in, out, op).wait();
  compare(base + " iallreduce", out, all, true);
  comm.iallreduce(buf, op).wait();
  compare(base + " iallreduce in place", buf, all, true);

  for (int root : {0, n - 1}) {
    progress(base + " reduce, root " + std::to_string(root));
    out.assign(count, 0);
    buf = in;
    comm.reduce(in, out, op, root);
    comm.reduce(buf, op, root);
    if (r == root) {
      compare(base + " reduce, root " + std::to_string(root), out, all, true);
      compare(base + " reduce in place, root " + std::to_string(root), buf, all, true);
    }
  }

  progress(base + " reduce_scatter");
  const std::vector<T> in_rs = input(count * un),
                       mine = want(count * static_cast<std::size_t>(r), count);
  out.assign(count, 0);
  buf = in_rs;
  comm.reduce_scatter(in_rs, out, op);
  compare(base + " reduce_scatter", out, mine, true);
  comm.reduce_scatter(buf, op);
  buf.resize(count);
  compare(base + " reduce_scatter in place", buf, mine, true);

  // reduce_scatterv (MPI_Reduce_scatter) with uneven counts: rank s gets s % 3 + 4 elements.
  progress(base + " reduce_scatterv");
  std::vector<int> counts(un);
  std::size_t first = 0, total = 0;
  for (int s = 0; s < n; ++s) {
    counts[static_cast<std::size_t>(s)] = s % 3 + 4;
    if (s < r) first += static_cast<std::size_t>(s % 3 + 4);
    total += static_cast<std::size_t>(s % 3 + 4);
  }
  const std::size_t own = static_cast<std::size_t>(r % 3 + 4);
  const std::vector<T> in_v = input(total), mine_v = want(first, own);
  out.assign(own, 0);
  buf = in_v;
  comm.reduce_scatterv(in_v, out, counts, op);
  compare(base + " reduce_scatterv", out, mine_v, true);
  comm.reduce_scatterv(buf, counts, op);
  buf.resize(own);
  compare(base + " reduce_scatterv in place", buf, mine_v, true);
}

}  // namespace

// MPICH 4.0.2 (Debian) computes MPI_MAX and MPI_MIN on unsigned types as if they were signed:
// allreduce max over {200, 100, 100, 100} (uint8) gives 100, over {3000000000, 5, 5, 5} (uint32)
// gives 5, in every collective. mpi_op() probes the library once per process and replaces the
// builtin op with its own where it is wrong; native must equal the locally computed answer.
TEST_CASE("mpich workaround: native max/min on unsigned types") {
  cclx::Communicator comm(MPI_COMM_WORLD);
  auto both = [&](auto tag, MPI_Datatype dt) {
    using T = typename decltype(tag)::type;
    check_unsigned_minmax<T>(comm, cclx::max, dt);
    check_unsigned_minmax<T>(comm, cclx::min, dt);
  };
  both(Tag<std::uint8_t>{}, MPI_UINT8_T);
  both(Tag<std::uint16_t>{}, MPI_UINT16_T);
  both(Tag<std::uint32_t>{}, MPI_UINT32_T);
  both(Tag<std::uint64_t>{}, MPI_UINT64_T);
  // unsigned char / unsigned long are the same cclx types (uint8 / uint64).
  std::vector<unsigned char> c{static_cast<unsigned char>(comm.rank() == 0 ? 200 : 100)};
  comm.allreduce(c, cclx::max);
  CHECK(c[0] == 200);
}

}  // namespace cclx_test

namespace cclx_test {
namespace {

// Every rank contributes `value` in each of `count` elements; the sum wraps modulo 2^bits, as C
// and every cclx algorithm compute it.
template <class T>
void check_wrapping_sum(cclx::Communicator<>& comm, T value) {
  const int n = comm.size();
  T want = 0;
  for (int r = 0; r < n; ++r) want = static_cast<T>(want + value);
  for (std::size_t count : {std::size_t{1}, std::size_t{33}, std::size_t{64}, std::size_t{1000}}) {
    const std::string l = "native sum " + type_name<T>() + " count=" + std::to_string(count);
    std::vector<T> in(count, value), out(count, 0), buf(count, value);
    comm.allreduce(in, out, cclx::sum);
    comm.allreduce(buf, cclx::sum);
    compare(l, out, std::vector<T>(count, want), true);
    compare(l + " in place", buf, std::vector<T>(count, want), true);
    std::vector<T> red(count, 0);
    comm.reduce(in, red, cclx::sum, n - 1);
    if (comm.rank() == n - 1) compare(l + " reduce", red, std::vector<T>(count, want), true);
    // The same through a cclx algorithm: native and ours agree.
    std::vector<T> ring(count, 0);
    comm.allreduce(in, ring, cclx::sum, cclx::algo::Ring{});
    compare(l + " ring", ring, std::vector<T>(count, want), true);
    // reduce_scatterv (MPI_Reduce_scatter): `count` elements per rank.
    const std::vector<std::size_t> counts(static_cast<std::size_t>(n), count);
    std::vector<T> all(count * static_cast<std::size_t>(n), value), mine(count, 0);
    comm.reduce_scatterv(all, mine, counts, cclx::sum);
    compare(l + " reduce_scatterv", mine, std::vector<T>(count, want), true);
  }
}

}  // namespace

// Open MPI 4.1.4 (Debian) saturates MPI_SUM on 8- and 16-bit integers from 32 elements on (its
// op/avx component): native must wrap like C and the cclx algorithms
// (lib/backend/mpi_datatype.cpp).
TEST_CASE("open mpi workaround: native sum on 8- and 16-bit integers wraps") {
  cclx::Communicator comm(MPI_COMM_WORLD);
  check_wrapping_sum<std::uint8_t>(comm, 200);
  check_wrapping_sum<std::int8_t>(comm, 100);
  check_wrapping_sum<std::uint16_t>(comm, 60000);
  check_wrapping_sum<std::int16_t>(comm, 30000);
}

}  // namespace cclx_test
