// cclx-callcount: a loop of 8-byte float sum allreduces for counting instructions per call with
// callgrind (docs/results.md, "One-shot and persistent calls at 8 B"). Only the timed loop is
// collected; run the measured rank under callgrind and its peer natively, so that the peer is
// always ahead and the measured rank rarely spins waiting:
//
//   mpiexec -n 1 valgrind --tool=callgrind --collect-atstart=no cclx-callcount ring 2000
//           : -n 1 cclx-callcount ring 2000      (one command line)
//
// Instructions per call = callgrind's total / iterations. Modes: raw (MPI_Allreduce), native,
// ring (one-shot), auto (algo::Auto's choice), native-persistent, ring-persistent (start + wait of
// one request), and raw-2step (2 ranks: the two exchanges of a ring allreduce written as plain
// MPI_Irecv, MPI_Isend, MPI_Waitall and a local add: the floor of any 2-step schedule). Run
// natively it prints the time per call (rank 0, the loop's average), for the latency floor. A
// loaded machine can deschedule the peer and make the measured rank spin (more polls, more
// instructions): take the lowest of several runs; runs without such waits agree to within a few
// instructions per call.
//
// Other collectives (native and auto only; docs/tuning-results.md, "Per-call cost of the
// decision"):
//
//   cclx-callcount native|auto [iterations] [collective]
//
// collective: allreduce (the default), reduce, bcast, scatter, gather, allgather, reduce_scatter,
// alltoall, gatherv, scatterv, allgatherv, reduce_scatterv or barrier; each rank's block is two
// floats (8 bytes), rooted collectives use root 0, v-collectives the same count on every rank and
// no displacements.
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "cclx/cclx.hpp"
#include "cli.hpp"
#include "kit/timing.hpp"

#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#define CCLX_TOGGLE_COLLECT() CALLGRIND_TOGGLE_COLLECT
#else
#define CCLX_TOGGLE_COLLECT() (void)0
#endif

namespace {

// A call of `collective` with `algo` (cclx::algo::Native or Auto) on two floats per rank; `in`
// and `out` are sized for n blocks, `counts` holds two per rank. Empty for an unknown name.
template <class A>
std::function<void()> collective_call(cclx::Communicator<>& comm, const std::string& collective,
                                      const A& algo, std::vector<float>& in,
                                      std::vector<float>& out, std::vector<int>& counts) {
  const std::span<const float> one(in.data(), 2);
  const std::span<float> one_out(out.data(), 2);
  if (collective == "reduce")
    return [&, algo, one, one_out] { comm.reduce(one, one_out, cclx::sum, 0, algo); };
  if (collective == "bcast") return [&, algo, one_out] { comm.bcast(one_out, 0, algo); };
  if (collective == "scatter") return [&, algo, one_out] { comm.scatter(in, one_out, 0, algo); };
  if (collective == "gather") return [&, algo, one] { comm.gather(one, out, 0, algo); };
  if (collective == "allgather") return [&, algo, one] { comm.allgather(one, out, algo); };
  if (collective == "reduce_scatter")
    return [&, algo, one_out] { comm.reduce_scatter(in, one_out, cclx::sum, algo); };
  if (collective == "alltoall") return [&, algo] { comm.alltoall(in, out, algo); };
  if (collective == "gatherv") return [&, algo, one] { comm.gatherv(one, out, counts, 0, algo); };
  if (collective == "scatterv")
    return [&, algo, one_out] { comm.scatterv(in, one_out, counts, 0, algo); };
  if (collective == "allgatherv")
    return [&, algo, one] { comm.allgatherv(one, out, counts, algo); };
  if (collective == "reduce_scatterv")
    return [&, algo, one_out] { comm.reduce_scatterv(in, one_out, counts, cclx::sum, algo); };
  if (collective == "barrier") return [&, algo] { comm.barrier(algo); };
  return {};
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  {
    std::string mode, collective = "allreduce";
    long iters = 1000;
    cclx::kit::App app("cclx-callcount",
                       "A loop of 8-byte float sum allreduces (or another collective) for "
                       "counting instructions per call with callgrind (docs/results.md).");
    app.add_option("MODE", mode,
                   "raw, raw-2step, native, ring, auto, native-persistent, ring-persistent; "
                   "other collectives: native or auto")
        ->required();
    app.add_option("ITERATIONS", iters, "calls in the collected loop (default 1000)")
        ->check(cclx::kit::Positive{});
    app.add_option("COLLECTIVE", collective,
                   "allreduce (default), reduce, bcast, scatter, gather, allgather, "
                   "reduce_scatter, alltoall, gatherv, scatterv, allgatherv, reduce_scatterv or "
                   "barrier");
    if (const auto usage_rc = cclx::kit::parse_mpi(app, argc, argv)) return *usage_rc;
    cclx::Communicator comm(MPI_COMM_WORLD);
    std::vector<float> in(2, 1.0f), out(2);
#if __has_include("cclx/persistent.hpp")  // (this file also builds against cclx before them)
    cclx::PersistentRequest p;
#endif
    std::vector<int> counts;
    std::function<void()> call;
    if (mode == "raw")
      call = [&] {
        MPI_Allreduce(in.data(), out.data(), 2, MPI_FLOAT, MPI_SUM, comm.native_handle());
      };
    else if (mode == "raw-2step" && comm.size() == 2)
      call = [&, peer = 1 - comm.rank(), r = comm.rank()] {
        // Step 1: send my block r^1 to the peer, receive its copy of block r, reduce; step 2:
        // send my reduced block r, receive the reduced block r^1.
        float got = 0;
        MPI_Request q[2];
        const MPI_Comm c = comm.native_handle();
        MPI_Irecv(&got, 1, MPI_FLOAT, peer, 7, c, &q[0]);
        MPI_Isend(&in[static_cast<std::size_t>(peer)], 1, MPI_FLOAT, peer, 7, c, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
        out[static_cast<std::size_t>(r)] = in[static_cast<std::size_t>(r)] + got;
        MPI_Irecv(&out[static_cast<std::size_t>(peer)], 1, MPI_FLOAT, peer, 7, c, &q[0]);
        MPI_Isend(&out[static_cast<std::size_t>(r)], 1, MPI_FLOAT, peer, 7, c, &q[1]);
        MPI_Waitall(2, q, MPI_STATUSES_IGNORE);
      };
    else if (collective != "allreduce" && (mode == "native" || mode == "auto")) {
      const auto n = static_cast<std::size_t>(comm.size());
      in.assign(2 * n, 1.0f);
      out.assign(2 * n, collective == "bcast" ? 1.0f : 0.0f);  // bcast: the root's ones
      counts.assign(n, 2);
      call = mode == "native"
                 ? collective_call(comm, collective, cclx::algo::Native{}, in, out, counts)
                 : collective_call(comm, collective, cclx::algo::Auto{}, in, out, counts);
    } else if (mode == "native")
      call = [&] { comm.allreduce(in, out, cclx::sum); };
    else if (mode == "ring")
      call = [&] { comm.allreduce(in, out, cclx::sum, cclx::algo::Ring{}); };
    else if (mode == "auto")  // algo::Auto: the decision's per-call cost (docs/tuning-results.md)
      call = [&] { comm.allreduce(in, out, cclx::sum, cclx::algo::Auto{}); };
#if __has_include("cclx/persistent.hpp")
    else if (mode == "native-persistent" || mode == "ring-persistent") {
      p = mode == "ring-persistent" ? comm.allreduce_init(in, out, cclx::sum, cclx::algo::Ring{})
                                    : comm.allreduce_init(in, out, cclx::sum);
      call = [&] {
        p.start();
        p.wait();
      };
    }
#endif
    else {
      if (comm.rank() == 0)
        std::fprintf(stderr,
                     "usage: cclx-callcount raw|raw-2step|native|ring|auto|native-persistent|"
                     "ring-persistent [iterations]\n"
                     "       cclx-callcount native|auto [iterations] [collective]\n");
      rc = 2;
    }
    if (call) {
      for (int i = 0; i < 200; ++i) call();  // warm: caches, plans, MPI's internals
      // One timed block: the collected loop.
      const double per_call = cclx::kit::timed_block(MPI_COMM_WORLD, 1,
                                                     [&](long) {
                                                       CCLX_TOGGLE_COLLECT();
                                                       for (long i = 0; i < iters; ++i) call();
                                                       CCLX_TOGGLE_COLLECT();
                                                     }) /
                              static_cast<double>(iters);
      MPI_Barrier(MPI_COMM_WORLD);
      if (comm.rank() == 0) std::printf("%s: %.3f us per call\n", mode.c_str(), per_call * 1e6);
      // Reductions sum 1 + 1 + ... (on the root for reduce); the rest move ones; barrier nothing.
      const bool sums = collective == "allreduce" || collective.starts_with("reduce");
      if (collective != "barrier" && (collective != "reduce" || comm.rank() == 0) &&
          out[0] != (sums ? static_cast<float>(comm.size()) : 1.0f))
        rc = 1;
    }
  }
  MPI_Finalize();
  return rc;
}
