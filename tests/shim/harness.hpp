// The harness of the shim's conformance tests: start() (MPI_Init, --quick), the communicators
// under test (describe()), the tally (expect() counts every check and logs this rank's first 25
// failures) and verdict(), which sums the counts over the ranks through PMPI (independent of the
// library under test), prints the log and, on rank 0, one summary line, and returns the exit
// status.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <utility>

namespace shim_test {

inline int world_rank = 0;
inline long long checks = 0, failures = 0;
inline std::ostringstream failure_log;
inline bool quick = false;  ///< --quick: fewer cases

// MPI_Init, this rank in world_rank and --quick in quick; returns the world's size.
inline int start(int* argc, char*** argv) {
  MPI_Init(argc, argv);
  for (int i = 1; i < *argc; ++i)
    if (std::string((*argv)[i]) == "--quick") quick = true;
  int world_size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  return world_size;
}

// One communicator under test.
struct Comm {
  MPI_Comm comm;
  std::string name;
  int rank = 0, size = 1;
};

inline Comm describe(MPI_Comm comm, std::string name) {
  Comm c{comm, std::move(name)};
  MPI_Comm_rank(comm, &c.rank);
  MPI_Comm_size(comm, &c.size);
  return c;
}

inline void expect(bool ok, const std::string& what) {
  ++checks;
  if (ok) return;
  if (failures++ < 25) failure_log << "rank " << world_rank << ": FAIL " << what << "\n";
}

// "shim-conformance: 4 ranks, 1234 checks, 0 failed"; 1 when any rank failed a check, else 0.
inline int verdict(const char* program, int world_size) {
  long long totals[2] = {checks, failures}, sums[2] = {0, 0};
  PMPI_Allreduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (failures) std::printf("%s", failure_log.str().c_str());
  if (world_rank == 0)
    std::printf("%s: %d ranks, %lld checks, %lld failed\n", program, world_size, sums[0], sums[1]);
  return sums[1] ? 1 : 0;
}

}  // namespace shim_test
