// cclx-fault-test: one fault scenario per run (a rank that stalls, a rank that dies, ranks that
// disagree on a count, a Communicator after MPI_Finalize), each rank checking its own outcome.
// These cannot share the doctest executable: a dying rank takes its job with it.
//
//   mpiexec -n N cclx-fault-test SCENARIO ALGO      (CCLX_TIMEOUT gives the deadline)
//
// SCENARIO: sleep     the last rank calls only once every other rank has given up (a notice on a
//                     communicator of its own); every other rank must throw within deadline + 5 s
//                     (scheduling delay on a loaded machine; not before the deadline), the message
//                     naming the collective and the ranks it waited for; the ring neighbour of the
//                     sleeper must name it.
//           exit      the last rank _exit()s instead of calling; the survivors likewise (run under
//                     mpiexec -disable-auto-cleanup, else mpiexec kills the survivors first).
//           mismatch  rank 0 passes a longer buffer than the others (no CCLX_VALIDATE): every rank
//                     throws cclx::Error (an MPI error with context, or the timeout), nobody aborts
//                     or hangs, and some rank reports MPI's truncation error.
//           finalized a Communicator constructed after MPI_Finalize throws cclx::Error.
//           errhandler the application's own error handler on MPI_COMM_WORLD still gets the
//                     application's errors after cclx installed its pass-through handler there.
//           destroy   (persistent ALGO only) every rank but the last starts its request and
//                     destroys it without wait(): the destructor waits until the deadline, reports
//                     on stderr and abandons the request, without throwing or aborting.
// ALGO: ring, native, iring (iallreduce with Ring, then Request::wait()), inative, barrier
//       (MPI_Barrier), dissemination (the scheduled barrier), validate (ring allreduce with
//       CCLX_VALIDATE's agreement first), pring, pnative (a persistent allreduce made before the
//       scenario starts; the call is start() + wait()), padaptive (the same with algo::Adaptive,
//       whose fault time-out is set to the deadline and the communicator's timeout to 3 s more,
//       so the waiters must throw the fault time-out naming the victim; MPI_THREAD_MULTIPLE).
//
// Prints "cclx-fault-test: rank R: PASS ..." or "... FAIL ..." per rank. Where all ranks live to
// the end, the verdict is combined and the exit code is 0 only if every rank passed; in `exit`
// the survivors leave with _exit (MPI_Finalize would wait for the dead rank) and their own code.
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "cclx/algo/by_name.hpp"
#include "cclx/cclx.hpp"
#include "cclx/relay/adaptive.hpp"
#include "cclx/tune/candidate.hpp"

namespace {

using Clock = std::chrono::steady_clock;

// How much later than its deadline a rank may throw: the time-out fires in a polling loop that a
// loaded machine may not schedule for a while (seconds with a load of 10 on 2 cores). Throwing
// before the deadline is checked without slack: delays only ever make a rank later.
constexpr int kLateSlackS = 5;
// The failure when a rank threw (or returned) later than deadline + kLateSlackS, else "".
std::string too_late(double elapsed, double deadline) {
  if (elapsed <= deadline + kLateSlackS) return {};
  return "later than deadline + " + std::to_string(kLateSlackS) + " s";
}

int app_handler_calls = 0;
void app_handler(MPI_Comm*, int*, ...) {
  ++app_handler_calls;
}

struct Outcome {
  bool threw = false;
  std::string message;
  double elapsed = 0;
};

// The persistent request of pring / pnative, made before the scenario's clock starts.
cclx::PersistentRequest persistent;

bool is_persistent(const std::string& algo) {
  return algo == "pring" || algo == "pnative" || algo == "padaptive";
}

Outcome call(cclx::Communicator<>& comm, const std::string& algo, std::vector<float>& buf) {
  Outcome o;
  const auto t0 = Clock::now();
  try {
    if (is_persistent(algo)) {
      persistent.start();
      persistent.wait();
    } else if (algo == "ring") {
      comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
    } else if (algo == "native") {
      comm.allreduce(buf, cclx::sum);
    } else if (algo == "iring") {
      auto rq = comm.iallreduce(buf, cclx::sum, cclx::algo::Ring{});
      rq.wait();
    } else if (algo == "inative") {
      auto rq = comm.iallreduce(buf, cclx::sum);
      rq.wait();
    } else if (algo == "barrier") {
      comm.barrier();
    } else if (algo == "dissemination") {
      comm.barrier(cclx::algo::Dissemination{});
    } else if (algo == "validate") {  // CCLX_VALIDATE's agreement before the collective
      comm.backend().set_validation(true);
      comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
    } else {
      std::fprintf(stderr, "cclx-fault-test: unknown algorithm '%s'\n", algo.c_str());
      std::exit(2);
    }
  } catch (const cclx::Error& e) {
    o.threw = true;
    o.message = e.what();
  }
  o.elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  return o;
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

// One line per report (a single write, so that ranks' lines do not interleave); `round` names
// the round of a multi-round scenario.
int report(int rank, const std::string& failure, const Outcome& o, const std::string& round = "") {
  std::printf("cclx-fault-test: %srank %d: %s after %.2f s: %s\n", round.c_str(), rank,
              failure.empty() ? "PASS" : ("FAIL (" + failure + ")").c_str(), o.elapsed,
              o.threw ? o.message.c_str() : "(no error)");
  std::fflush(stdout);
  return failure.empty() ? 0 : 1;
}

// What a rank that waited for the stalled or dead `victim` must see.
std::string check_waiter(const Outcome& o, const std::string& algo, int rank, int n, int victim,
                         double deadline, bool may_be_mpi_error) {
  if (!o.threw) return "no error";
  if (!contains(o.message, "cclx: rank " + std::to_string(rank) + ": "))
    return "message does not name this rank";
  const bool barrier = algo == "barrier" || algo == "dissemination";
  if (!contains(o.message, barrier ? "barrier" : "allreduce"))
    return "message does not name the collective";
  if (std::string late = too_late(o.elapsed, deadline); !late.empty()) return late;
  const bool timeout = contains(o.message, "(timeout ") ||
                       contains(o.message, "did not complete within") ||
                       contains(o.message, "did not start within");
  if (!timeout && !may_be_mpi_error) return "not a timeout";
  if (timeout && o.elapsed < deadline * 0.9) return "timed out before the deadline";
  const bool scheduled =
      algo == "ring" || algo == "iring" || algo == "pring" || algo == "dissemination";
  if (algo == "padaptive") {
    if (!contains(o.message, "allreduce (adaptive): rank " + std::to_string(victim) +
                                 " did not start within the fault time-out"))
      return "message does not name the missing rank and the fault time-out";
  } else if (scheduled) {
    const std::string name = algo == "dissemination" ? "dissemination" : "ring";
    if (!contains(o.message, "(" + name + ") step "))
      return "message does not name algorithm and step";
    // In the ring, rank r receives from r - 1: the sleeper's successor waits for it directly. In
    // the dissemination barrier on 3 ranks every rank exchanges with both others (distances 1 and
    // 2), so whichever step a rank is stuck in, the sleeper is the peer it names.
    const bool waits_for_victim = algo == "dissemination" ? n == 3 : (victim + 1) % n == rank;
    if (waits_for_victim && !contains(o.message, "rank " + std::to_string(victim)))
      return "message does not name rank " + std::to_string(victim);
    if (timeout && !contains(o.message, "no data from rank") &&
        !contains(o.message, "did not take"))
      return "timeout message names no peer";
  }
  // Every waiter, whatever peer it waited for, names the victim and only it (the roll call).
  if (algo != "padaptive" && !contains(o.message, "missing: rank " + std::to_string(victim) + " ("))
    return "message does not name exactly rank " + std::to_string(victim) + " as missing";
  return {};
}

// Calls f(policy) with the allreduce policy `name` names in the registry (the shrink scenario's
// algorithms).
template <class F>
void with_algorithm(const std::string& name, F&& f) {
  cclx::algo::with_policy(cclx::tune::parse_candidate(name), [&](const auto& policy) {
    if constexpr (cclx::algo::serves<std::decay_t<decltype(policy)>>(
                      cclx::sched::Collective::allreduce)) {
      f(policy);
    } else {
      std::fprintf(stderr, "cclx-fault-test: '%s' does not serve allreduce\n", name.c_str());
      std::exit(2);
    }
  });
}

// rollcall: every rank in turn stalls (skips the collective until all others have given up) on a
// communicator of its own, the collective cycling through `kinds`; every other rank must name
// exactly it. Returns this rank's number of failed rounds.
int roll_call_rounds(int rank, int n, MPI_Comm notices) {
  const std::vector<std::string> kinds = {"ring",  "native",  "iring",         "inative",
                                          "pring", "pnative", "dissemination", "barrier"};
  int failed = 0;
  for (int victim = 0; victim < n; ++victim) {
    const std::string& algo = kinds[static_cast<std::size_t>(victim) % kinds.size()];
    cclx::Communicator comm(MPI_COMM_WORLD);
    const double deadline = comm.timeout();
    auto& buf = *new std::vector<float>(3000, 1.0f);  // leaked: see the main scenarios
    if (algo == "pring") persistent = comm.allreduce_init(buf, cclx::sum, cclx::algo::Ring{});
    if (algo == "pnative") persistent = comm.allreduce_init(buf, cclx::sum);
    MPI_Barrier(MPI_COMM_WORLD);
    if (rank == victim) {
      for (int i = 0; i + 1 < n; ++i) {
        int gave_up = 0;
        MPI_Recv(&gave_up, 1, MPI_INT, MPI_ANY_SOURCE, victim, notices, MPI_STATUS_IGNORE);
      }
    } else {
      const Outcome o = call(comm, algo, buf);
      const int gave_up = 1;
      MPI_Send(&gave_up, 1, MPI_INT, victim, victim, notices);
      failed += report(rank, check_waiter(o, algo, rank, n, victim, deadline, false), o,
                       "round " + std::to_string(victim) + " (" + algo + "): ");
    }
    persistent = cclx::PersistentRequest();
  }
  return failed;
}

// shrink: in each round a rank of the current communicator dies in the middle of an allreduce
// (it starts the nonblocking form, tests it once and _exits); the others must throw naming it,
// shrink, and run a correct integer allreduce and a barrier on the shrunken communicator. One
// round per algorithm of `algos`; round r's victim is rank (first_victim + 5r) mod the size.
// Returns on the survivors of the last round with their verdict.
int shrink_rounds(int world_rank, int n, const std::vector<std::string>& algos, int first_victim) {
  auto comm = std::make_unique<cclx::Communicator<>>(MPI_COMM_WORLD);
  const double deadline = comm->timeout();
  std::vector<int> alive(static_cast<std::size_t>(n));  // world ranks of comm's ranks, in order
  for (int i = 0; i < n; ++i) alive[static_cast<std::size_t>(i)] = i;
  int failed = 0;
  for (std::size_t round = 0; round < algos.size(); ++round) {
    const std::string& name = algos[round];
    const int m = comm->size();
    const int victim = (first_victim + static_cast<int>(round) * 5) % m;
    comm->barrier();
    auto& buf = *new std::vector<float>(30000, 1.0f);  // leaked: a native call may still write it
    if (comm->rank() == victim) {
      with_algorithm(name, [&](const auto& policy) {
        auto rq = comm->iallreduce(buf, cclx::sum, policy);
        (void)rq.test();
        std::printf("cclx-fault-test: rank %d (world %d): exiting in %s\n", victim, world_rank,
                    name.c_str());
        std::fflush(stdout);
        std::_Exit(0);
      });
    }
    Outcome o;
    const auto t0 = Clock::now();
    try {
      with_algorithm(name, [&](const auto& policy) { comm->allreduce(buf, cclx::sum, policy); });
    } catch (const cclx::Error& e) {
      o.threw = true;
      o.message = e.what();
    }
    const int old_rank = comm->rank();
    std::string failure;
    if (o.threw) {
      o.elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      failure = check_waiter(o, name, old_rank, m, victim, deadline, true);
    } else {
      // The victim's data reached this rank before it died (it may in a tree): the next
      // collective finds the failure, and the others, already shrinking, are not blamed.
      try {
        comm->barrier();
        failure = "the barrier after the victim died did not throw";
      } catch (const cclx::Error& e) {
        o.threw = true;
        o.message = std::string("(allreduce completed) ") + e.what();
        if (!contains(o.message, "missing: rank " + std::to_string(victim) + " ("))
          failure = "barrier message does not name exactly rank " + std::to_string(victim);
      }
      o.elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
    }
    alive.erase(alive.begin() + victim);
    std::string recovered;
    if (failure.empty()) {
      try {
        comm = std::make_unique<cclx::Communicator<>>(comm->shrink());
        const auto me = std::find(alive.begin(), alive.end(), world_rank) - alive.begin();
        if (comm->size() != m - 1 || comm->rank() != me) {
          failure = "shrunken communicator: rank " + std::to_string(comm->rank()) + " of " +
                    std::to_string(comm->size()) + ", expected " + std::to_string(me) + " of " +
                    std::to_string(m - 1);
        } else {
          std::vector<std::int64_t> v(1000, world_rank + 1);
          with_algorithm(name, [&](const auto& policy) { comm->allreduce(v, cclx::sum, policy); });
          std::int64_t expected = 0;
          for (int w : alive) expected += w + 1;
          for (std::int64_t x : v)
            if (x != expected) failure = "wrong allreduce result on the shrunken communicator";
          comm->barrier();
          const double s = std::chrono::duration<double>(Clock::now() - t0).count();
          recovered = "; first collective on the shrunken communicator done " + std::to_string(s) +
                      " s after the fault";
          // The roll call's window (at most 2 s) comes on top of the deadline.
          if (std::string late = too_late(s, deadline + 2.0); !late.empty())
            failure = "recovered " + late;
        }
      } catch (const cclx::Error& e) {
        failure = std::string("shrink: ") + e.what();
      }
    }
    o.message += recovered;
    failed += report(
        old_rank, failure, o,
        "round " + std::to_string(round) + " (" + name + ", " + std::to_string(m) + " ranks): ");
    if (!failure.empty()) break;
  }
  return failed;
}

// shrinklate: rank 0 dies; the last rank calls shrink() only after the others' agreement gave up
// waiting for it. The others must shrink without it (and run a correct allreduce); it must get
// an error saying that it was left out, never a communicator of its own or a hang.
int shrink_late(int rank, int n) {
  cclx::Communicator comm(MPI_COMM_WORLD);
  const double deadline = comm.timeout();
  auto& buf = *new std::vector<float>(1000, 1.0f);  // leaked: a native call may still write it
  comm.barrier();
  if (rank == 0) std::_Exit(0);
  Outcome o;
  const auto t0 = Clock::now();
  std::string failure;
  try {
    comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
    failure = "no error";
  } catch (const cclx::Error& e) {
    o.threw = true;
    o.message = e.what();
  }
  if (rank == n - 1) {
    // Later than a round of the agreement (twice the deadline and the roll call's window), which
    // the others start up to a deadline and a window after this rank threw.
    const double window = std::clamp(deadline / 2, 0.2, 2.0);
    std::this_thread::sleep_for(std::chrono::duration<double>(3 * (deadline + window) + 2.0));
    try {
      cclx::Communicator alone = comm.shrink();
      failure = "the late rank got a communicator of " + std::to_string(alone.size());
    } catch (const cclx::Error& e) {
      o.message += std::string("; then ") + e.what();
      if (!contains(e.what(), "count this rank as failed"))
        failure = "the late rank's error does not say it was left out";
    }
  } else if (failure.empty()) {
    try {
      cclx::Communicator next = comm.shrink();
      std::vector<std::int64_t> v(100, rank);
      next.allreduce(v, cclx::sum, cclx::algo::Ring{});
      std::int64_t expected = 0;  // world ranks 1 .. n - 2 survive
      for (int r = 1; r + 1 < n; ++r) expected += r;
      if (next.size() != n - 2 || next.rank() != rank - 1)
        failure = "shrunken communicator: rank " + std::to_string(next.rank()) + " of " +
                  std::to_string(next.size());
      else if (v.front() != expected || v.back() != expected)
        failure = "wrong allreduce result on the shrunken communicator";
    } catch (const cclx::Error& e) {
      failure = std::string("shrink: ") + e.what();
    }
  }
  o.elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
  int failed = report(rank, failure, o, "shrinklate: ");
  // One verdict for the whole job, on the late rank (the survivors still reach it point to point).
  if (rank != n - 1) {
    MPI_Send(&failed, 1, MPI_INT, n - 1, 99, MPI_COMM_WORLD);
    return failed;
  }
  for (int r = 1; r + 1 < n; ++r) {
    int theirs = 1;
    MPI_Recv(&theirs, 1, MPI_INT, r, 99, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    failed += theirs;
  }
  std::printf("cclx-fault-test: shrinklate: %s\n",
              failed ? "FAILED" : ("all " + std::to_string(n - 1) + " survivors passed").c_str());
  std::fflush(stdout);
  return failed;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr,
                 "usage: cclx-fault-test sleep|exit|mismatch|finalized|destroy [ALGO]\n"
                 "       cclx-fault-test shrink ALGO[,ALGO...] [FIRST_VICTIM]\n");
    return 2;
  }
  const std::string scenario = argv[1];
  const std::string algo = argc > 2 ? argv[2] : "ring";
  if (algo == "padaptive") {
    int provided = 0;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  } else {
    MPI_Init(&argc, &argv);
  }
  int rank = 0, n = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &n);

  if (scenario == "finalized") {
    MPI_Finalize();
    Outcome o;
    try {
      cclx::Communicator comm(MPI_COMM_WORLD);
    } catch (const cclx::Error& e) {
      o.threw = true;
      o.message = e.what();
    }
    std::string failure;
    if (!o.threw)
      failure = "no error";
    else if (!contains(o.message, "finalized"))
      failure = "message does not say MPI is finalized";
    return report(rank, failure, o);
  }

  if (scenario == "errhandler") {
    MPI_Errhandler h;
    MPI_Comm_create_errhandler(&app_handler, &h);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, h);
    Outcome o;
    std::string failure;
    {
      cclx::Communicator comm(MPI_COMM_WORLD);
      std::vector<int> v(4, 1);
      comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
      int x = 0;
      const int rc = MPI_Send(&x, 1, MPI_INT, n + 5, 0, MPI_COMM_WORLD);  // invalid rank
      if (rc == MPI_SUCCESS) failure = "MPI_Send to an invalid rank succeeded";
      if (app_handler_calls != 1)
        failure = "the application's handler was called " + std::to_string(app_handler_calls) +
                  " times, not once";
    }
    MPI_Errhandler_free(&h);
    const int failed = report(rank, failure, o);
    MPI_Finalize();
    return failed;
  }

  if (scenario == "shrinklate") std::_Exit(shrink_late(rank, n));
  if (scenario == "shrink") {  // survivors leave with _exit: MPI_Finalize may wait for the dead
    std::vector<std::string> algos;
    for (std::size_t at = 0; at <= algo.size();) {
      const std::size_t end = std::min(algo.find(',', at), algo.size());
      algos.push_back(algo.substr(at, end - at));
      at = end + 1;
    }
    const int first_victim = argc > 3 ? std::atoi(argv[3]) : 0;
    std::_Exit(shrink_rounds(rank, n, algos, first_victim));
  }

  int failed = 0;
  if (scenario == "rollcall") {
    MPI_Comm notices = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &notices);
    failed = roll_call_rounds(rank, n, notices);
    MPI_Comm_free(&notices);
  } else {
    cclx::Communicator comm(MPI_COMM_WORLD);
    const double deadline = comm.timeout();
    if (deadline <= 0) {
      std::fprintf(stderr, "cclx-fault-test: set CCLX_TIMEOUT\n");
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const int victim = n - 1;
    // Leaked on purpose: a native collective that timed out stays with MPI (it can be neither
    // cancelled nor freed) and may write its buffer whenever the late rank catches up
    // (docs/faults.md), so the buffer must outlive it.
    auto& buf = *new std::vector<float>(3000, 1.0f);
    if (algo == "pring") persistent = comm.allreduce_init(buf, cclx::sum, cclx::algo::Ring{});
    if (algo == "pnative") persistent = comm.allreduce_init(buf, cclx::sum);
    if (algo == "padaptive") {
      comm.set_timeout(deadline + 3.0);
      persistent = comm.allreduce_init(
          buf, cclx::sum, cclx::algo::Adaptive{.fault_floor_s = deadline, .fault_cap_s = deadline});
    }
    // The sleep scenario's notices to the victim, apart from the collectives under test.
    MPI_Comm notices = MPI_COMM_NULL;
    MPI_Comm_dup(MPI_COMM_WORLD, &notices);
    // Everyone ready (and the communicator's setup done) before the clock starts.
    MPI_Barrier(MPI_COMM_WORLD);

    if (scenario == "sleep") {
      if (rank == victim) {
        // Late until every waiter has given up: a waiter whose time-out the machine's load
        // delays is never rescued by the victim arriving, so no check races against a sleep.
        for (int i = 0; i + 1 < n; ++i) {
          int gave_up = 0;
          MPI_Recv(&gave_up, 1, MPI_INT, MPI_ANY_SOURCE, 0, notices, MPI_STATUS_IGNORE);
        }
        const Outcome o = call(comm, algo, buf);  // others have given up: any outcome will do
        report(rank, {}, o);
      } else {
        const Outcome o = call(comm, algo, buf);
        const int gave_up = 1;
        MPI_Send(&gave_up, 1, MPI_INT, victim, 0, notices);
        std::string failure = check_waiter(o, algo, rank, n, victim, deadline, false);
        if (failure.empty() && is_persistent(algo)) {
          // The failed request is abandoned: starting it again throws, saying so.
          try {
            persistent.start();
            failure = "start() after a failed wait() did not throw";
          } catch (const cclx::Error& e) {
            if (!contains(e.what(), "abandoned after an error"))
              failure = std::string("start() after a failed wait(): ") + e.what();
          }
        }
        failed = report(rank, failure, o);
      }
    } else if (scenario == "exit") {
      if (rank == victim) {
        std::printf("cclx-fault-test: rank %d: exiting without MPI_Finalize\n", rank);
        std::fflush(stdout);
        std::_Exit(0);
      }
      const Outcome o = call(comm, algo, buf);
      // MPI may report the dead peer itself (MPIX_ERR_PROC_FAILED) before the deadline.
      std::_Exit(report(rank, check_waiter(o, algo, rank, n, victim, deadline, true), o));
    } else if (scenario == "mismatch") {
      if (rank == 0) buf.resize(buf.size() + 3 * static_cast<std::size_t>(n) * 100);
      const Outcome o = call(comm, algo, buf);
      std::string failure = o.threw ? too_late(o.elapsed, deadline) : "no error";
      if (failure.empty() && !contains(o.message, "allreduce (ring) step "))
        failure = "message does not name collective, algorithm and step";
      failed = report(rank, failure, o);
      // Some rank must have seen MPI's own error (a truncated message), with its context.
      int truncated = contains(o.message, "truncat") ? 1 : 0, any = 0;
      MPI_Allreduce(&truncated, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
      if (!any && rank == 0) {
        std::printf("cclx-fault-test: FAIL: no rank reported MPI's truncation error\n");
        failed = 1;
      }
    } else if (scenario == "destroy" && is_persistent(algo)) {
      Outcome o;
      if (rank != victim) {
        const auto t0 = Clock::now();
        try {
          persistent.start();
          persistent = cclx::PersistentRequest();  // destroys the active request
        } catch (const std::exception& e) {
          o.threw = true;
          o.message = e.what();
        }
        o.elapsed = std::chrono::duration<double>(Clock::now() - t0).count();
      }
      std::string failure;
      if (o.threw)
        failure = "the destructor threw";
      else if (rank != victim && o.elapsed < deadline * 0.9)
        failure = "the destructor returned before the deadline";
      else
        failure = too_late(o.elapsed, deadline);
      failed = report(rank, failure, o);
      // The victim never started its request: it stays inactive and is destroyed as such.
    } else {
      std::fprintf(stderr, "cclx-fault-test: unknown scenario '%s'\n", scenario.c_str());
      MPI_Abort(MPI_COMM_WORLD, 2);
    }
    persistent = cclx::PersistentRequest();  // before the Communicator and MPI_Finalize
    MPI_Comm_free(&notices);
  }
  int any_failed = 0;
  MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("cclx-fault-test %s %s: %s on %d ranks\n", scenario.c_str(), algo.c_str(),
                any_failed ? "FAILED" : "all passed", n);
  MPI_Finalize();
  return any_failed;
}
