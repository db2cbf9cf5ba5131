// The Python module cclx_torch._C: MPI's initialization and finalization, the launch environment
// torch's rendezvous reads (RANK, WORLD_SIZE, MASTER_ADDR, ... from MPI under mpiexec), and the
// creator of ProcessGroupCclx that cclx_torch registers as torch.distributed's "cclx" backend.
#include <mpi.h>
#include <netinet/in.h>
#include <pybind11/chrono.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>
#include <sys/socket.h>
#include <torch/python.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "process_group.hpp"

namespace py = pybind11;
using cclx::torch_backend::Comm;
using cclx::torch_backend::ProcessGroupCclx;

namespace {

bool initialized_mpi_here = false;

void init_mpi() {
  int done = 0;
  MPI_Initialized(&done);
  if (!done) {
    int provided = 0;
    MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
    initialized_mpi_here = true;
  }
}

void check_thread_level(int rank) {
  int provided = 0;
  MPI_Query_thread(&provided);
  if (provided < MPI_THREAD_MULTIPLE)
    throw cclx::Error(rank,
                      "the torch backend needs MPI_THREAD_MULTIPLE (MPI was initialized with "
                      "a lower thread level before cclx_torch was imported)");
}

// What torch's env:// rendezvous needs, from MPI: every rank gets rank 0's host name and a port
// free there.
py::dict launch_environment() {
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm local;
  MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &local);
  int local_rank = 0, local_size = 1;
  MPI_Comm_rank(local, &local_rank);
  MPI_Comm_size(local, &local_size);
  MPI_Comm_free(&local);
  std::array<char, 256> host{};
  int port = 0;
  if (rank == 0) {
    gethostname(host.data(), host.size() - 1);
    const int s = socket(AF_INET, SOCK_STREAM, 0);  // a port the kernel calls free, for the store
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_ANY);
    socklen_t len = sizeof addr;
    if (s >= 0 && bind(s, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 &&
        getsockname(s, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
      port = ntohs(addr.sin_port);
    if (s >= 0) close(s);
  }
  MPI_Bcast(host.data(), static_cast<int>(host.size()), MPI_CHAR, 0, MPI_COMM_WORLD);
  MPI_Bcast(&port, 1, MPI_INT, 0, MPI_COMM_WORLD);
  py::dict env;
  env["RANK"] = rank;
  env["WORLD_SIZE"] = size;
  env["LOCAL_RANK"] = local_rank;
  env["LOCAL_WORLD_SIZE"] = local_size;
  env["MASTER_ADDR"] = std::string(host.data());
  env["MASTER_PORT"] = port;
  return env;
}

// torch's group of `global_ranks` (its ranks in the default group, which are MPI_COMM_WORLD's;
// empty: the default group itself) as a cclx Communicator. Only the members call it.
std::unique_ptr<Comm> communicator(int group_rank, int group_size,
                                   const std::vector<int>& global_ranks,
                                   const std::string& group_id) {
  int world_rank = 0, world_size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);
  check_thread_level(world_rank);
  if (global_ranks.empty()) {
    if (group_rank != world_rank || group_size != world_size)
      throw cclx::Error(world_rank, "torch's rank " + std::to_string(group_rank) + " of " +
                                        std::to_string(group_size) + " is MPI's rank " +
                                        std::to_string(world_rank) + " of " +
                                        std::to_string(world_size) +
                                        ": launch with mpiexec and let cclx_torch set RANK and "
                                        "WORLD_SIZE (or set them to MPI's)");
    return std::make_unique<Comm>(MPI_COMM_WORLD);
  }
  if (static_cast<int>(global_ranks.size()) != group_size ||
      std::find(global_ranks.begin(), global_ranks.end(), world_rank) == global_ranks.end() ||
      global_ranks[static_cast<std::size_t>(group_rank)] != world_rank)
    throw cclx::Error(world_rank, "torch's group '" + group_id + "' does not match MPI's ranks");
  MPI_Group world, members;
  MPI_Comm_group(MPI_COMM_WORLD, &world);
  MPI_Group_incl(world, group_size, global_ranks.data(), &members);
  // The members agree on the tag: the group's name hashed (groups are created one at a time, in
  // the same order on every member).
  const int tag = static_cast<int>(std::hash<std::string>{}(group_id) % 32000U);
  MPI_Comm comm = MPI_COMM_NULL;
  const int rc = MPI_Comm_create_group(MPI_COMM_WORLD, members, tag, &comm);
  MPI_Group_free(&members);
  MPI_Group_free(&world);
  if (rc != MPI_SUCCESS || comm == MPI_COMM_NULL)
    throw cclx::Error(world_rank,
                      "MPI_Comm_create_group failed for torch's group '" + group_id + "'");
  auto out = std::make_unique<Comm>(comm, cclx::Ownership::duplicate);
  MPI_Comm_free(&comm);
  return out;
}

c10::intrusive_ptr<c10d::ProcessGroup> create(int group_rank, int group_size,
                                              std::chrono::milliseconds timeout,
                                              const std::vector<int>& global_ranks,
                                              const std::string& group_id) {
  return c10::make_intrusive<ProcessGroupCclx>(
      communicator(group_rank, group_size, global_ranks, group_id), timeout);
}

void finalize() {
  ProcessGroupCclx::shutdown_all();
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (initialized_mpi_here && !finalized) MPI_Finalize();
}

}  // namespace

PYBIND11_MODULE(_C, m) {
  m.doc() = "cclx's torch.distributed backend (import cclx_torch, not this module)";
  py::module_::import("torch.distributed");  // ProcessGroup's Python type
  init_mpi();
  m.def("launch_environment", &launch_environment,
        "RANK, WORLD_SIZE, LOCAL_RANK, LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT from MPI "
        "(collective over MPI_COMM_WORLD)");
  m.def("create", &create, py::arg("group_rank"), py::arg("group_size"), py::arg("timeout"),
        py::arg("global_ranks"), py::arg("group_id"),
        "A ProcessGroupCclx (torch.distributed's creator for backend 'cclx')",
        py::call_guard<py::gil_scoped_release>());
  m.def("finalize", &finalize, "Shuts every group down, then MPI_Finalize if cclx_torch began MPI",
        py::call_guard<py::gil_scoped_release>());
  m.def(
      "explain_allreduce",
      [](const c10::intrusive_ptr<c10d::ProcessGroup>& pg, std::size_t count) {
        auto* g = dynamic_cast<ProcessGroupCclx*>(pg.get());
        if (g == nullptr) throw cclx::Error("explain_allreduce: not a cclx process group");
        return g->explain_allreduce(count);
      },
      "What algo::Auto runs for a float32 allreduce of `count` elements on the group, and why",
      py::call_guard<py::gil_scoped_release>());
}
