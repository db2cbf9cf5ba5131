// cclx-adaptive-late: a persistent allreduce with one late rank, algo::Adaptive against policies
// that wait for every rank (native, ring, rhd). Each iteration: a barrier, then the late rank
// sleeps D before start() while the others start at once; reported per policy is the mean over
// iterations of the early ranks' time from start() to the return of wait() (their mean), and the
// late rank's own start-to-return time. docs/algorithms/adaptive.md ("Costs") has results.
//
//   mpiexec -n 3 cclx-adaptive-late [--bytes B] [--late-ms D] [--late-rank R] [--iters K]
#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cclx/cclx.hpp"

namespace {

struct Args {
  std::size_t bytes = 1 << 20;
  double late_ms = 20;
  int late_rank = -1;  // -1: the last rank
  int iters = 20;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i];
    const char* v = argv[i + 1];
    if (k == "--bytes")
      a.bytes = std::strtoull(v, nullptr, 10);
    else if (k == "--late-ms")
      a.late_ms = std::strtod(v, nullptr);
    else if (k == "--late-rank")
      a.late_rank = std::atoi(v);
    else if (k == "--iters")
      a.iters = std::atoi(v);
    else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  return a;
}

// Mean over iterations of (early ranks' mean, late rank's) start-to-return seconds.
std::pair<double, double> measure(cclx::Communicator<>& comm, cclx::PersistentRequest& p,
                                  const Args& a, int late) {
  double early_sum = 0, late_sum = 0;
  for (int it = -1; it < a.iters; ++it) {  // iteration -1 warms up
    MPI_Barrier(MPI_COMM_WORLD);
    if (comm.rank() == late)
      std::this_thread::sleep_for(std::chrono::duration<double>(a.late_ms / 1e3));
    const double t0 = MPI_Wtime();
    p.start();
    p.wait();
    const double mine = MPI_Wtime() - t0;
    double early = comm.rank() == late ? 0.0 : mine, sum = 0;
    MPI_Allreduce(&early, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    double late_t = comm.rank() == late ? mine : 0.0, lt = 0;
    MPI_Allreduce(&late_t, &lt, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (it >= 0) {
      early_sum += sum / (comm.size() - 1);
      late_sum += lt;
    }
  }
  return {early_sum / a.iters, late_sum / a.iters};
}

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  const Args a = parse(argc, argv);
  {
    cclx::Communicator comm(MPI_COMM_WORLD);
    if (comm.size() < 2) {
      if (comm.rank() == 0) std::fprintf(stderr, "needs at least 2 ranks\n");
      MPI_Finalize();
      return 2;
    }
    const int late = a.late_rank >= 0 ? a.late_rank : comm.size() - 1;
    std::vector<float> in(a.bytes / sizeof(float), 1.0f), out(in.size());
    auto run = [&](const char* name, cclx::PersistentRequest p) {
      const auto [early, late_t] = measure(comm, p, a, late);
      if (comm.rank() == 0)
        std::printf(
            "%-9s n=%d bytes=%zu late=rank %d by %.1f ms: early ranks %.3f ms, late rank "
            "%.3f ms (start to wait() return, mean of %d)\n",
            name, comm.size(), a.bytes, late, a.late_ms, early * 1e3, late_t * 1e3, a.iters);
    };
    run("native", comm.allreduce_init(in, out, cclx::sum));
    run("ring", comm.allreduce_init(in, out, cclx::sum, cclx::algo::Ring{}));
    run("rhd", comm.allreduce_init(in, out, cclx::sum, cclx::algo::RecursiveHalvingDoubling{}));
    run("adaptive", comm.allreduce_init(in, out, cclx::sum, cclx::algo::Adaptive{}));
    const auto c = cclx::detail::relay_counters();
    if (comm.rank() == 0)
      std::printf("adaptive: %llu of %d calls proceeded without the late rank\n",
                  static_cast<unsigned long long>(c.partial_decisions), a.iters + 1);
  }
  MPI_Finalize();
  return 0;
}
