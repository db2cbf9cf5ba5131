// What the library did with each call, for CCLX_SHIM_REPORT and CCLX_LOG.
//
// Every intercepted call is counted once, under (collective, path, algorithm, reason):
//   path cclx         served by cclx; algorithm: the candidate algo::Auto chose and ran ("ring",
//                     "native", ...); reason: the CCLX_ALGO rule that chose it, "algo::Auto: "
//                     and the sources Auto consulted, or for alltoallv "no CCLX_ALGO rule (...)"
//                     or "fallback from <algorithm>: <why>" (policy.hpp)
//   path passthrough  handed to the MPI library unchanged; reason: why
//   path error        cclx raised an error, returned as an MPI error code
// At MPI_Finalize the counts of all ranks of MPI_COMM_WORLD are summed, and rank 0 writes them to
// CCLX_SHIM_REPORT (docs/preload.md shows the format). With CCLX_LOG=shim each rank prints a line
// to stderr the first time it counts a key; otherwise the library prints nothing.
#pragma once

#include <cstdint>
#include <string_view>

namespace cclx::shim {

enum class Path : std::uint8_t { cclx, passthrough, error };

void count(std::string_view collective, Path path, std::string_view algorithm,
           std::string_view reason);

// Collective over MPI_COMM_WORLD (called from MPI_Finalize, before the MPI library's).
void write_report();

}  // namespace cclx::shim
