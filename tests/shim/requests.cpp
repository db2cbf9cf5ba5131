// libcclx-mpi's MPI_Requests, from the MPI standard against the plain MPI API (no cclx headers):
// the requests of served nonblocking and persistent collectives complete through every MPI
// completion call, alone and mixed with MPI's own requests (point-to-point), and a persistent
// one runs again and again on its bound buffers.
//
//   - MPI_Waitall over a served MPI_Iallreduce, an MPI_Irecv and an MPI_Isend (statuses kept)
//   - MPI_Test, MPI_Testall, MPI_Request_get_status polled until done
//   - MPI_Waitany and MPI_Waitsome over a mix until MPI_UNDEFINED
//   - two collectives completed in opposite orders on even and odd ranks
//   - a wait for a receive that another rank's collective must complete first
//   - the same in blocking MPI_Recv, MPI_Probe, MPI_Mprobe, MPI_Sendrecv and MPI_Ssend
//   - a blocking collective on some ranks while the others wait for an earlier nonblocking one
//   - MPI_Request_free of an active nonblocking request
//   - persistent (MPI 4): MPI_Allreduce_init started 3 times with changing data, MPI_Test of an
//     inactive request, MPI_Startall with a persistent send and receive, MPI_Request_free
//
// Usage: mpiexec -n N shim-requests [--timeout]
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

namespace {

int rank = 0, size = 1;
long long checks = 0, failures = 0;
std::ostringstream failure_log;

void expect(bool ok, const std::string& what) {
  ++checks;
  if (ok) return;
  if (failures++ < 25) failure_log << "rank " << rank << ": FAIL " << what << "\n";
}

constexpr int count = 1000;  // large enough for several ring steps

// Rank r's element i in round k, and the sum over ranks.
int value(int r, int i, int k) {
  return (r + 1) * (i % 7 + 1) + k;
}
int sum(int i, int k) {
  int s = 0;
  for (int r = 0; r < size; ++r) s += value(r, i, k);
  return s;
}
bool is_sum(const std::vector<int>& v, int k) {
  for (int i = 0; i < count; ++i)
    if (v[static_cast<std::size_t>(i)] != sum(i, k)) return false;
  return true;
}
std::vector<int> input(int k) {
  std::vector<int> v(count);
  for (int i = 0; i < count; ++i) v[static_cast<std::size_t>(i)] = value(rank, i, k);
  return v;
}

const int left_of = 0, right_of = 1;  // tags
int left() {
  return (rank + size - 1) % size;
}
int right() {
  return (rank + 1) % size;
}

void mixed_waitall() {
  std::vector<int> in = input(1), out(count, -1);
  int got = -1;
  const int mine = rank * 10;
  MPI_Request r[3];
  MPI_Iallreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[0]);
  MPI_Irecv(&got, 1, MPI_INT, left(), right_of, MPI_COMM_WORLD, &r[1]);
  MPI_Isend(&mine, 1, MPI_INT, right(), right_of, MPI_COMM_WORLD, &r[2]);
  MPI_Status st[3];
  expect(MPI_Waitall(3, r, st) == MPI_SUCCESS, "mixed MPI_Waitall returned an error");
  expect(r[0] == MPI_REQUEST_NULL && r[1] == MPI_REQUEST_NULL && r[2] == MPI_REQUEST_NULL,
         "mixed MPI_Waitall left a request");
  expect(is_sum(out, 1), "mixed MPI_Waitall: wrong allreduce result");
  expect(got == left() * 10, "mixed MPI_Waitall: wrong message");
  expect(st[1].MPI_SOURCE == left() && st[1].MPI_TAG == right_of,
         "mixed MPI_Waitall: the receive's status is lost");
}

void test_loops() {
  // MPI_Test
  std::vector<int> buf(count, rank == 0 ? 5 : 0);
  MPI_Request r;
  MPI_Ibcast(buf.data(), count, MPI_INT, 0, MPI_COMM_WORLD, &r);
  int flag = 0;
  bool errors = false;
  while (!flag) errors = errors || MPI_Test(&r, &flag, MPI_STATUS_IGNORE) != MPI_SUCCESS;
  expect(!errors, "MPI_Test returned an error");
  expect(r == MPI_REQUEST_NULL, "MPI_Test left the request");
  expect(buf == std::vector<int>(count, 5), "MPI_Test loop: wrong bcast result");
  // MPI_Testall over a collective and a receive
  std::vector<int> in = input(2), out(count, -1);
  int got = -1;
  const int mine = rank;
  MPI_Request rs[3];
  MPI_Iallreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &rs[0]);
  MPI_Irecv(&got, 1, MPI_INT, right(), left_of, MPI_COMM_WORLD, &rs[1]);
  MPI_Isend(&mine, 1, MPI_INT, left(), left_of, MPI_COMM_WORLD, &rs[2]);
  flag = 0;
  while (!flag) MPI_Testall(3, rs, &flag, MPI_STATUSES_IGNORE);
  expect(rs[0] == MPI_REQUEST_NULL && rs[1] == MPI_REQUEST_NULL, "MPI_Testall left a request");
  expect(is_sum(out, 2) && got == right(), "MPI_Testall loop: wrong results");
  // MPI_Request_get_status, then MPI_Wait
  MPI_Iallreduce(MPI_IN_PLACE, in.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  flag = 0;
  while (!flag) MPI_Request_get_status(r, &flag, MPI_STATUS_IGNORE);
  expect(r != MPI_REQUEST_NULL, "MPI_Request_get_status freed the request");
  expect(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
         "MPI_Wait after MPI_Request_get_status");
  expect(is_sum(in, 2), "MPI_Request_get_status loop: wrong result");
}

void any_and_some() {
  std::vector<int> in = input(3), out(count, -1);
  int got = -1;
  const int mine = rank + 100;
  MPI_Request r[5];
  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Iallreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  r[2] = MPI_REQUEST_NULL;
  MPI_Irecv(&got, 1, MPI_INT, left(), right_of, MPI_COMM_WORLD, &r[3]);
  MPI_Isend(&mine, 1, MPI_INT, right(), right_of, MPI_COMM_WORLD, &r[4]);
  std::vector<int> seen(5, 0);
  for (;;) {
    int index = -2;
    MPI_Status st;
    expect(MPI_Waitany(5, r, &index, &st) == MPI_SUCCESS, "MPI_Waitany returned an error");
    if (index == MPI_UNDEFINED) break;
    if (index < 0 || index >= 5 || index == 2) {
      expect(false, "MPI_Waitany: bad index " + std::to_string(index));
      break;
    }
    ++seen[static_cast<std::size_t>(index)];
    if (index == 3) expect(st.MPI_SOURCE == left(), "MPI_Waitany: the receive's status");
  }
  expect(seen == std::vector<int>{1, 1, 0, 1, 1}, "MPI_Waitany: each request once");
  expect(is_sum(out, 3) && got == left() + 100, "MPI_Waitany: wrong results");

  MPI_Ibarrier(MPI_COMM_WORLD, &r[0]);
  MPI_Iallreduce(MPI_IN_PLACE, in.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r[1]);
  MPI_Irecv(&got, 1, MPI_INT, right(), left_of, MPI_COMM_WORLD, &r[3]);
  MPI_Isend(&mine, 1, MPI_INT, left(), left_of, MPI_COMM_WORLD, &r[4]);
  std::fill(seen.begin(), seen.end(), 0);
  for (bool use_test = false;; use_test = !use_test) {
    int n = -2, idx[5];
    if (use_test)
      MPI_Testsome(5, r, &n, idx, MPI_STATUSES_IGNORE);
    else
      MPI_Waitsome(5, r, &n, idx, MPI_STATUSES_IGNORE);
    if (n == MPI_UNDEFINED) break;
    for (int k = 0; k < n; ++k) ++seen[static_cast<std::size_t>(idx[k])];
  }
  expect(seen == std::vector<int>{1, 1, 0, 1, 1}, "MPI_Waitsome/MPI_Testsome: each request once");
  expect(is_sum(in, 3) && got == right() + 100, "MPI_Waitsome: wrong results");
}

// Even ranks wait for A first, odd ones for B: each rank must keep the other collective moving.
void opposite_orders() {
  std::vector<int> a = input(4), b = input(5);
  MPI_Comm other;
  MPI_Comm_dup(MPI_COMM_WORLD, &other);
  MPI_Request ra, rb;
  MPI_Iallreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &ra);
  MPI_Iallreduce(MPI_IN_PLACE, b.data(), count, MPI_INT, MPI_SUM, other, &rb);
  MPI_Request* first = rank % 2 ? &rb : &ra;
  MPI_Request* second = rank % 2 ? &ra : &rb;
  expect(MPI_Wait(first, MPI_STATUS_IGNORE) == MPI_SUCCESS, "opposite orders: first wait");
  expect(MPI_Wait(second, MPI_STATUS_IGNORE) == MPI_SUCCESS, "opposite orders: second wait");
  expect(is_sum(a, 4) && is_sum(b, 5), "opposite orders: wrong results");
  MPI_Comm_free(&other);
}

// Rank 0 waits for a message that rank 1 sends only once the collective completed there: rank 0's
// wait for MPI's request must keep the collective moving (MPI's progress rule).
void progress_in_other_waits() {
  std::vector<int> a = input(8);
  MPI_Request coll, recv;
  MPI_Iallreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &coll);
  int token = -1;
  if (rank == 0 && size > 1) {
    MPI_Irecv(&token, 1, MPI_INT, 1, 7, MPI_COMM_WORLD, &recv);
    expect(MPI_Wait(&recv, MPI_STATUS_IGNORE) == MPI_SUCCESS && token == 1,
           "progress while waiting for a receive");
  }
  expect(MPI_Wait(&coll, MPI_STATUS_IGNORE) == MPI_SUCCESS && is_sum(a, 8),
         "progress while waiting for a receive: the collective");
  if (rank == 1) {
    token = 1;
    MPI_Send(&token, 1, MPI_INT, 0, 7, MPI_COMM_WORLD);
  }
}

// A rank blocked in a blocking point-to-point call keeps the collective moving (MPI's progress
// rule): rank 0 receives (or probes, or sends synchronously, or exchanges) a message that rank 1
// sends only once its collective completed, and waits for the collective afterwards:
//   rank 0: MPI_Iallreduce; MPI_Recv from 1; MPI_Wait      rank 1: MPI_Iallreduce; MPI_Wait;
//                                                          MPI_Send to 0
// Each form once: MPI_Recv, MPI_Probe + MPI_Recv, MPI_Mprobe + MPI_Mrecv, MPI_Sendrecv, MPI_Ssend.
void progress_in_blocking_p2p() {
  enum Form { recv, probe, mprobe, sendrecv, ssend, forms };
  const char* names[forms] = {"MPI_Recv", "MPI_Probe", "MPI_Mprobe", "MPI_Sendrecv", "MPI_Ssend"};
  for (int f = 0; f < forms; ++f) {
    const std::string what = std::string("progress in a blocking ") + names[f];
    std::vector<int> a = input(30 + f);
    MPI_Request coll;
    MPI_Iallreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &coll);
    int token = -1, back = -1;
    const int tag = 40 + f;
    MPI_Status st;
    if (rank == 0 && size > 1) {
      bool ok = true;
      if (f == recv) {
        ok = MPI_Recv(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &st) == MPI_SUCCESS;
      } else if (f == probe) {
        ok = MPI_Probe(1, tag, MPI_COMM_WORLD, &st) == MPI_SUCCESS && st.MPI_SOURCE == 1 &&
             MPI_Recv(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD, &st) == MPI_SUCCESS;
      } else if (f == mprobe) {
        MPI_Message m;
        ok = MPI_Mprobe(1, tag, MPI_COMM_WORLD, &m, &st) == MPI_SUCCESS &&
             MPI_Mrecv(&token, 1, MPI_INT, &m, &st) == MPI_SUCCESS;
      } else if (f == sendrecv) {
        const int zero = 0;
        ok = MPI_Sendrecv(&zero, 1, MPI_INT, 1, tag + 100, &token, 1, MPI_INT, 1, tag,
                          MPI_COMM_WORLD, &st) == MPI_SUCCESS;
      } else {
        token = 1;  // rank 1 posts the receive only once its collective completed
        ok = MPI_Ssend(&token, 1, MPI_INT, 1, tag, MPI_COMM_WORLD) == MPI_SUCCESS;
      }
      expect(ok && token == 1, what);
      if (f != ssend) expect(st.MPI_SOURCE == 1 && st.MPI_TAG == tag, what + ": status");
    }
    expect(MPI_Wait(&coll, MPI_STATUS_IGNORE) == MPI_SUCCESS && is_sum(a, 30 + f),
           what + ": the collective");
    if (rank == 1) {
      token = 1;
      if (f == ssend) {
        MPI_Recv(&back, 1, MPI_INT, 0, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        expect(back == 1, what + ": message");
      } else {
        MPI_Send(&token, 1, MPI_INT, 0, tag, MPI_COMM_WORLD);
      }
      if (f == sendrecv)
        MPI_Recv(&back, 1, MPI_INT, 0, tag + 100, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
  }
}

// Even ranks run a blocking collective before they wait for a nonblocking one started earlier;
// odd ranks wait first. The blocking one must keep the nonblocking one moving (MPI's progress
// rule: both were started in the same order everywhere).
void blocking_while_pending() {
  std::vector<int> a = input(9), b = input(10), out(count);
  MPI_Request r;
  MPI_Iallreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  if (rank % 2 == 0)
    expect(
        MPI_Allreduce(b.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
        "a blocking collective while a nonblocking one is pending");
  expect(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS && is_sum(a, 9),
         "a nonblocking collective completed after a blocking one");
  if (rank % 2 == 1)
    expect(
        MPI_Allreduce(b.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS,
        "a blocking collective after a wait");
  expect(is_sum(out, 10), "a blocking collective while a nonblocking one is pending: result");
}

// Freed while active: it completes in the background; MPI_Finalize waits for it.
std::vector<int> freed_buffer;
void free_active() {
  freed_buffer = input(6);
  MPI_Request r;
  MPI_Iallreduce(MPI_IN_PLACE, freed_buffer.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r);
  expect(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
         "MPI_Request_free of an active request");
  // Later collectives are unaffected.
  std::vector<int> in = input(7), out(count);
  expect(MPI_Allreduce(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD) ==
                 MPI_SUCCESS &&
             is_sum(out, 7),
         "a collective after MPI_Request_free");
}

// --timeout (CCLX_TIMEOUT=1, a scheduled allreduce): the last rank never starts a collective the
// others wait for; their MPI_Wait returns an error naming CCLX_TIMEOUT after about a second
// instead of hanging, through the communicator's handler, and naming the missing rank.
void timeout_case() {
  MPI_Comm d;
  MPI_Comm_dup(MPI_COMM_WORLD, &d);
  MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
  std::vector<int> a = input(50);
  MPI_Allreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, d);  // all ranks: d is set up
  expect(is_sum(a, 50), "timeout: the collective before");
  if (rank != size - 1) {
    MPI_Request r;
    const double t0 = MPI_Wtime();
    MPI_Iallreduce(MPI_IN_PLACE, a.data(), count, MPI_INT, MPI_SUM, d, &r);
    const int rc = MPI_Wait(&r, MPI_STATUS_IGNORE);
    const double waited = MPI_Wtime() - t0;
    char text[MPI_MAX_ERROR_STRING] = {};
    int len = 0;
    MPI_Error_string(rc, text, &len);
    expect(rc != MPI_SUCCESS && std::string(text).find("CCLX_TIMEOUT") != std::string::npos,
           std::string("timeout: MPI_Wait returned '") + text + "'");
    const std::string missing = "missing: rank " + std::to_string(size - 1) + " (";
    expect(std::string(text).find(missing) != std::string::npos,
           std::string("timeout: the error does not say '") + missing + "': " + text);
    expect(r == MPI_REQUEST_NULL, "timeout: the request is not freed");
    expect(waited > 0.9 && waited < 30, "timeout: waited " + std::to_string(waited) + " s");
  }
  MPI_Barrier(MPI_COMM_WORLD);
  MPI_Comm_free(&d);
}

#if MPI_VERSION >= 4
void persistent() {
  std::vector<int> in(count), out(count, -1);
  MPI_Request r;
  expect(MPI_Allreduce_init(in.data(), out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                            MPI_INFO_NULL, &r) == MPI_SUCCESS,
         "MPI_Allreduce_init");
  int flag = 0;
  MPI_Test(&r, &flag, MPI_STATUS_IGNORE);
  expect(flag == 1 && r != MPI_REQUEST_NULL, "MPI_Test of an inactive persistent request");
  for (int k = 10; k < 13; ++k) {
    const std::vector<int> next = input(k);
    std::copy(next.begin(), next.end(), in.begin());  // the bound buffer gets new data
    expect(MPI_Start(&r) == MPI_SUCCESS, "MPI_Start");
    expect(MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS, "MPI_Wait of a persistent request");
    expect(r != MPI_REQUEST_NULL, "MPI_Wait freed a persistent request");
    expect(is_sum(out, k), "persistent allreduce, start " + std::to_string(k - 9));
  }
  expect(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL,
         "MPI_Request_free of an inactive persistent request");

  // MPI_Startall over two persistent collectives and a persistent send and receive.
  std::vector<int> bc(count);
  int got = -1, mine = 0;
  MPI_Request rs[4];
  MPI_Allreduce_init(MPI_IN_PLACE, out.data(), count, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                     MPI_INFO_NULL, &rs[0]);
  MPI_Bcast_init(bc.data(), count, MPI_INT, size - 1, MPI_COMM_WORLD, MPI_INFO_NULL, &rs[1]);
  MPI_Recv_init(&got, 1, MPI_INT, left(), right_of, MPI_COMM_WORLD, &rs[2]);
  MPI_Send_init(&mine, 1, MPI_INT, right(), right_of, MPI_COMM_WORLD, &rs[3]);
  for (int k = 20; k < 23; ++k) {
    const std::vector<int> next = input(k);
    std::copy(next.begin(), next.end(), out.begin());  // in place: input and output
    std::fill(bc.begin(), bc.end(), rank == size - 1 ? k : -1);
    mine = rank * 1000 + k;
    expect(MPI_Startall(4, rs) == MPI_SUCCESS, "MPI_Startall");
    int done = 0;
    if (k % 2) {
      expect(MPI_Waitall(4, rs, MPI_STATUSES_IGNORE) == MPI_SUCCESS, "MPI_Waitall (persistent)");
    } else {
      while (!done) MPI_Testall(4, rs, &done, MPI_STATUSES_IGNORE);
    }
    expect(is_sum(out, k), "MPI_Startall: allreduce, round " + std::to_string(k - 19));
    expect(bc == std::vector<int>(count, k), "MPI_Startall: bcast");
    expect(got == left() * 1000 + k, "MPI_Startall: message");
  }
  for (MPI_Request& q : rs) MPI_Request_free(&q);
}
#endif

void run_all() {
  mixed_waitall();
  test_loops();
  any_and_some();
  opposite_orders();
  progress_in_other_waits();
  progress_in_blocking_p2p();
  blocking_while_pending();
  free_active();
#if MPI_VERSION >= 4
  persistent();
#endif
}

}  // namespace

int main(int argc, char** argv) {
  const bool timeout = argc > 1 && std::string(argv[1]) == "--timeout";
  if (timeout) setenv("CCLX_TIMEOUT", "1", 1);
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (timeout) {
    timeout_case();
  } else {
    run_all();
  }
  long long totals[2] = {checks, failures}, sums[2] = {0, 0};
  PMPI_Allreduce(totals, sums, 2, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (failures) std::printf("%s", failure_log.str().c_str());
  if (rank == 0)
    std::printf("shim-requests: %d ranks, %lld checks, %lld failed\n", size, sums[0], sums[1]);
  MPI_Finalize();
  return sums[1] ? 1 : 0;
}
