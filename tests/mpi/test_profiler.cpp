// The link profiler under MPI (topology/profiler.hpp): every pair once, the same result on every
// rank, and the links probe's count within its bounds on emulated hosts (two halves of the ranks).
// The machine's shared memory is no network, so the count itself is not checked; the testbed's
// runs are (docs/hierarchical.md).
#include <doctest/doctest.h>
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "cclx/error.hpp"
#include "cclx/topology/profiler.hpp"
#include "support.hpp"

TEST_CASE("profiler: pairs, host-aware rounds and the links probe on emulated hosts") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  cclx::topo::ProfileOptions opt;
  opt.sizes = {8, 1024};
  opt.budget_s = 0.05;
  opt.min_reps = 1;
  opt.max_reps = 2;
  opt.burst = 0;
  opt.links_bytes = 64 << 10;
  opt.links_reps = 1;
  // Two emulated hosts: the first half of the ranks and the rest.
  for (int q = 0; q < n; ++q) opt.hosts.push_back(q < (n + 1) / 2 ? 0 : 1);
  const cclx::topo::Profile p = cclx::topo::profile_links(MPI_COMM_WORLD, opt);
  CHECK(p.nranks == n);
  if (r == 0) CHECK(p.pairs.size() == static_cast<std::size_t>(n * (n - 1) / 2));
  const int smaller = n / 2;  // the second half's ranks
  if (smaller >= 2) {
    CHECK(p.links_per_host >= 1);
    CHECK(p.links_per_host <= smaller);
  } else {
    CHECK(p.links_per_host == 0);  // a host with one rank: nothing to compare
  }
  int mine = p.links_per_host, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi);
  // A host map of another rank count is refused on every rank, before any message.
  opt.hosts.push_back(0);
  CHECK_THROWS_AS((void)cclx::topo::profile_links(MPI_COMM_WORLD, opt), cclx::Error);
}
