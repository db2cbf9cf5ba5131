// The time per MPI_Allreduce call (double, MPI_SUM) for a few sizes: the minimum over 7 runs of
// the mean over many calls, the slowest rank's. Built without cclx, so that it measures MPI alone
// or, with libcclx-mpi.so preloaded, MPI through the library (docs/preload-testing.md,
// "Measurements"):
//   mpiexec -n 1 build/tests/shim/shim-overhead
//   mpiexec -n 1 -genv LD_PRELOAD=$PWD/build/shim/libcclx-mpi.so build/tests/shim/shim-overhead
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  // --nonblocking: MPI_Iallreduce + MPI_Wait (the library's request table and generalized
  // request); --persistent (MPI 4): one MPI_Allreduce_init, then MPI_Start + MPI_Wait per call.
  const std::string form = argc > 1 ? argv[1] : "";
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  for (const std::size_t bytes : {8ul, 1024ul, 65536ul, 1ul << 20, 16ul << 20}) {
    const std::size_t n = bytes / sizeof(double);
    std::vector<double> a(n, 1.0), b(n);
    const int iters = bytes <= 1024 ? 5000 : bytes <= 65536 ? 500 : bytes <= (1 << 20) ? 50 : 6;
    double best = 1e30;
    MPI_Request r = MPI_REQUEST_NULL;
#if MPI_VERSION >= 4
    if (form == "--persistent")
      MPI_Allreduce_init(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD, MPI_INFO_NULL, &r);
#endif
    for (int rep = 0; rep < 7; ++rep) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      for (int i = 0; i < iters; ++i) {
        if (form == "--nonblocking") {
          MPI_Iallreduce(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                         MPI_COMM_WORLD, &r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else if (r != MPI_REQUEST_NULL) {
          MPI_Start(&r);
          MPI_Wait(&r, MPI_STATUS_IGNORE);
        } else {
          MPI_Allreduce(a.data(), b.data(), static_cast<int>(n), MPI_DOUBLE, MPI_SUM,
                        MPI_COMM_WORLD);
        }
      }
      const double t = (MPI_Wtime() - t0) / iters;
      double slowest = 0;
      PMPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
      best = std::min(best, slowest);
    }
    if (r != MPI_REQUEST_NULL) MPI_Request_free(&r);
    if (rank == 0) std::printf("%10zu B  %10.3f us\n", bytes, best * 1e6);
  }
  MPI_Finalize();
  return 0;
}
