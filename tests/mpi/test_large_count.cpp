// More than 2^31 bytes in one call: the MPI-4 large-count functions where the MPI has them, and
// cclx's fallback (lib/backend/mpi_large_count.hpp) where it does not (Open MPI 4.1, or any MPI
// with -DCCLX_MPI_LARGE_COUNT=OFF). Opt-in: about 2 GiB per rank plus what the MPI allocates
// (MPICH's allreduce: another 2 GiB), so it runs only with CCLX_TEST_LARGE_COUNT=1
// (ctest -R large-count; the ctest entry reports "skipped" otherwise).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "support.hpp"

namespace {

using Comm = cclx::Communicator<>;

// Above INT_MAX elements of uint8, not a multiple of the fallback's 2^30 chunk.
constexpr std::size_t kCount = (std::size_t{1} << 31) + 4099;

std::uint8_t value(std::size_t i, int rank) {
  return static_cast<std::uint8_t>((i * 7) ^ (i >> 13) ^ static_cast<std::size_t>(rank * 31));
}

// Index of the first wrong element, or kCount.
template <class F>
std::size_t first_wrong(const std::vector<std::uint8_t>& v, F want) {
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] != want(i)) return i;
  return v.size();
}

}  // namespace

TEST_CASE("large count: allreduce, send/recv and bcast above 2^31 bytes") {
  const char* on = std::getenv("CCLX_TEST_LARGE_COUNT");
  Comm comm(MPI_COMM_WORLD);
  if (!on || std::strcmp(on, "1") != 0) {
    if (comm.rank() == 0) std::printf("large-count test skipped (set CCLX_TEST_LARGE_COUNT=1)\n");
    return;
  }
  const int n = comm.size(), r = comm.rank();
  std::vector<std::uint8_t> v(kCount);
  auto sum_want = [n](std::size_t i) {
    unsigned s = 0;
    for (int q = 0; q < n; ++q) s += value(i, q);
    return static_cast<std::uint8_t>(s);
  };
  auto fill = [&] {
    for (std::size_t i = 0; i < kCount; ++i) v[i] = value(i, r);
  };

  fill();
  cclx_test::progress("large count: native allreduce");
  comm.allreduce(v, cclx::sum, cclx::algo::Native{});
  CHECK(first_wrong(v, sum_want) == kCount);

  fill();
  cclx_test::progress("large count: ring allreduce");
  comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
  CHECK(first_wrong(v, sum_want) == kCount);

  if (n >= 2) {
    fill();
    cclx_test::progress("large count: send/recv");
    if (r == 0) comm.send(v, 1, 5);
    if (r == 1) comm.recv(v, 0, 5);
    if (r <= 1) CHECK(first_wrong(v, [](std::size_t i) { return value(i, 0); }) == kCount);
  }

  fill();
  cclx_test::progress("large count: native bcast");
  comm.bcast(v, n - 1, cclx::algo::Native{});
  CHECK(first_wrong(v, [n](std::size_t i) { return value(i, n - 1); }) == kCount);
  if (r == 0) std::printf("large-count test: %zu bytes per call on %d ranks: done\n", kCount, n);
}
