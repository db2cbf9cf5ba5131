// The shim tests' tally: expect() counts every check and logs this rank's first 25 failures;
// verdict() sums the counts over the ranks through PMPI (independent of the library under test),
// prints the log and, on rank 0, one summary line, and returns the exit status.
#pragma once

#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>

namespace shim_test {

inline int world_rank = 0;
inline long long checks = 0, failures = 0;
inline std::ostringstream failure_log;

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
