// libcclx-mpi and communicator lifetimes, against the plain MPI API (no cclx headers):
//
// 1. Communicators of different groups are created and freed in a loop with collectives between;
//    MPI hands the freed handles out again, so a cached Communicator that outlived its
//    communicator would be found under a new one (wrong group: wrong results or a hang). The
//    results are checked against the group each communicator really has, and the loop runs long
//    enough that leaking the library's duplicates would exhaust MPI's context ids.
// 2. With --threads and MPI_THREAD_MULTIPLE, two threads do the same concurrently, each on its own
//    parent communicator (collectives on one communicator from two threads at once are erroneous
//    in MPI). Not under Open MPI 4.1: its communicator creation from concurrent threads stalls for
//    seconds or for good even without the library (open-mpi/ompi issue 2025; measured here: 0.5
//    to 16 s for the same run), and the library's duplicates make that three times as likely.
//
// Usage: mpiexec -n N shim-lifecycle [iterations] [--threads]   (default 600)
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

int world_rank = 0, world_size = 1;
long long failures = 0;
std::ostringstream failure_log;

void expect(bool ok, const std::string& what) {
  if (ok) return;
  if (failures++ < 20) failure_log << "rank " << world_rank << ": FAIL " << what << "\n";
}

// Creates communicator number i of the loop from `parent` (MPI_COMM_WORLD's group, in order) and
// returns the world ranks of its members, in its rank order.
std::vector<int> make(MPI_Comm parent, int i, MPI_Comm* comm) {
  std::vector<int> members;
  switch (i % 3) {
    case 0:  // everyone
      MPI_Comm_dup(parent, comm);
      for (int r = 0; r < world_size; ++r) members.push_back(r);
      break;
    case 1:  // even or odd ranks, in reverse order
      MPI_Comm_split(parent, world_rank % 2, world_size - world_rank, comm);
      for (int r = world_size - 1; r >= 0; --r)
        if (r % 2 == world_rank % 2) members.push_back(r);
      break;
    default:  // rank 0 alone, the others together
      MPI_Comm_split(parent, world_rank == 0 ? 0 : 1, world_rank, comm);
      for (int r = 0; r < world_size; ++r)
        if ((r == 0) == (world_rank == 0)) members.push_back(r);
      break;
  }
  return members;
}

// Collectives whose results depend on the communicator's group and order.
void exercise(MPI_Comm comm, const std::vector<int>& members, int i, const std::string& where) {
  int size = 0;
  MPI_Comm_size(comm, &size);
  expect(size == static_cast<int>(members.size()), where + ": size");
  std::vector<int> v(64);
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = world_rank + 1 + static_cast<int>(k) + i;
  std::vector<int> sum(v.size());
  MPI_Allreduce(v.data(), sum.data(), 64, MPI_INT, MPI_SUM, comm);
  for (std::size_t k = 0; k < v.size(); ++k) {
    int want = 0;
    for (const int r : members) want += r + 1 + static_cast<int>(k) + i;
    if (sum[k] != want) return expect(false, where + ": allreduce element " + std::to_string(k));
  }
  std::vector<int> ranks(members.size(), -1);
  MPI_Allgather(&world_rank, 1, MPI_INT, ranks.data(), 1, MPI_INT, comm);
  expect(ranks == members, where + ": allgather of world ranks");
  int token = world_rank * 1000 + i;
  MPI_Bcast(&token, 1, MPI_INT, size - 1, comm);
  expect(token == members.back() * 1000 + i, where + ": bcast from the last rank");
}

void loop(MPI_Comm parent, int iterations, const char* who, std::set<MPI_Comm>* seen, int* reused) {
  for (int i = 0; i < iterations; ++i) {
    MPI_Comm comm;
    const std::vector<int> members = make(parent, i, &comm);
    if (seen && !seen->insert(comm).second) ++*reused;
    exercise(comm, members, i, std::string(who) + " iteration " + std::to_string(i));
    MPI_Comm_free(&comm);
  }
}

}  // namespace

int main(int argc, char** argv) {
  int iterations = 600;
  bool threads = false;
  for (int i = 1; i < argc; ++i) {
    if (std::string(argv[i]) == "--threads")
      threads = true;
    else
      iterations = std::atoi(argv[i]);
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, threads ? MPI_THREAD_MULTIPLE : MPI_THREAD_SINGLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
  MPI_Comm_size(MPI_COMM_WORLD, &world_size);

  std::set<MPI_Comm> seen;
  int reused = 0;
  loop(MPI_COMM_WORLD, iterations, "loop", &seen, &reused);
  // Without reuse the loop would prove nothing about stale entries.
  expect(reused > 0, "MPI never handed out a freed communicator handle again");

  int threads_ran = 0;
  if (threads && provided == MPI_THREAD_MULTIPLE) {
    MPI_Comm a, b;
    MPI_Comm_dup(MPI_COMM_WORLD, &a);
    MPI_Comm_dup(MPI_COMM_WORLD, &b);
    std::thread t1([&] { loop(a, iterations / 10, "thread 1", nullptr, nullptr); });
    std::thread t2([&] { loop(b, iterations / 10, "thread 2", nullptr, nullptr); });
    t1.join();
    t2.join();
    MPI_Comm_free(&a);
    MPI_Comm_free(&b);
    threads_ran = 1;
  }

  long long all = 0;
  PMPI_Allreduce(&failures, &all, 1, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
  if (failures) std::printf("%s", failure_log.str().c_str());
  if (world_rank == 0)
    std::printf(
        "shim-lifecycle: %d ranks, %d iterations, %d handles reused on rank 0, %s, %lld "
        "failed\n",
        world_size, iterations, reused,
        threads_ran ? "2 threads (MPI_THREAD_MULTIPLE)" : "no threads", all);
  MPI_Finalize();
  return all ? 1 : 0;
}
