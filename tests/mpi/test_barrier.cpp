// barrier under MPI, native and scheduled (every policy of for_each_algorithm that serves it):
// nobody leaves before the late rank has entered, whichever rank is late; repeated barriers
// between other collectives, blocking and nonblocking, with and without CCLX_VALIDATE's agreement.
#include <doctest/doctest.h>

#include <chrono>
#include <thread>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;
// CLOCK_MONOTONIC: one clock for every process of the machine the tests run on.
using Clock = std::chrono::steady_clock;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch())
      .count();
}

}  // namespace

TEST_CASE("barrier: nobody leaves before the late rank entered, whichever rank is late") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  // Every rank as the late one up to 4 ranks; first, middle and last beyond (50 ms each).
  std::vector<int> lates;
  for (int l = 0; l < n; ++l)
    if (n <= 4 || l == 0 || l == n / 2 || l == n - 1) lates.push_back(l);
  for_each_algorithm_serving<Coll::barrier>([&](std::string_view name, const auto& a) {
    for (const int late : lates) {
      const std::string l = "barrier [" + std::string(name) + "] late rank " + std::to_string(late);
      progress(l);
      MPI_Barrier(MPI_COMM_WORLD);  // start together
      std::int64_t entered = 0;
      if (r == late) {
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        entered = now_ns();
      }
      no_throw(l, [&] { comm.barrier(a); });
      const std::int64_t left = now_ns();
      MPI_Bcast(&entered, 1, MPI_INT64_T, late, MPI_COMM_WORLD);
      CHECK_MESSAGE(left >= entered, l << ": rank " << r << " left " << (entered - left) / 1000
                                       << " us before the late rank entered");
    }
  });
}

TEST_CASE("barrier: repeated, between other collectives, with and without validation") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const cclx::algo::Dissemination diss{};
  for (int i = 0; i < 12; ++i) {
    const std::string l = "mixed iteration " + std::to_string(i);
    progress(l);
    comm.backend().set_validation(i % 3 == 2);
    no_throw(l, [&] {
      std::vector<int> v(257, r + i);
      comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
      CHECK_MESSAGE(v == std::vector<int>(257, n * (n - 1) / 2 + n * i), l << " ring");
      comm.barrier(diss);
      comm.barrier(diss);
      std::vector<double> b(33, r == n - 1 ? 1.5 * i : -1.0);
      comm.bcast(b, n - 1);
      CHECK_MESSAGE(b == std::vector<double>(33, 1.5 * i), l << " bcast");
      comm.barrier();
      // A nonblocking allreduce in flight while scheduled barriers run on their own channels.
      std::vector<std::int64_t> w(1000, r);
      auto rq = comm.iallreduce(w, cclx::max, cclx::algo::RecursiveDoubling{});
      comm.barrier(diss);
      rq.wait();
      CHECK_MESSAGE(w == std::vector<std::int64_t>(1000, n - 1), l << " iallreduce");
      std::vector<int> x(5, 1);
      comm.allreduce(x, cclx::sum, cclx::algo::RhdElimination{});
      CHECK_MESSAGE(x == std::vector<int>(5, n), l << " rhd_elimination");
      comm.barrier(diss);
    });
  }
  comm.backend().set_validation(false);
}

}  // namespace cclx_test
