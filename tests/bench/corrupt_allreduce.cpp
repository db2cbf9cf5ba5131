// Test helper for tests/bench/osu_format.py: a PMPI library that makes MPI_Allreduce on
// MPI_FLOAT wrong (rank 1 adds 1 to the first element of its result), so that
// `cclx-bench --osu -c` must report Fail. Other types stay right: the benchmark's own error count
// is an MPI_INT allreduce.
#include <mpi.h>

int MPI_Allreduce(const void* sendbuf, void* recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm) {
  const int rc = PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
  int rank = 0;
  PMPI_Comm_rank(comm, &rank);
  if (rank == 1 && count > 0 && datatype == MPI_FLOAT) static_cast<float*>(recvbuf)[0] += 1;
  return rc;
}
