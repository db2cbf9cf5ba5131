// Regression tests for MPI-library bugs that cclx works around.
#include <doctest/doctest.h>

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
