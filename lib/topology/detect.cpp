#include "cclx/topology/detect.hpp"

#include <map>

#include "cclx/error.hpp"

namespace cclx::topo {

namespace {
void detect_check(int rc, const char* what) {
  if (rc != MPI_SUCCESS) throw Error(std::string("detect_hosts: ") + what + " failed");
}
}  // namespace

HostMap detect_hosts(MPI_Comm comm) {
  int rank = 0, size = 0;
  detect_check(MPI_Comm_rank(comm, &rank), "MPI_Comm_rank");
  detect_check(MPI_Comm_size(comm, &size), "MPI_Comm_size");

  // The shared-memory group's lowest rank (in comm) identifies the host.
  MPI_Comm shared = MPI_COMM_NULL;
  detect_check(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &shared),
               "MPI_Comm_split_type");
  int leader = rank;
  detect_check(MPI_Allreduce(MPI_IN_PLACE, &leader, 1, MPI_INT, MPI_MIN, shared), "MPI_Allreduce");
  MPI_Comm_free(&shared);
  std::vector<int> leaders(static_cast<std::size_t>(size));
  detect_check(MPI_Allgather(&leader, 1, MPI_INT, leaders.data(), 1, MPI_INT, comm),
               "MPI_Allgather");

  char name[MPI_MAX_PROCESSOR_NAME] = {};
  int len = 0;
  detect_check(MPI_Get_processor_name(name, &len), "MPI_Get_processor_name");
  std::vector<char> names(static_cast<std::size_t>(size) * MPI_MAX_PROCESSOR_NAME);
  detect_check(MPI_Allgather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names.data(),
                             MPI_MAX_PROCESSOR_NAME, MPI_CHAR, comm),
               "MPI_Allgather");

  HostMap m;
  std::map<int, int> host_of_leader;
  std::map<std::string, int> seen;  // two groups on one hostname (containers): disambiguate
  for (int r = 0; r < size; ++r) {
    const int l = leaders[static_cast<std::size_t>(r)];
    auto it = host_of_leader.find(l);
    if (it == host_of_leader.end()) {
      std::string h(names.data() + static_cast<std::size_t>(l) * MPI_MAX_PROCESSOR_NAME);
      if (const int k = seen[h]++; k > 0) h.append(1, '#').append(std::to_string(k));
      it = host_of_leader.emplace(l, static_cast<int>(m.host_names.size())).first;
      m.host_names.push_back(std::move(h));
    }
    m.host_of_rank.push_back(it->second);
  }
  return m;
}

Topology detect(MPI_Comm comm, const Hierarchy& costs) {
  const HostMap m = detect_hosts(comm);
  return hierarchical(m.host_of_rank, m.host_names, costs);
}

}  // namespace cclx::topo
