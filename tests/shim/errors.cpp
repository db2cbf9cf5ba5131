// libcclx-mpi's error path, against the plain MPI API (no cclx headers): a call that cclx rejects
// returns an MPI error code through the communicator's error handler, never an exception or an
// abort, and the communicator stays usable. Run with CCLX_VALIDATE=1 (ranks compare their calls,
// and their decisions to serve them, first) and CCLX_ALGO choosing a scheduled algorithm, at
// N >= 2.
#include <mpi.h>

#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rank = 0, size = 1;
long long failures = 0;
std::ostringstream failure_log;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  if (failures++ < 20) failure_log << "rank " << rank << ": FAIL " << what << "\n";
}

std::string error_string(int code) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(code, text, &len) != MPI_SUCCESS) return "(no string)";
  return std::string(text, static_cast<std::size_t>(len));
}

int handler_calls = 0;
int handler_code = MPI_SUCCESS;
void counting_handler(MPI_Comm*, int* code, ...) {
  ++handler_calls;
  handler_code = *code;
}

bool contains(const std::string& s, const char* part) {
  return s.find(part) != std::string::npos;
}

// A correct allreduce after an error: the communicator still works.
void still_works(MPI_Comm comm, const char* after) {
  std::vector<int> v(6, rank + 1), s(6, -1);
  const int rc = MPI_Allreduce(v.data(), s.data(), 6, MPI_INT, MPI_SUM, comm);
  expect(rc == MPI_SUCCESS && s[5] == size * (size + 1) / 2,
         std::string("allreduce after ") + after);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);

  MPI_Comm comm;
  MPI_Comm_dup(MPI_COMM_WORLD, &comm);
  MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);

  // 1. Counts that differ between ranks: CCLX_VALIDATE's agreement rejects the call on every
  //    rank, before any data moves.
  if (size >= 2) {
    std::vector<int> v(5, 1), s(5, 0);
    const int count = rank == 0 ? 5 : 4;
    const int rc = MPI_Allreduce(v.data(), s.data(), count, MPI_INT, MPI_SUM, comm);
    const std::string text = error_string(rc);
    expect(rc != MPI_SUCCESS, "mismatched counts returned MPI_SUCCESS");
    expect(contains(text, "cclx") && contains(text, "count"),
           "mismatched counts: error string '" + text + "' does not name cclx and the count");
    still_works(comm, "mismatched counts");
  }

  // 2. The application's own handler is called exactly once, with the code the call returns.
  {
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(&counting_handler, &h);
    MPI_Comm_set_errhandler(comm, h);
    std::vector<double> buf(8, 1.0);
    // Input and output overlap: rejected by cclx's argument check on every rank.
    const int rc = MPI_Allreduce(buf.data(), buf.data() + 1, 4, MPI_DOUBLE, MPI_SUM, comm);
    expect(rc != MPI_SUCCESS, "overlapping buffers returned MPI_SUCCESS");
    expect(handler_calls == 1,
           "the error handler ran " + std::to_string(handler_calls) + " times, not once");
    expect(handler_code == rc, "the error handler saw another code than the call returned");
    expect(contains(error_string(rc), "overlap"),
           "overlap: error string '" + error_string(rc) + "'");
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&h);
    still_works(comm, "overlapping buffers");
  }

  // 3. An invalid root goes to MPI unchanged, which reports it as MPI_ERR_ROOT.
  {
    int x = 1;
    const int rc = MPI_Bcast(&x, 1, MPI_INT, size, comm);
    int cls = MPI_SUCCESS;
    MPI_Error_class(rc, &cls);
    expect(rc != MPI_SUCCESS && cls == MPI_ERR_ROOT,
           "invalid root: class " + std::to_string(cls) + " ('" + error_string(rc) + "')");
    still_works(comm, "an invalid root");
  }

  // 4. The nonblocking and persistent forms report the same errors at the call that starts
  //    them (the agreement is part of starting), and the communicator stays usable.
  if (size >= 2) {
    std::vector<int> v(5, 1), s(5, 0);
    const int count = rank == 0 ? 5 : 4;
    MPI_Request r = MPI_REQUEST_NULL;
    int rc = MPI_Iallreduce(v.data(), s.data(), count, MPI_INT, MPI_SUM, comm, &r);
    expect(rc != MPI_SUCCESS && contains(error_string(rc), "count"),
           "nonblocking mismatched counts: '" + error_string(rc) + "'");
    still_works(comm, "nonblocking mismatched counts");
#if MPI_VERSION >= 4
    rc = MPI_Allreduce_init(v.data(), s.data(), count, MPI_INT, MPI_SUM, comm, MPI_INFO_NULL, &r);
    expect(rc != MPI_SUCCESS && contains(error_string(rc), "count"),
           "persistent mismatched counts: '" + error_string(rc) + "'");
    still_works(comm, "persistent mismatched counts");
#endif
  }

  // 5. A call that breaks MPI's matching rules so that the ranks decide differently whether the
  //    library serves it (rank 0 reduces MPI_INT, which cclx serves; the others MPI_2INT, which
  //    it passes through): without CCLX_VALIDATE it would hang, with it every rank gets an error
  //    naming both groups of ranks, and the communicator stays usable.
  if (size >= 2) {
    int v[2] = {1, 2}, s[2] = {0, 0};
    for (const bool nonblocking : {false, true}) {
      const MPI_Datatype t = rank == 0 ? MPI_INT : MPI_2INT;
      const int count = rank == 0 ? 2 : 1;
      MPI_Request r = MPI_REQUEST_NULL;
      const int rc = nonblocking ? MPI_Iallreduce(v, s, count, t, MPI_SUM, comm, &r)
                                 : MPI_Allreduce(v, s, count, t, MPI_SUM, comm);
      const std::string text = error_string(rc);
      const std::string others = size == 2 ? "rank 1 passed through" : "ranks 1-";
      expect(rc != MPI_SUCCESS && contains(text, "decided differently") &&
                 contains(text, "rank 0 served") && contains(text, others.c_str()),
             std::string(nonblocking ? "nonblocking " : "") + "split decision: '" + text + "'");
      still_works(comm, "a split decision");
    }
  }

  MPI_Comm_free(&comm);
  long long all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (failures) std::printf("%s", failure_log.str().c_str());
  if (rank == 0) std::printf("shim-errors: %d ranks, %lld failed\n", size, all);
  MPI_Finalize();
  return all ? 1 : 0;
}
