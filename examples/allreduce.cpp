// The README's usage example, compiled so that it stays true:
//   mpiexec -n 4 build/examples/cclx-example-allreduce
#include <cclx/cclx.hpp>
#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    cclx::Communicator comm(MPI_COMM_WORLD);  // duplicates the communicator
    std::vector<float> grad(1 << 20, 1.0f);

    comm.allreduce(grad, cclx::sum, cclx::algo::Ring{});  // in place
    std::vector<float> out(grad.size());
    comm.allreduce(grad, out, cclx::max);  // out of place, native MPI
    comm.bcast(grad, /*root=*/0, cclx::algo::PipelinedTree{.segment_bytes = 256 << 10});

    cclx::Request r = comm.iallreduce(grad, cclx::sum, cclx::algo::RecursiveHalvingDoubling{});
    // ... overlap work ...
    r.wait();

    const float expect = static_cast<float>(comm.size()) * static_cast<float>(comm.size());
    for (float x : grad) rc |= x != expect;
    if (comm.rank() == 0) std::printf("allreduce example: %s (%g)\n", rc ? "WRONG" : "ok", grad[0]);
  } catch (const cclx::Error& e) {
    std::fprintf(stderr, "%s\n", e.what());
    rc = 1;
  }
  MPI_Finalize();
  return rc;
}
