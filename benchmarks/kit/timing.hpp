// The timing and statistics kit of cclx's benchmarks: how a call is timed (MPI_Wtime, after a
// barrier), how per-rank times become one number (max, sum, avg/min/max across ranks) and how
// repetitions become one (median, quantile).
//
//   const double t = cclx::kit::slowest_call(comm, [&] { comm_allreduce(...); });  // one call
//   const double per_call = cclx::kit::timed_block(comm, iters, [&](long) { call(); }) / iters;
#pragma once

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <limits>
#include <thread>
#include <vector>

#include "cclx/detail/median.hpp"

namespace cclx::kit {

using cclx::detail::median;

// Seconds that `f()` takes on this rank's clock.
template <class F>
double seconds(F&& f) {
  const double t0 = MPI_Wtime();
  f();
  return MPI_Wtime() - t0;
}

// Seconds of one call on this rank: every rank leaves a barrier together, runs `before()` outside
// the clock (a straggler's delay), then times `call()`.
template <class F, class B>
double timed_call(MPI_Comm comm, F&& call, B&& before) {
  MPI_Barrier(comm);
  before();
  return seconds(call);
}
template <class F>
double timed_call(MPI_Comm comm, F&& call) {
  return timed_call(comm, call, [] {});
}

// Seconds of a block of `iters` calls of `body(i)` (i = 0 .. iters - 1) on this rank, from a
// barrier that every rank leaves together.
template <class F>
double timed_block(MPI_Comm comm, long iters, F&& body) {
  MPI_Barrier(comm);
  return seconds([&] {
    for (long i = 0; i < iters; ++i) body(i);
  });
}

inline double max_over_ranks(double v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, comm);
  return v;
}

inline double sum_over_ranks(double v, MPI_Comm comm) {
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_SUM, comm);
  return v;
}

// The slowest rank's time of one call (timed_call) - what a collective costs the job.
template <class F>
double slowest_call(MPI_Comm comm, F&& call) {
  return max_over_ranks(timed_call(comm, call), comm);
}

// A time across ranks, as OSU reports it.
struct Spread {
  double avg = 0, min = 0, max = 0;
};

// Avg / min / max of `t` over the ranks where `measured` (e.g. all but a straggler), on every
// rank.
inline Spread across_ranks(double t, bool measured, MPI_Comm comm) {
  double mn = measured ? t : std::numeric_limits<double>::infinity();
  double mx = measured ? t : -std::numeric_limits<double>::infinity();
  double sum[2] = {measured ? t : 0.0, measured ? 1.0 : 0.0};
  MPI_Allreduce(MPI_IN_PLACE, &mn, 1, MPI_DOUBLE, MPI_MIN, comm);
  MPI_Allreduce(MPI_IN_PLACE, &mx, 1, MPI_DOUBLE, MPI_MAX, comm);
  MPI_Allreduce(MPI_IN_PLACE, sum, 2, MPI_DOUBLE, MPI_SUM, comm);
  return {sum[0] / sum[1], mn, mx};
}

// Lower quantile q (0..1) of a sample by nearest rank.
inline double quantile(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  const auto i = static_cast<std::size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// Waits `ms` milliseconds precisely: sleeps most of it (frees the core), spins the rest.
inline void delay_ms(double ms) {
  const double until = MPI_Wtime() + ms * 1e-3;
  if (ms > 2) std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(ms - 1));
  while (MPI_Wtime() < until) {
  }
}

}  // namespace cclx::kit
