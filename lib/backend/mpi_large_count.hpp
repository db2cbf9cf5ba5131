// Element counts beyond INT_MAX on any MPI (backend-internal).
//
// With the MPI-4 large-count functions (MPI_Send_c, ...; MPICH 4, Open MPI 5), found at configure
// time (CCLX_HAVE_MPI_LARGE_COUNT, cmake/cclxDependencies.cmake), these helpers forward to them.
// Without them (MPI 3.1, e.g. Open MPI 4.1) counts above INT_MAX are expressed as follows:
//   - point-to-point, bcast, allgather, alltoall, gather, scatter: one message of one element of a
//   derived
//     datatype, a struct of q blocks of a contiguous type of kChunk elements plus the remainder,
//     resized to exactly count elements (so gathered blocks land count elements apart). One MPI
//     request per transfer, as with the large-count functions; the wire type signature is the
//     same count x element, so either side may use either form.
//   - allreduce, reduce: MPI's predefined ops do not apply to derived datatypes, so the vector is
//     reduced in consecutive chunks of kChunk elements, one collective per chunk (the result is
//     the same: reductions are element-wise).
//   - reduce_scatter_block above INT_MAX elements per block and iallreduce above INT_MAX
//     elements: not supported without large counts (a chunk of every block is not contiguous, and
//     one request cannot carry several collectives); they throw cclx::Error saying so.
// Calls up to INT_MAX elements never come here: the callers use the plain int-count functions.
#pragma once

#include <mpi.h>

#include <climits>
#include <cstddef>
#include <string>

#include "mpi_check.hpp"

namespace cclx::detail::large {

#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
inline constexpr bool kNative = true;
#else
inline constexpr bool kNative = false;

// Elements per chunk: a power of two below INT_MAX.
inline constexpr std::size_t kChunk = std::size_t{1} << 30;

// One element of this type is `count` elements of `dt` (count > INT_MAX), contiguous.
class Type {
 public:
  Type(std::size_t count, MPI_Datatype dt, int rank) {
    MPI_Aint lb = 0, extent = 0;
    mpi_check(MPI_Type_get_extent(dt, &lb, &extent), rank, "MPI_Type_get_extent");
    const std::size_t q = count / kChunk, r = count % kChunk;
    MPI_Datatype chunk = MPI_DATATYPE_NULL, blocks = MPI_DATATYPE_NULL, all = MPI_DATATYPE_NULL;
    mpi_check(MPI_Type_contiguous(static_cast<int>(kChunk), dt, &chunk), rank,
              "MPI_Type_contiguous");
    mpi_check(MPI_Type_contiguous(static_cast<int>(q), chunk, &blocks), rank,
              "MPI_Type_contiguous");
    int lengths[2] = {1, static_cast<int>(r)};
    MPI_Aint displs[2] = {0, static_cast<MPI_Aint>(q * kChunk) * extent};
    MPI_Datatype types[2] = {blocks, dt};
    mpi_check(MPI_Type_create_struct(r ? 2 : 1, lengths, displs, types, &all), rank,
              "MPI_Type_create_struct");
    mpi_check(MPI_Type_create_resized(all, 0, static_cast<MPI_Aint>(count) * extent, &type_), rank,
              "MPI_Type_create_resized");
    mpi_check(MPI_Type_commit(&type_), rank, "MPI_Type_commit");
    MPI_Type_free(&all);
    MPI_Type_free(&blocks);
    MPI_Type_free(&chunk);
  }
  // MPI keeps a freed type alive for the operations that still use it (MPI 3.1 section 4.1.9),
  // so a nonblocking transfer may outlive this object.
  ~Type() { MPI_Type_free(&type_); }
  Type(const Type&) = delete;
  Type& operator=(const Type&) = delete;
  MPI_Datatype get() const { return type_; }

 private:
  MPI_Datatype type_ = MPI_DATATYPE_NULL;
};

inline MPI_Aint extent_of(MPI_Datatype dt) {
  MPI_Aint lb = 0, extent = 0;
  MPI_Type_get_extent(dt, &lb, &extent);
  return extent;
}

inline const void* offset(const void* p, std::size_t elems, MPI_Aint extent) {
  if (p == nullptr || p == MPI_IN_PLACE) return p;
  return static_cast<const char*>(p) + static_cast<MPI_Aint>(elems) * extent;
}
inline void* offset(void* p, std::size_t elems, MPI_Aint extent) {
  return const_cast<void*>(offset(static_cast<const void*>(p), elems, extent));
}

[[noreturn]] inline void unsupported(int rank, const char* what, std::size_t count) {
  throw Error(rank, std::string(what) + ": " + std::to_string(count) +
                        " elements exceed INT_MAX and this MPI has no MPI-4 large-count "
                        "functions (MPI_*_c); use a scheduled algorithm (e.g. algo::Ring) or an "
                        "MPI with large-count support");
}
#endif

// `count` elements of `dt` as the calls below pass them, with the function CCLX_LARGE names:
// MPI-4's MPI_X_c with count as an MPI_Count, or MPI_X with one element of a Type of count.
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
#define CCLX_LARGE(fn) fn##_c
struct Elements {
  Elements(std::size_t count, MPI_Datatype dt, int /*rank*/)
      : n(static_cast<MPI_Count>(count)), type(dt) {}
  MPI_Count n;
  MPI_Datatype type;
};
#else
#define CCLX_LARGE(fn) fn
struct Elements {
  Elements(std::size_t count, MPI_Datatype dt, int rank) : whole(count, dt, rank) {}
  Type whole;
  int n = 1;
  MPI_Datatype type = whole.get();
};
#endif

inline int send(const void* buf, std::size_t count, MPI_Datatype dt, int dest, int tag,
                MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Send)(buf, e.n, e.type, dest, tag, comm);
}

inline int recv(void* buf, std::size_t count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                MPI_Status* status, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Recv)(buf, e.n, e.type, source, tag, comm, status);
}

inline int isend(const void* buf, std::size_t count, MPI_Datatype dt, int dest, int tag,
                 MPI_Comm comm, MPI_Request* req, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Isend)(buf, e.n, e.type, dest, tag, comm, req);
}

inline int irecv(void* buf, std::size_t count, MPI_Datatype dt, int source, int tag, MPI_Comm comm,
                 MPI_Request* req, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Irecv)(buf, e.n, e.type, source, tag, comm, req);
}

inline int allreduce(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt,
                     MPI_Op op, MPI_Comm comm) {
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
  return MPI_Allreduce_c(sendbuf, recvbuf, static_cast<MPI_Count>(count), dt, op, comm);
#else
  const MPI_Aint e = extent_of(dt);
  for (std::size_t i = 0; i < count; i += kChunk) {
    const int n = static_cast<int>(count - i < kChunk ? count - i : kChunk);
    const int rc = MPI_Allreduce(offset(sendbuf, i, e), offset(recvbuf, i, e), n, dt, op, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
#endif
}

inline int reduce(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt, MPI_Op op,
                  int root, MPI_Comm comm) {
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
  return MPI_Reduce_c(sendbuf, recvbuf, static_cast<MPI_Count>(count), dt, op, root, comm);
#else
  const MPI_Aint e = extent_of(dt);
  for (std::size_t i = 0; i < count; i += kChunk) {
    const int n = static_cast<int>(count - i < kChunk ? count - i : kChunk);
    const int rc = MPI_Reduce(offset(sendbuf, i, e), offset(recvbuf, i, e), n, dt, op, root, comm);
    if (rc != MPI_SUCCESS) return rc;
  }
  return MPI_SUCCESS;
#endif
}

inline int bcast(void* buf, std::size_t count, MPI_Datatype dt, int root, MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Bcast)(buf, e.n, e.type, root, comm);
}

inline int reduce_scatter_block(const void* sendbuf, void* recvbuf, std::size_t count,
                                MPI_Datatype dt, MPI_Op op, MPI_Comm comm,
                                [[maybe_unused]] int rank) {
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
  return MPI_Reduce_scatter_block_c(sendbuf, recvbuf, static_cast<MPI_Count>(count), dt, op, comm);
#else
  (void)sendbuf, (void)recvbuf, (void)dt, (void)op, (void)comm;
  unsupported(rank, "native reduce_scatter", count);
#endif
}

inline int allgather(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt,
                     MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Allgather)(sendbuf, e.n, e.type, recvbuf, e.n, e.type, comm);
}

inline int gather(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt, int root,
                  MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Gather)(sendbuf, e.n, e.type, recvbuf, e.n, e.type, root, comm);
}

inline int scatter(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt, int root,
                   MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Scatter)(sendbuf, e.n, e.type, recvbuf, e.n, e.type, root, comm);
}

inline int alltoall(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt,
                    MPI_Comm comm, int rank) {
  const Elements e(count, dt, rank);
  return CCLX_LARGE(MPI_Alltoall)(sendbuf, e.n, e.type, recvbuf, e.n, e.type, comm);
}

inline int iallreduce(const void* sendbuf, void* recvbuf, std::size_t count, MPI_Datatype dt,
                      MPI_Op op, MPI_Comm comm, MPI_Request* req, [[maybe_unused]] int rank) {
#if defined(CCLX_HAVE_MPI_LARGE_COUNT)
  return MPI_Iallreduce_c(sendbuf, recvbuf, static_cast<MPI_Count>(count), dt, op, comm, req);
#else
  (void)sendbuf, (void)recvbuf, (void)dt, (void)op, (void)comm, (void)req;
  unsupported(rank, "native iallreduce", count);
#endif
}

}  // namespace cclx::detail::large

#undef CCLX_LARGE
