// The MPI collectives libcclx-mpi serves. Each wrapper states MPI's semantics of its arguments
// (which are significant on which rank, what MPI_IN_PLACE means) and leaves the rest to
// shim::Call; anything it cannot serve exactly goes to the PMPI_ function unchanged.
#include <mpi.h>

#include "call.hpp"

using cclx::sched::Collective;
using cclx::shim::Call;

namespace {
void* in_place(const void* p) {
  return const_cast<void*>(p);  // MPI passes the in-place buffer as const where it is sendbuf
}
}  // namespace

extern "C" {

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm) {
  const auto pass = [&] { return PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm); };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::allreduce, comm);
  c.reduction(type, count, op);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  const bool ip = sendbuf == MPI_IN_PLACE;
  const auto n = static_cast<std::size_t>(count);
  c.buffers(ip ? recvbuf : sendbuf, recvbuf, ip, n, n);
  return c.finish(pass);
}

// The root's MPI_IN_PLACE reduces into recvbuf; elsewhere recvbuf is not significant.
int MPI_Reduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm) {
  const auto pass = [&] { return PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm); };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::reduce, comm);
  c.root(root);
  c.reduction(type, count, op);
  const auto n = static_cast<std::size_t>(count);
  if (c.ok() && c.is_root()) {
    const bool ip = sendbuf == MPI_IN_PLACE;
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    c.buffers(ip ? recvbuf : sendbuf, recvbuf, ip, n, n);
  } else {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    c.buffers(sendbuf, nullptr, false, n, 0);
  }
  return c.finish(pass);
}

int MPI_Bcast(void* buffer, int count, MPI_Datatype type, int root, MPI_Comm comm) {
  const auto pass = [&] { return PMPI_Bcast(buffer, count, type, root, comm); };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::bcast, comm);
  c.root(root);
  c.data(type, count);
  const auto n = static_cast<std::size_t>(count);
  c.buffers(buffer, buffer, true, n, n);
  return c.finish(pass);
}

// In place, recvbuf holds all n blocks of the input and the result goes to its first block.
int MPI_Reduce_scatter_block(const void* sendbuf, void* recvbuf, int recvcount, MPI_Datatype type,
                             MPI_Op op, MPI_Comm comm) {
  const auto pass = [&] {
    return PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm);
  };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::reduce_scatter, comm);
  c.reduction(type, recvcount, op);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  const auto n = static_cast<std::size_t>(recvcount);
  if (sendbuf == MPI_IN_PLACE)
    c.buffers(recvbuf, recvbuf, true, c.size() * n, c.size() * n);
  else
    c.buffers(sendbuf, recvbuf, false, c.size() * n, n);
  return c.finish(pass);
}

// In place, sendcount and sendtype are ignored and this rank's block is already at its place in
// recvbuf.
int MPI_Allgather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pass = [&] {
    return PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::allgather, comm);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  const auto rn = static_cast<std::size_t>(recvcount);
  if (sendbuf == MPI_IN_PLACE) {
    c.data(recvtype, recvcount);
    c.buffers(recvbuf, recvbuf, true, c.size() * rn, c.size() * rn);
  } else {
    const auto sn = static_cast<std::size_t>(sendcount);
    c.data(sendtype, sendcount);
    c.other_side(recvtype, recvcount, Call::Side::receive);
    c.buffers(sendbuf, recvbuf, false, sn, c.size() * sn);
  }
  return c.finish(pass);
}

// In place, sendcount and sendtype are ignored and recvbuf holds the input blocks.
int MPI_Alltoall(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm) {
  const auto pass = [&] {
    return PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm);
  };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::alltoall, comm);
  if (recvbuf == MPI_IN_PLACE) c.invalid();
  const auto rn = static_cast<std::size_t>(recvcount);
  if (sendbuf == MPI_IN_PLACE) {
    c.data(recvtype, recvcount);
    c.buffers(recvbuf, recvbuf, true, c.size() * rn, c.size() * rn);
  } else {
    const auto sn = static_cast<std::size_t>(sendcount);
    c.data(sendtype, sendcount);
    c.other_side(recvtype, recvcount, Call::Side::receive);
    c.buffers(sendbuf, recvbuf, false, c.size() * sn, c.size() * sn);
  }
  return c.finish(pass);
}

// The receive arguments are significant at the root only, so every rank decides on its send
// side; MPI_IN_PLACE is the root's sendbuf, its own block then already at its place in recvbuf.
int MPI_Gather(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto pass = [&] {
    return PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::gather, comm);
  c.root(root);
  const auto rn = static_cast<std::size_t>(recvcount);
  const auto sn = static_cast<std::size_t>(sendcount);
  if (c.ok() && c.is_root()) {
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    if (sendbuf == MPI_IN_PLACE) {
      c.data(recvtype, recvcount);
      c.buffers(recvbuf, recvbuf, true, c.size() * rn, c.size() * rn);
    } else {
      c.data(sendtype, sendcount);
      c.other_side(recvtype, recvcount, Call::Side::receive);
      c.buffers(sendbuf, recvbuf, false, sn, c.size() * sn);
    }
  } else {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    c.data(sendtype, sendcount);
    c.buffers(sendbuf, nullptr, false, sn, 0);
  }
  return c.finish(pass);
}

// The send arguments are significant at the root only, so every rank decides on its receive
// side; MPI_IN_PLACE is the root's recvbuf, its own block then staying at its place in sendbuf.
int MPI_Scatter(const void* sendbuf, int sendcount, MPI_Datatype sendtype, void* recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm) {
  const auto pass = [&] {
    return PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm);
  };
  if (cclx::shim::inside()) return pass();
  Call c(Collective::scatter, comm);
  c.root(root);
  const auto rn = static_cast<std::size_t>(recvcount);
  const auto sn = static_cast<std::size_t>(sendcount);
  if (c.ok() && c.is_root()) {
    if (sendbuf == MPI_IN_PLACE) c.invalid();
    if (recvbuf == MPI_IN_PLACE) {
      c.data(sendtype, sendcount);
      c.buffers(sendbuf, in_place(sendbuf), true, c.size() * sn, c.size() * sn);
    } else {
      c.data(recvtype, recvcount);
      c.other_side(sendtype, sendcount, Call::Side::send);
      c.buffers(sendbuf, recvbuf, false, c.size() * rn, rn);
    }
  } else {
    if (recvbuf == MPI_IN_PLACE) c.invalid();
    c.data(recvtype, recvcount);
    c.buffers(nullptr, recvbuf, false, 0, rn);
  }
  return c.finish(pass);
}

int MPI_Barrier(MPI_Comm comm) {
  if (cclx::shim::inside()) return PMPI_Barrier(comm);
  return cclx::shim::barrier(comm);
}

}  // extern "C"
