// cclx-call-files: one measured allreduce of 16 Ki floats (sum, in place), for counting with
// callgrind which of cclx's source files the call runs code from (benchmarks/call_files.sh).
//
//   cclx-call-files first_ring | repeat_ring | first_auto
//
// first_ring: the communicator's first call with algo::Ring; repeat_ring: its second one, after
// one warm-up call (made through first_ring); first_auto: the communicator's first call with
// algo::Auto. Each measured call is the whole of an extern "C" function of that name, kept out of
// line, so that `valgrind --tool=callgrind --toggle-collect=NAME` collects exactly that call.
// Every rank runs the same case; the exit status is 1 when the sums are wrong, 2 on a bad case.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cclx/cclx.hpp"

// Out of line and, under GCC, kept out of interprocedural optimisation: identical bodies
// (first_ring, repeat_ring) are not folded into one symbol.
#if defined(__GNUC__) && !defined(__clang__)
#define CCLX_MEASURED __attribute__((noinline, noipa))
#else
#define CCLX_MEASURED __attribute__((noinline))
#endif

extern "C" {

CCLX_MEASURED void first_ring(cclx::Communicator<>& comm, std::vector<float>& buf) {
  comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
}

CCLX_MEASURED void repeat_ring(cclx::Communicator<>& comm, std::vector<float>& buf) {
  comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
}

CCLX_MEASURED void first_auto(cclx::Communicator<>& comm, std::vector<float>& buf) {
  comm.allreduce(buf, cclx::sum, cclx::algo::Auto{});
}

}  // extern "C"

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rc = 0;
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    const std::string which = argc > 1 ? argv[1] : "";
    // Ones on every rank: each element of a sum is the number of ranks.
    std::vector<float> buf(16384, 1.0f);
    if (which == "first_ring") {
      first_ring(comm, buf);
    } else if (which == "repeat_ring") {
      first_ring(comm, buf);
      buf.assign(buf.size(), 1.0f);
      repeat_ring(comm, buf);
    } else if (which == "first_auto") {
      first_auto(comm, buf);
    } else {
      if (comm.rank() == 0)
        std::fprintf(stderr, "usage: cclx-call-files first_ring|repeat_ring|first_auto\n");
      rc = 2;
    }
    if (rc == 0)
      for (const float x : buf)
        if (x != static_cast<float>(comm.size())) rc = 1;
  }
  MPI_Finalize();
  return rc;
}
