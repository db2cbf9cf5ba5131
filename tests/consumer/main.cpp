// Built against an installed cclx; run under mpiexec by the consumer test.
#include <cclx/cclx.hpp>
#include <cstdio>
#include <vector>

static_assert(CCLX_VERSION_MAJOR >= 0 && CCLX_VERSION_NUMBER >= 100, "cclx/version.hpp");

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    std::vector<long> v(1000, comm.rank() + 1);
    comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
    const long expect = static_cast<long>(comm.size()) * (comm.size() + 1) / 2;
    for (long x : v) rc |= x != expect;
    if (comm.rank() == 0)
      std::printf("consumer (cclx %s): %s\n", CCLX_VERSION, rc ? "WRONG" : "ok");
  }
  MPI_Finalize();
  return rc;
}
