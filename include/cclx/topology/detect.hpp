// Topology detection from MPI: which ranks share a host. Hosts are the shared-memory groups of
// MPI_Comm_split_type(MPI_COMM_TYPE_SHARED), named by MPI_Get_processor_name of their first rank.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "cclx/topology/builders.hpp"

namespace cclx::topo {

/// Which ranks share a host, from MPI_Comm_split_type.
struct HostMap {
  std::vector<int> host_of_rank;        ///< by rank in the communicator
  std::vector<std::string> host_names;  ///< hosts numbered in order of their first rank
};

/// Collective over `comm`; every rank gets the same map.
[[nodiscard]] HostMap detect_hosts(MPI_Comm comm);
/// The detected hosts as a hierarchical topology with the given (guessed) costs.
[[nodiscard]] Topology detect(MPI_Comm comm, const Hierarchy& costs);

}  // namespace cclx::topo
