// Bad counts of the v-collectives: every case throws a cclx::Error that names the rank, the array
// and the problem, on every algorithm serving the collective. Without validation the bad input is
// given on every rank (as in test_errors.cpp); with CCLX_VALIDATE, counts that differ across
// ranks (or alltoallv's sendcounts and recvcounts that do not pair up) make EVERY rank throw.
#include <doctest/doctest.h>

#include <numeric>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

std::size_t sum(const std::vector<int>& c) {
  return static_cast<std::size_t>(std::accumulate(c.begin(), c.end(), 0));
}

// counts[r] = r % 3 + 1: nonzero everywhere, uneven.
std::vector<int> good_counts(int n) {
  std::vector<int> c(static_cast<std::size_t>(n));
  for (int r = 0; r < n; ++r) c[static_cast<std::size_t>(r)] = r % 3 + 1;
  return c;
}

// After an error the communicator must still work.
void still_gathers(Comm& comm, const std::string& after) {
  const int n = comm.size();
  const std::vector<int> c = good_counts(n);
  std::vector<int> in(static_cast<std::size_t>(c[static_cast<std::size_t>(comm.rank())]), 7);
  std::vector<int> out(sum(c), 0);
  no_throw("allgatherv after " + after, [&] { comm.allgatherv(in, out, c, cclx::algo::Ring{}); });
  CHECK_MESSAGE(out == std::vector<int>(sum(c), 7), "allgatherv after " << after);
}

}  // namespace

TEST_CASE("bad counts: a negative count") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  std::vector<int> c = good_counts(n);
  c[static_cast<std::size_t>(n - 1)] = -2;
  const std::string where = "counts[" + std::to_string(n - 1) + "] is -2";
  std::vector<float> in(4, 1.0f), out(16, 0.0f);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    expect_error("negative count, allgatherv " + std::string(name), r,
                 [&] { comm.allgatherv(in, out, c, a); }, {"allgatherv: ", where});
  });
  for_each_algorithm_serving<Coll::gatherv>([&](std::string_view name, const auto& a) {
    expect_error("negative count, gatherv " + std::string(name), r,
                 [&] { comm.gatherv(in, out, c, 0, a); }, {"gatherv: ", where});
  });
  for_each_algorithm_serving<Coll::scatterv>([&](std::string_view name, const auto& a) {
    expect_error("negative count, scatterv " + std::string(name), r,
                 [&] { comm.scatterv(out, c, 0, a); }, {"scatterv: ", where});
  });
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    expect_error("negative count, reduce_scatterv " + std::string(name), r,
                 [&] { comm.reduce_scatterv(out, in, c, cclx::sum, a); },
                 {"reduce_scatterv: ", where});
  });
  // alltoallv names the array: sendcounts or recvcounts.
  const std::vector<int> ones(static_cast<std::size_t>(n), 1);
  std::vector<long> neg(static_cast<std::size_t>(n), 1);
  neg[0] = -1;
  std::vector<float> nb(static_cast<std::size_t>(n), 1.0f), nb2(nb.size());
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    expect_error("negative sendcount, alltoallv " + std::string(name), r,
                 [&] { comm.alltoallv(nb, neg, nb2, ones, a); },
                 {"alltoallv: sendcounts[0] is -1"});
    expect_error("negative recvcount, alltoallv " + std::string(name), r,
                 [&] { comm.alltoallv(nb, ones, nb2, neg, a); },
                 {"alltoallv: recvcounts[0] is -1"});
  });
  still_gathers(comm, "negative counts");
}

TEST_CASE("bad counts: the wrong number of counts") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  std::vector<std::size_t> c(static_cast<std::size_t>(n) + 1, 1);  // size_t counts are accepted too
  const std::string what =
      "counts has " + std::to_string(n + 1) + " entries, expected " + std::to_string(n);
  std::vector<double> buf(static_cast<std::size_t>(n) + 1, 1.0);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    expect_error("counts length, allgatherv " + std::string(name), r,
                 [&] { comm.allgatherv(buf, c, a); }, {"allgatherv: ", what, "one per rank"});
  });
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    expect_error("counts length, reduce_scatterv " + std::string(name), r,
                 [&] { comm.reduce_scatterv(buf, c, cclx::max, a); }, {"reduce_scatterv: ", what});
  });
  std::vector<int> short_counts(static_cast<std::size_t>(n) - 1, 1);
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    expect_error("counts length, alltoallv " + std::string(name), r,
                 [&] { comm.alltoallv(buf, short_counts, a); },
                 {"alltoallv: recvcounts has " + std::to_string(n - 1) + " entries"});
  });
  still_gathers(comm, "wrong counts length");
}

TEST_CASE("bad counts: buffers whose size does not match the counts") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> c = good_counts(n);
  const std::size_t total = sum(c), own = static_cast<std::size_t>(c[static_cast<std::size_t>(r)]);
  const std::string own_is =
      "counts[" + std::to_string(r) + "] (this rank's block) is " + std::to_string(own);
  std::vector<int> in(own), out(total), wrong(total + 1);
  std::vector<int> small(own + 1);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    const std::string l = "size, allgatherv " + std::string(name);
    expect_error(l + " output", r, [&] { comm.allgatherv(in, wrong, c, a); },
                 {"allgatherv: the output has " + std::to_string(total + 1) +
                  " elements but the counts sum to " + std::to_string(total)});
    expect_error(
        l + " input", r, [&] { comm.allgatherv(small, out, c, a); },
        {"allgatherv: the input has " + std::to_string(own + 1) + " elements but " + own_is});
    expect_error(l + " in place", r, [&] { comm.allgatherv(wrong, c, a); },
                 {"allgatherv: the in-place buffer has"});
  });
  for_each_algorithm_serving<Coll::gatherv>([&](std::string_view name, const auto& a) {
    // The root's output must hold the blocks; the others' output is not looked at.
    const int root = n - 1;
    std::vector<int> root_out(r == root ? total + 1 : 0);
    if (r == root)
      expect_error("size, gatherv root output " + std::string(name), r,
                   [&] { comm.gatherv(in, root_out, c, root, a); },
                   {"gatherv: the output has", "counts sum to " + std::to_string(total)});
    else
      expect_error("size, gatherv input " + std::string(name), r,
                   [&] { comm.gatherv(small, root_out, c, root, a); }, {"gatherv: ", own_is});
  });
  for_each_algorithm_serving<Coll::scatterv>([&](std::string_view name, const auto& a) {
    expect_error("size, scatterv output " + std::string(name), r,
                 [&] { comm.scatterv(out, small, c, 0, a); }, {"scatterv: the output", own_is});
  });
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    expect_error("size, reduce_scatterv input " + std::string(name), r,
                 [&] { comm.reduce_scatterv(wrong, in, c, cclx::sum, a); },
                 {"reduce_scatterv: the input has"});
  });
  // Alltoallv: a rank's block to itself must be the same size on both sides.
  std::vector<int> sc(static_cast<std::size_t>(n), 1), rc = sc;
  sc[static_cast<std::size_t>(r)] = 2;
  std::vector<int> a_in(static_cast<std::size_t>(n) + 1), a_out(static_cast<std::size_t>(n));
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    expect_error("alltoallv own block " + std::string(name), r,
                 [&] { comm.alltoallv(a_in, sc, a_out, rc, a); },
                 {"alltoallv: sendcounts[" + std::to_string(r) + "] is 2 but recvcounts[" +
                  std::to_string(r) + "] is 1"});
  });
  still_gathers(comm, "mismatched sizes");
}

TEST_CASE("bad counts: non-packed displacements need algo::Native") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const std::vector<int> c = good_counts(n);
  // One gap element before every block.
  std::vector<int> displs(static_cast<std::size_t>(n));
  int at = 0;
  for (int b = 0; b < n; ++b) {
    displs[static_cast<std::size_t>(b)] = at + 1;
    at += 1 + c[static_cast<std::size_t>(b)];
  }
  std::vector<int> in(static_cast<std::size_t>(c[static_cast<std::size_t>(r)]), r);
  std::vector<int> out(static_cast<std::size_t>(at), -1);
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    using A = std::decay_t<decltype(a)>;
    const std::string l = "displaced allgatherv " + std::string(name);
    if constexpr (is_native<A>) {
      no_throw(l, [&] { comm.allgatherv(in, out, c, cclx::Displs(displs), a); });
      CHECK_MESSAGE(out[0] == -1, l << ": the gap before block 0 was written");
    } else {
      expect_error(l, r, [&] { comm.allgatherv(in, out, c, cclx::Displs(displs), a); },
                   {"allgatherv: displs[0] is 1 but the packed layout puts block 0 at 0",
                    "non-packed displacements need algo::Native"});
    }
  });
  // Negative displacements are refused everywhere, native included.
  std::vector<int> negative = displs;
  negative[0] = -3;
  expect_error("negative displacement", r,
               [&] { comm.allgatherv(in, out, c, cclx::Displs(negative)); },
               {"allgatherv: displs[0] is -3"});
  // Displacements that reach past the buffer.
  std::vector<int> short_out(static_cast<std::size_t>(at) - 1);
  expect_error("displacements past the buffer", r,
               [&] { comm.allgatherv(in, short_out, c, cclx::Displs(displs)); },
               {"allgatherv: the output has " + std::to_string(at - 1) + " elements but block " +
                std::to_string(n - 1)});
  still_gathers(comm, "displacements");
}

TEST_CASE("validation: counts that differ across ranks make every rank throw") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  if (n == 1) return;
  // Rank n-1 moves one element from block 0 to block 1: same total, different counts.
  std::vector<int> c = good_counts(n);
  if (r == n - 1) {
    c[0] -= 1;
    c[1] += 1;
  }
  const std::size_t total = sum(c), own = static_cast<std::size_t>(c[static_cast<std::size_t>(r)]);
  std::vector<float> in(own, 1.0f), out(total);
  const std::string other = "rank " + std::to_string(n - 1) + " has [";
  for_each_algorithm_serving<Coll::allgatherv>([&](std::string_view name, const auto& a) {
    expect_error("differing counts, allgatherv " + std::string(name), r,
                 [&] { comm.allgatherv(in, out, c, a); },
                 {"allgatherv: ranks disagree (CCLX_VALIDATE)", "counts: rank 0 has [1,2", other});
  });
  for_each_algorithm_serving<Coll::gatherv>([&](std::string_view name, const auto& a) {
    expect_error("differing counts, gatherv " + std::string(name), r,
                 [&] { comm.gatherv(in, out, c, 0, a); },
                 {"gatherv: ranks disagree (CCLX_VALIDATE)", "counts:"});
  });
  for_each_algorithm_serving<Coll::reduce_scatterv>([&](std::string_view name, const auto& a) {
    expect_error("differing counts, reduce_scatterv " + std::string(name), r,
                 [&] { comm.reduce_scatterv(out, in, c, cclx::sum, a); },
                 {"reduce_scatterv: ranks disagree (CCLX_VALIDATE)", "counts:"});
  });
  still_gathers(comm, "differing counts");
}

TEST_CASE("validation: alltoallv's sendcounts and recvcounts must pair up") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  // m[i][j] = i + j + 1 elements from rank i to rank j, except that rank 0 says it sends 5 to the
  // last rank, which expects m[0][n-1] = n.
  std::vector<int> sc(static_cast<std::size_t>(n)), rc(sc.size());
  for (int j = 0; j < n; ++j) {
    sc[static_cast<std::size_t>(j)] = r + j + 1;
    rc[static_cast<std::size_t>(j)] = j + r + 1;
  }
  const bool liar = n > 1 && r == 0;
  if (liar) sc[static_cast<std::size_t>(n - 1)] = n + 4;
  std::vector<int> in(sum(sc)), out(sum(rc));
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    const std::string l = "alltoallv counts " + std::string(name);
    if (n == 1) {
      no_throw(l, [&] { comm.alltoallv(in, sc, out, rc, a); });
      return;
    }
    expect_error(l, r, [&] { comm.alltoallv(in, sc, out, rc, a); },
                 {"alltoallv: sendcounts and recvcounts disagree (CCLX_VALIDATE): rank 0 sends " +
                  std::to_string(n + 4) + " elements to rank " + std::to_string(n - 1) +
                  " (its sendcounts[" + std::to_string(n - 1) + "]), which expects " +
                  std::to_string(n) + " (recvcounts[0])"});
  });
  // In place, the one buffer's recvcounts are also what a rank sends: they must be symmetric.
  std::vector<int> sym(static_cast<std::size_t>(n));
  for (int j = 0; j < n; ++j) sym[static_cast<std::size_t>(j)] = r + j + 1;
  if (liar) sym[1] += 1;
  std::vector<int> buf(sum(sym));
  for_each_algorithm_serving<Coll::alltoallv>([&](std::string_view name, const auto& a) {
    const std::string l = "alltoallv in place counts " + std::string(name);
    if (n == 1) {
      no_throw(l, [&] { comm.alltoallv(buf, sym, a); });
      return;
    }
    expect_error(l, r, [&] { comm.alltoallv(buf, sym, a); },
                 {"sendcounts and recvcounts disagree (CCLX_VALIDATE)", "(its recvcounts["});
  });
  still_gathers(comm, "alltoallv counts");
}

}  // namespace cclx_test
