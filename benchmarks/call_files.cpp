// cclx-call-files: one measured allreduce of 16 Ki floats (sum, in place), for counting with
// callgrind which of cclx's source files the call runs code from (benchmarks/call_files.sh).
//
//   cclx-call-files first_ring | repeat_ring | first_auto
//
// first_ring: the communicator's first call with algo::Ring; repeat_ring: its second one, after
// one warm-up call (made through first_ring); first_auto: the communicator's first call with
// algo::Auto. Each measured call is the whole of an extern "C" function of that name, kept out of
// line, so that `valgrind --tool=callgrind --toggle-collect=NAME` collects exactly that call.
// Every rank runs the same case; the exit status is 1 when the sums are wrong, 2 on a bad
// command line (--help lists the cases).
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "cclx/cclx.hpp"
#include "cli.hpp"

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
  using Case = void (*)(cclx::Communicator<>&, std::vector<float>&);
  Case measured = nullptr;
  cclx::kit::App app("cclx-call-files",
                     "One measured allreduce of 16 Ki floats, for benchmarks/call_files.sh to "
                     "count with callgrind which of cclx's source files it runs code from. Run "
                     "under mpiexec, every rank with the same case.");
  cclx::kit::add_choice<Case>(
      app, "case", measured,
      {{"first_ring", first_ring}, {"repeat_ring", repeat_ring}, {"first_auto", first_auto}},
      "the call to measure")
      ->required();
  if (const auto rc = cclx::kit::parse_mpi(app, argc, argv)) return *rc;
  int rc = 0;
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    // Ones on every rank: each element of a sum is the number of ranks.
    std::vector<float> buf(16384, 1.0f);
    if (measured == repeat_ring) {  // its warm-up call
      first_ring(comm, buf);
      buf.assign(buf.size(), 1.0f);
    }
    measured(comm, buf);
    for (const float x : buf)
      if (x != static_cast<float>(comm.size())) rc = 1;
  }
  MPI_Finalize();
  return rc;
}
