// Blocking point-to-point calls while a served request runs (docs/preload.md, "Progress"). cclx's
// scheduled requests move only when the library tests them; a rank blocked inside MPI_Recv would
// starve a collective that another rank waits for before it sends the message (a valid program:
// MPI's progress rule). While one of the library's requests runs, these calls start their
// nonblocking form and test it and the library's requests in turn; otherwise (the usual case:
// one atomic read) they go to MPI unchanged.
#include <mpi.h>

#include <array>

#include "guard.hpp"
#include "requests.hpp"

namespace cclx::shim {

namespace {

// Completes MPI's requests `r` (n of them) while testing the library's; blocks in MPI once none
// of the library's runs any more.
int complete_testing(int n, MPI_Request* r, MPI_Status* statuses) {
  for (Backoff b;; b.pause()) {
    progress_requests();
    int flag = 0;
    const int rc = PMPI_Testall(n, r, &flag, statuses);
    if (rc != MPI_SUCCESS || flag) return rc;
    if (!requests_running()) return PMPI_Waitall(n, r, statuses);
  }
}

int complete_testing(MPI_Request* r, MPI_Status* s) {
  return complete_testing(1, r, s == MPI_STATUS_IGNORE ? MPI_STATUSES_IGNORE : s);
}

// Whether the call must keep the library's requests moving (and is not cclx's own).
bool must_progress() {
  return !inside() && requests_running();
}

}  // namespace

}  // namespace cclx::shim

using cclx::shim::complete_testing;
using cclx::shim::Inside;
using cclx::shim::must_progress;

// The four blocking send modes: unchanged unless a served request is running, else the
// nonblocking form of the same mode, completed while testing the served requests.
template <class Blocking, class Nonblocking>
int send_progressing(Blocking blocking, Nonblocking nonblocking, const void* buf, int count,
                     MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  if (!must_progress()) return blocking(buf, count, type, dest, tag, comm);
  const Inside in;
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int rc = nonblocking(buf, count, type, dest, tag, comm, &r); rc != MPI_SUCCESS)
    return rc;
  return complete_testing(&r, MPI_STATUS_IGNORE);
}

extern "C" {

int MPI_Recv(void* buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status* status) {
  if (!must_progress()) return PMPI_Recv(buf, count, type, source, tag, comm, status);
  const Inside in;
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int rc = PMPI_Irecv(buf, count, type, source, tag, comm, &r); rc != MPI_SUCCESS)
    return rc;
  return complete_testing(&r, status);
}

int MPI_Send(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_progressing(PMPI_Send, PMPI_Isend, buf, count, type, dest, tag, comm);
}

int MPI_Ssend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_progressing(PMPI_Ssend, PMPI_Issend, buf, count, type, dest, tag, comm);
}

int MPI_Bsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_progressing(PMPI_Bsend, PMPI_Ibsend, buf, count, type, dest, tag, comm);
}

int MPI_Rsend(const void* buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm) {
  return send_progressing(PMPI_Rsend, PMPI_Irsend, buf, count, type, dest, tag, comm);
}

int MPI_Sendrecv(const void* sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void* recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status* status) {
  if (!must_progress())
    return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                         source, recvtag, comm, status);
  const Inside in;
  std::array<MPI_Request, 2> r{MPI_REQUEST_NULL, MPI_REQUEST_NULL};
  if (const int rc = PMPI_Irecv(recvbuf, recvcount, recvtype, source, recvtag, comm, &r[0]);
      rc != MPI_SUCCESS)
    return rc;
  if (const int rc = PMPI_Isend(sendbuf, sendcount, sendtype, dest, sendtag, comm, &r[1]);
      rc != MPI_SUCCESS) {
    PMPI_Cancel(&r[0]);
    PMPI_Request_free(&r[0]);
    return rc;
  }
  std::array<MPI_Status, 2> st{};
  int rc = complete_testing(2, r.data(), st.data());
  // MPI_Sendrecv returns the receive's status; an error in one of them is the call's.
  if (rc == MPI_ERR_IN_STATUS)
    rc = st[0].MPI_ERROR != MPI_SUCCESS ? st[0].MPI_ERROR : st[1].MPI_ERROR;
  if (status != MPI_STATUS_IGNORE) *status = st[0];
  return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status* status) {
  if (!must_progress()) return PMPI_Probe(source, tag, comm, status);
  const Inside in;
  for (cclx::shim::Backoff b;; b.pause()) {
    cclx::shim::progress_requests();
    int flag = 0;
    if (const int rc = PMPI_Iprobe(source, tag, comm, &flag, status); rc != MPI_SUCCESS || flag)
      return rc;
    if (!cclx::shim::requests_running()) return PMPI_Probe(source, tag, comm, status);
  }
}

int MPI_Mprobe(int source, int tag, MPI_Comm comm, MPI_Message* message, MPI_Status* status) {
  if (!must_progress()) return PMPI_Mprobe(source, tag, comm, message, status);
  const Inside in;
  for (cclx::shim::Backoff b;; b.pause()) {
    cclx::shim::progress_requests();
    int flag = 0;
    if (const int rc = PMPI_Improbe(source, tag, comm, &flag, message, status);
        rc != MPI_SUCCESS || flag)
      return rc;
    if (!cclx::shim::requests_running()) return PMPI_Mprobe(source, tag, comm, message, status);
  }
}

int MPI_Mrecv(void* buf, int count, MPI_Datatype type, MPI_Message* message, MPI_Status* status) {
  if (!must_progress()) return PMPI_Mrecv(buf, count, type, message, status);
  const Inside in;
  MPI_Request r = MPI_REQUEST_NULL;
  if (const int rc = PMPI_Imrecv(buf, count, type, message, &r); rc != MPI_SUCCESS) return rc;
  return complete_testing(&r, status);
}

}  // extern "C"
