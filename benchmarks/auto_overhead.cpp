// cclx-auto-overhead: the per-call cost of algo::Auto's decision once it is made, for callgrind.
// Runs `iterations` 8-byte allreduces with the given policy; the difference in instructions
// between two iteration counts, divided by the difference in calls, is the cost per call
// (docs/tuning.md has the commands and the numbers).
//
//   valgrind --tool=callgrind mpiexec -n 1 cclx-auto-overhead auto 1000
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <vector>

#include "cclx/cclx.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: cclx-auto-overhead native|auto ITERATIONS\n");
    return 2;
  }
  const std::string_view policy = argv[1];
  const long iterations = std::atol(argv[2]);
  MPI_Init(&argc, &argv);
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    std::vector<double> x(1, 1.0);
    for (long i = 0; i < iterations; ++i) {
      if (policy == "auto")
        comm.allreduce(x, cclx::sum, cclx::algo::Auto{});
      else
        comm.allreduce(x, cclx::sum);
    }
    std::printf("%s: %ld calls, x = %g\n", argv[1], iterations, x[0]);
  }
  MPI_Finalize();
  return 0;
}
