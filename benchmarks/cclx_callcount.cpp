// cclx-callcount: a loop of 8-byte float sum allreduces for counting instructions per call with
// callgrind (docs/results.md, "One-shot and persistent overhead"). Only the timed loop is
// collected; run the measured rank under callgrind and its peer natively, so that the peer is
// always ahead and the measured rank rarely spins waiting:
//
//   mpiexec -n 1 valgrind --tool=callgrind --collect-atstart=no cclx-callcount ring 2000
//           : -n 1 cclx-callcount ring 2000      (one command line)
//
// Instructions per call = callgrind's total / iterations. Modes: raw (MPI_Allreduce), native,
// ring (one-shot), native-persistent, ring-persistent (start + wait of one request). A loaded
// machine can deschedule the peer and make the measured rank spin (more polls, more
// instructions): take the lowest of several runs; runs without such waits agree to within a few
// instructions per call.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "cclx/cclx.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CCLX_TOGGLE_COLLECT() CALLGRIND_TOGGLE_COLLECT
#else
#define CCLX_TOGGLE_COLLECT() (void)0
#endif

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    const std::string mode = argc > 1 ? argv[1] : "";
    const long iters = argc > 2 ? std::atol(argv[2]) : 1000;
    cclx::Communicator comm(MPI_COMM_WORLD);
    std::vector<float> in(2, 1.0f), out(2);
    cclx::PersistentRequest p;
    std::function<void()> call;
    if (mode == "raw")
      call = [&] {
        MPI_Allreduce(in.data(), out.data(), 2, MPI_FLOAT, MPI_SUM, comm.native_handle());
      };
    else if (mode == "native")
      call = [&] { comm.allreduce(in, out, cclx::sum); };
    else if (mode == "ring")
      call = [&] { comm.allreduce(in, out, cclx::sum, cclx::algo::Ring{}); };
    else if (mode == "native-persistent" || mode == "ring-persistent") {
      p = mode == "ring-persistent" ? comm.allreduce_init(in, out, cclx::sum, cclx::algo::Ring{})
                                    : comm.allreduce_init(in, out, cclx::sum);
      call = [&] {
        p.start();
        p.wait();
      };
    } else {
      if (comm.rank() == 0)
        std::fprintf(stderr,
                     "usage: cclx-callcount raw|native|ring|native-persistent|ring-persistent "
                     "[iterations]\n");
      rc = 2;
    }
    if (call) {
      for (int i = 0; i < 200; ++i) call();  // warm: caches, plans, MPI's internals
      MPI_Barrier(MPI_COMM_WORLD);
      CCLX_TOGGLE_COLLECT();
      for (long i = 0; i < iters; ++i) call();
      CCLX_TOGGLE_COLLECT();
      MPI_Barrier(MPI_COMM_WORLD);
      if (out[0] != static_cast<float>(comm.size())) rc = 1;  // 1 + 1 + ...
    }
  }
  MPI_Finalize();
  return rc;
}
