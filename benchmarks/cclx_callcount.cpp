// cclx-callcount: a loop of 8-byte float sum allreduces for counting instructions per call with
// callgrind (docs/results.md, "One-shot and persistent overhead"). Only the timed loop is
// collected; run the measured rank under callgrind and its peer natively, so that the peer is
// always ahead and the measured rank rarely spins waiting:
//
//   mpiexec -n 1 valgrind --tool=callgrind --collect-atstart=no cclx-callcount ring 2000
//           : -n 1 cclx-callcount ring 2000      (one command line)
//
// Instructions per call = callgrind's total / iterations. Modes: raw (MPI_Allreduce), native,
// ring (one-shot), auto (algo::Auto's choice), native-persistent, ring-persistent (start + wait of
// one request), and raw-2step (2 ranks: the two exchanges of a ring allreduce written as plain
// MPI_Irecv, MPI_Isend, MPI_Waitall and a local add: the floor of any 2-step schedule). Run
// natively it prints the time per call (rank 0, the loop's average), for the latency floor. A
// loaded machine can deschedule the peer and make the measured rank spin (more polls, more
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
#if __has_include("cclx/persistent.hpp")  // (this file also builds against cclx before them)
    cclx::PersistentRequest p;
#endif
    std::function<void()> call;
    if (mode == "raw")
      call = [&] {
        MPI_Allreduce(in.data(), out.data(), 2, MPI_FLOAT, MPI_SUM, comm.native_handle());
      };
    else if (mode == "raw-2step" && comm.size() == 2)
      call = [&, peer = 1 - comm.rank(), r = comm.rank()] {
        // Step 1: send my block r^1 to the peer, receive its copy of block r, reduce; step 2:
        // send my reduced block r, receive the reduced block r^1.
        float got = 0;
        MPI_Request q[2];
        const MPI_Comm c = comm.native_handle();
        MPI_Irecv(&got, 1, MPI_FLOAT, peer, 7, c, &q[0]);
        MPI_Isend(&in[static_cast<std::size_t>(peer)], 1, MPI_FLOAT, peer, 7, c, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        out[static_cast<std::size_t>(r)] = in[static_cast<std::size_t>(r)] + got;
        MPI_Irecv(&out[static_cast<std::size_t>(peer)], 1, MPI_FLOAT, peer, 7, c, &q[0]);
        MPI_Isend(&out[static_cast<std::size_t>(r)], 1, MPI_FLOAT, peer, 7, c, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      };
    else if (mode == "native")
      call = [&] { comm.allreduce(in, out, cclx::sum); };
    else if (mode == "ring")
      call = [&] { comm.allreduce(in, out, cclx::sum, cclx::algo::Ring{}); };
    else if (mode == "auto")  // algo::Auto: the decision's per-call cost (docs/tuning.md)
      call = [&] { comm.allreduce(in, out, cclx::sum, cclx::algo::Auto{}); };
#if __has_include("cclx/persistent.hpp")
    else if (mode == "native-persistent" || mode == "ring-persistent") {
      p = mode == "ring-persistent" ? comm.allreduce_init(in, out, cclx::sum, cclx::algo::Ring{})
                                    : comm.allreduce_init(in, out, cclx::sum);
      call = [&] {
        p.start();
        p.wait();
      };
    }
#endif
    else {
      if (comm.rank() == 0)
        std::fprintf(stderr,
                     "usage: cclx-callcount raw|raw-2step|native|ring|auto|native-persistent|"
                     "ring-persistent [iterations]\n");
      rc = 2;
    }
    if (call) {
      for (int i = 0; i < 200; ++i) call();  // warm: caches, plans, MPI's internals
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      CCLX_TOGGLE_COLLECT();
      for (long i = 0; i < iters; ++i) call();
      CCLX_TOGGLE_COLLECT();
      const double per_call = (MPI_Wtime() - t0) / static_cast<double>(iters);
      MPI_Barrier(MPI_COMM_WORLD);
      if (comm.rank() == 0) std::printf("%s: %.3f us per call\n", mode.c_str(), per_call * 1e6);
      if (out[0] != static_cast<float>(comm.size())) rc = 1;  // 1 + 1 + ...
    }
  }
  MPI_Finalize();
  return rc;
}
