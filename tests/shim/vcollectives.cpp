// libcclx-mpi conformance of the v-collectives, written from the MPI standard against the plain
// MPI API (no cclx headers): MPI_Allgatherv, MPI_Reduce_scatter and MPI_Alltoallv (served), and
// MPI_Gatherv and MPI_Scatterv (passed through: their counts are significant at the root only)
// x blocking, nonblocking and persistent forms (forms.hpp) x in place / out of place x packed
// blocks and blocks in reverse order with gaps (MPI displacements) x MPI_INT, MPI_DOUBLE,
// MPI_UINT8_T (reductions: SUM, MAX, BXOR) x counts that differ per rank, zeros included x
// MPI_COMM_WORLD, a split of odd size in reversed rank order, a dup and MPI_COMM_SELF. Every
// result is compared with a reference computed locally; send buffers, gaps and the elements
// past each output must stay untouched. Also MPI_Barrier in its three forms: no rank leaves
// before the last one entered (the ranks must share a host).
//
// Usage: mpiexec -n N shim-vcollectives [--quick]   (--quick: MPI_INT only)
#include <mpi.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <numeric>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "forms.hpp"
#include "harness.hpp"

using namespace shim_test;  // NOLINT: the forms of the collectives and the harness

namespace {

std::string where(const Comm& c, const char* coll, const char* type, std::size_t base, bool ip,
                  bool gaps) {
  std::ostringstream s;
  s << coll << form_name() << " " << type << " counts from " << base
    << (ip ? " in place" : " out of place") << (gaps ? " with gaps" : " packed") << " on " << c.name
    << " (rank " << c.rank << " of " << c.size << ")";
  return s.str();
}

constexpr std::size_t guard = 3;
template <class T>
T sentinel() {
  return static_cast<T>(77);
}
// Element k of the block rank `from` sends to rank `to`.
template <class T>
T payload(int from, int to, std::size_t k) {
  return static_cast<T>(
      (static_cast<std::size_t>(from) * 131 + static_cast<std::size_t>(to) * 17 + k) % 251);
}

// Per-rank counts from `base`: they differ, and some are zero.
int count_of(std::size_t base, int r) {
  if (base == 0 || r % 3 == 1) return 0;
  return static_cast<int>(base) + r;
}

// Displacements: packed, or the blocks in reverse rank order with a one-element gap before each.
// Returns the elements the layout spans.
std::size_t layout(const std::vector<int>& counts, bool gaps, std::vector<int>& displs) {
  const std::size_t n = counts.size();
  displs.assign(n, 0);
  int at = 0;
  if (!gaps) {
    for (std::size_t r = 0; r < n; ++r) {
      displs[r] = at;
      at += counts[r];
    }
  } else {
    for (std::size_t r = n; r-- > 0;) {
      displs[r] = at + 1;
      at += counts[r] + 1;
    }
  }
  return static_cast<std::size_t>(at);
}

// Checks that `buf` holds `want(b, k)` in block b (counts, displs) and the sentinel elsewhere.
template <class T, class Want>
void check_blocks(const std::vector<T>& buf, const std::vector<int>& counts,
                  const std::vector<int>& displs, Want&& want, const std::string& w) {
  std::vector<bool> covered(buf.size(), false);
  for (std::size_t b = 0; b < counts.size(); ++b)
    for (int k = 0; k < counts[b]; ++k) {
      const std::size_t at = static_cast<std::size_t>(displs[b]) + static_cast<std::size_t>(k);
      covered[at] = true;
      if (buf[at] != want(b, static_cast<std::size_t>(k)))
        return expect(
            false, w + ": wrong element " + std::to_string(k) + " of block " + std::to_string(b));
    }
  for (std::size_t i = 0; i < buf.size(); ++i)
    if (!covered[i] && buf[i] != sentinel<T>())
      return expect(false, w + ": wrote outside the blocks (element " + std::to_string(i) + ")");
  expect(true, w);
}

template <class T>
void allgatherv(const Comm& c, MPI_Datatype dt, const char* tn, std::size_t base, bool ip,
                bool gaps) {
  const std::string w = where(c, "MPI_Allgatherv", tn, base, ip, gaps);
  const auto n = static_cast<std::size_t>(c.size), me = static_cast<std::size_t>(c.rank);
  std::vector<int> counts(n), displs;
  for (std::size_t r = 0; r < n; ++r) counts[r] = count_of(base, static_cast<int>(r));
  std::vector<T> out(layout(counts, gaps, displs) + guard, sentinel<T>());
  std::vector<T> in(static_cast<std::size_t>(counts[me]));
  for (std::size_t k = 0; k < in.size(); ++k) in[k] = payload<T>(c.rank, 0, k);
  const std::vector<T> orig = in;
  int rc;
  if (ip) {
    std::copy(in.begin(), in.end(), out.begin() + displs[me]);
    rc = Allgatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, out.data(), counts.data(), displs.data(),
                    dt, c.comm);  // sendcount and sendtype are ignored in place
  } else {
    rc =
        Allgatherv(in.data(), counts[me], dt, out.data(), counts.data(), displs.data(), dt, c.comm);
  }
  expect(rc == MPI_SUCCESS, w + ": returned " + std::to_string(rc));
  expect(in == orig, w + ": send buffer modified");
  check_blocks(
      out, counts, displs,
      [](std::size_t b, std::size_t k) { return payload<T>(static_cast<int>(b), 0, k); }, w);
}

template <class T>
T element(int r, std::size_t i, MPI_Op op) {
  if (op == MPI_MAX) return static_cast<T>((static_cast<std::size_t>(r) * 53 + i * 7) % 97);
  return static_cast<T>((static_cast<std::size_t>(r) + 1) * (i % 13 + 1));
}
template <class T>
T combine(T a, T b, MPI_Op op) {
  if (op == MPI_MAX) return a < b ? b : a;
  if constexpr (std::is_integral_v<T>)
    if (op == MPI_BXOR) return static_cast<T>(a ^ b);
  return static_cast<T>(a + b);
}

template <class T>
void reduce_scatter(const Comm& c, MPI_Datatype dt, const char* tn, MPI_Op op, std::size_t base,
                    bool ip) {
  const std::string w = where(c, "MPI_Reduce_scatter", tn, base, ip, false);
  const auto n = static_cast<std::size_t>(c.size), me = static_cast<std::size_t>(c.rank);
  std::vector<int> counts(n);
  for (std::size_t r = 0; r < n; ++r) counts[r] = count_of(base, static_cast<int>(r));
  const auto total = static_cast<std::size_t>(std::accumulate(counts.begin(), counts.end(), 0));
  const auto first = static_cast<std::size_t>(
      std::accumulate(counts.begin(), counts.begin() + static_cast<std::ptrdiff_t>(me), 0));
  const auto mine = static_cast<std::size_t>(counts[me]);
  std::vector<T> in(total);
  for (std::size_t i = 0; i < total; ++i) in[i] = element<T>(c.rank, i, op);
  const std::vector<T> orig = in;
  std::vector<T> out(ip ? total + guard : mine + guard, sentinel<T>());
  int rc;
  if (ip) {
    std::copy(in.begin(), in.end(), out.begin());
    rc = Reduce_scatter(MPI_IN_PLACE, out.data(), counts.data(), dt, op, c.comm);
  } else {
    rc = Reduce_scatter(in.data(), out.data(), counts.data(), dt, op, c.comm);
    expect(in == orig, w + ": send buffer modified");
  }
  expect(rc == MPI_SUCCESS, w + ": returned " + std::to_string(rc));
  for (std::size_t i = 0; i < mine; ++i) {
    T want = element<T>(0, first + i, op);
    for (int r = 1; r < c.size; ++r) want = combine(want, element<T>(r, first + i, op), op);
    if (out[i] != want) return expect(false, w + ": wrong element " + std::to_string(i));
  }
  const std::size_t end = ip ? total : mine;  // in place, the rest of the input is undefined
  for (std::size_t i = end; i < out.size(); ++i)
    if (out[i] != sentinel<T>()) return expect(false, w + ": wrote past the output");
  expect(true, w);
}

// Element counts from rank i to rank j; symmetric ones for in place (MPI requires them there).
int pair_count(std::size_t base, int i, int j, bool symmetric) {
  if (base == 0) return 0;
  if (symmetric) return static_cast<int>(base) + (i + j) % 3;
  if ((i + 3 * j) % 4 == 3) return 0;
  return static_cast<int>(base) + (i + 2 * j) % 3;
}

template <class T>
void alltoallv(const Comm& c, MPI_Datatype dt, const char* tn, std::size_t base, bool ip,
               bool gaps) {
  const std::string w = where(c, "MPI_Alltoallv", tn, base, ip, gaps);
  const auto n = static_cast<std::size_t>(c.size);
  std::vector<int> sc(n), rc_(n), sd, rd;
  for (std::size_t j = 0; j < n; ++j) {
    sc[j] = pair_count(base, c.rank, static_cast<int>(j), ip);
    rc_[j] = pair_count(base, static_cast<int>(j), c.rank, ip);
  }
  // The send side packed where the receive side has gaps, and the other way round.
  std::vector<T> in(layout(sc, !gaps, sd), sentinel<T>());
  std::vector<T> out(layout(rc_, gaps, rd) + guard, sentinel<T>());
  for (std::size_t j = 0; j < n; ++j)
    for (int k = 0; k < sc[j]; ++k)
      in[static_cast<std::size_t>(sd[j]) + static_cast<std::size_t>(k)] =
          payload<T>(c.rank, static_cast<int>(j), static_cast<std::size_t>(k));
  const std::vector<T> orig = in;
  int rc;
  if (ip) {  // the input blocks at the receive layout
    for (std::size_t j = 0; j < n; ++j)
      for (int k = 0; k < rc_[j]; ++k)
        out[static_cast<std::size_t>(rd[j]) + static_cast<std::size_t>(k)] =
            payload<T>(c.rank, static_cast<int>(j), static_cast<std::size_t>(k));
    rc = Alltoallv(MPI_IN_PLACE, nullptr, nullptr, MPI_DATATYPE_NULL, out.data(), rc_.data(),
                   rd.data(), dt, c.comm);
  } else {
    rc = Alltoallv(in.data(), sc.data(), sd.data(), dt, out.data(), rc_.data(), rd.data(), dt,
                   c.comm);
    expect(in == orig, w + ": send buffer modified");
  }
  expect(rc == MPI_SUCCESS, w + ": returned " + std::to_string(rc));
  const int me = c.rank;
  check_blocks(
      out, rc_, rd,
      [me](std::size_t b, std::size_t k) { return payload<T>(static_cast<int>(b), me, k); }, w);
}

// Passed through (counts significant at the root only); checked all the same.
void gatherv_scatterv(const Comm& c, bool ip) {
  const auto n = static_cast<std::size_t>(c.size);
  const int root = c.size - 1;
  const bool at_root = c.rank == root;
  std::vector<int> counts(n), displs;
  for (std::size_t r = 0; r < n; ++r) counts[r] = count_of(5, static_cast<int>(r));
  std::vector<int> all(at_root ? layout(counts, true, displs) + guard : 0, sentinel<int>());
  std::vector<int> mine(static_cast<std::size_t>(counts[static_cast<std::size_t>(c.rank)]));
  for (std::size_t k = 0; k < mine.size(); ++k) mine[k] = payload<int>(c.rank, 0, k);
  std::string w = where(c, "MPI_Gatherv", "MPI_INT", 5, ip && at_root, true);
  int rc;
  if (ip && at_root) {
    std::copy(mine.begin(), mine.end(), all.begin() + displs[static_cast<std::size_t>(root)]);
    rc = Gatherv(MPI_IN_PLACE, -1, MPI_DATATYPE_NULL, all.data(), counts.data(), displs.data(),
                 MPI_INT, root, c.comm);
  } else {
    rc = Gatherv(mine.data(), static_cast<int>(mine.size()), MPI_INT, all.data(),
                 at_root ? counts.data() : nullptr, at_root ? displs.data() : nullptr, MPI_INT,
                 root, c.comm);
  }
  expect(rc == MPI_SUCCESS, w + ": returned " + std::to_string(rc));
  if (at_root)
    check_blocks(
        all, counts, displs,
        [](std::size_t b, std::size_t k) { return payload<int>(static_cast<int>(b), 0, k); }, w);
  w = where(c, "MPI_Scatterv", "MPI_INT", 5, ip && at_root, true);
  std::vector<int> got(mine.size() + guard, sentinel<int>());
  if (ip && at_root)
    rc = Scatterv(all.data(), counts.data(), displs.data(), MPI_INT, MPI_IN_PLACE, -1,
                  MPI_DATATYPE_NULL, root, c.comm);
  else
    rc = Scatterv(all.data(), at_root ? counts.data() : nullptr, at_root ? displs.data() : nullptr,
                  MPI_INT, got.data(), static_cast<int>(mine.size()), MPI_INT, root, c.comm);
  expect(rc == MPI_SUCCESS, w + ": returned " + std::to_string(rc));
  if (!(ip && at_root))
    for (std::size_t k = 0; k < got.size(); ++k)
      expect(got[k] == (k < mine.size() ? mine[k] : sentinel<int>()),
             w + ": element " + std::to_string(k));
}

// No rank leaves before the last one entered: rank 0 enters late and tells its entry time
// afterwards. The ranks must share a host: std::chrono::steady_clock is then one clock (Linux's
// CLOCK_MONOTONIC; Open MPI's MPI_Wtime counts from each process's MPI_Init).
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
void barrier(const Comm& c) {
  const std::string w = std::string("MPI_Barrier") + form_name() + " on " + c.name;
  double entered = 0;
  if (c.rank == 0) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    entered = now();
  }
  expect(Barrier(c.comm) == MPI_SUCCESS, w + ": returned an error");
  const double left = now();
  PMPI_Bcast(&entered, 1, MPI_DOUBLE, 0, c.comm);
  expect(left >= entered, w + ": left before rank 0 entered");
}

template <class T>
struct Type {
  using type = T;
  MPI_Datatype dt;
  const char* name;
};

template <class F>
void for_each_type(F&& f) {
  f(Type<int>{MPI_INT, "MPI_INT"});
  if (quick) return;
  f(Type<double>{MPI_DOUBLE, "MPI_DOUBLE"});
  f(Type<std::uint8_t>{MPI_UINT8_T, "MPI_UINT8_T"});
}

void run(const Comm& c) {
  const std::vector<std::size_t> bases = {0, 1, 301};
  for_each_type([&](auto t) {
    using T = typename decltype(t)::type;
    for (const std::size_t base : bases)
      for (const bool ip : {false, true})
        for (const bool gaps : {false, true}) {
          allgatherv<T>(c, t.dt, t.name, base, ip, gaps);
          alltoallv<T>(c, t.dt, t.name, base, ip, gaps);
        }
  });
  for (const std::size_t base : bases)
    for (const bool ip : {false, true}) {
      reduce_scatter<int>(c, MPI_INT, "MPI_INT SUM", MPI_SUM, base, ip);
      reduce_scatter<int>(c, MPI_INT, "MPI_INT BXOR", MPI_BXOR, base, ip);
      if (quick) continue;
      reduce_scatter<double>(c, MPI_DOUBLE, "MPI_DOUBLE SUM", MPI_SUM, base, ip);
      reduce_scatter<unsigned>(c, MPI_UNSIGNED, "MPI_UNSIGNED MAX", MPI_MAX, base, ip);
    }
  for (const bool ip : {false, true}) gatherv_scatterv(c, ip);
  barrier(c);
}

}  // namespace

int main(int argc, char** argv) {
  const int world_size = start(&argc, &argv);
  const int odd = world_size % 2 ? world_size : world_size - 1;

  for (const Form f : {Form::blocking, Form::nonblocking, Form::persistent}) {
    if (f == Form::persistent && !have_persistent) continue;
    form = f;
    MPI_Comm split, dup;
    MPI_Comm_split(MPI_COMM_WORLD, world_rank < odd ? 0 : 1, world_size - world_rank, &split);
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    run(describe(MPI_COMM_WORLD, "MPI_COMM_WORLD"));
    run(describe(split, "split (odd size, reversed)"));
    run(describe(dup, "dup of MPI_COMM_WORLD"));
    run(describe(MPI_COMM_SELF, "MPI_COMM_SELF"));
    MPI_Comm_free(&split);
    MPI_Comm_free(&dup);
  }

  const int status = verdict("shim-vcollectives", world_size);
  MPI_Finalize();
  return status;
}
