// Timeouts and lifetime (docs/faults.md) as far as one doctest run can show them: the
// settings, collectives that still give the right result with a deadline set, a point-to-point
// wait that times out, and requests that outlive their Communicator. A rank that stalls or dies,
// and ranks that disagree on a count, are tests/faults/fault_test.cpp's (their own jobs).
#include <doctest/doctest.h>

#include <chrono>
#include <cstdlib>

#include "cclx/settings.hpp"
#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

struct EnvVar {  // sets a variable for one scope
  const char* name;
  explicit EnvVar(const char* n, const char* v) : name(n) {
    setenv(n, v, 1);
    cclx::settings::reload();  // cclx reads the environment once (cclx/settings.hpp)
  }
  ~EnvVar() {
    unsetenv(name);
    cclx::settings::reload();
  }
};

}  // namespace

TEST_CASE("faults: CCLX_TIMEOUT and set_timeout") {
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK(comm.timeout() == 0.0);  // default: none
    comm.set_timeout(2.5);
    CHECK(comm.timeout() == 2.5);
    CHECK(comm.backend().timeout() == 2.5);
    expect_error("negative timeout", comm.rank(), [&] { comm.set_timeout(-1); },
                 {"set_timeout", "seconds"});
    CHECK(comm.timeout() == 2.5);
  }
  for (const auto& setting : {std::pair<const char*, double>{"30", 30.0},
                              {"0.5", 0.5},
                              {"2s", 2.0},
                              {"0", 0.0},
                              {"off", 0.0},
                              {"none", 0.0}}) {
    const auto [value, expected] = setting;
    const EnvVar env("CCLX_TIMEOUT", value);
    Comm comm(MPI_COMM_WORLD);
    CHECK_MESSAGE(comm.timeout() == expected, "CCLX_TIMEOUT=" << setting.first);
  }
  for (const char* bad : {"abc", "-1", "5 min", "inf", "nan"}) {
    const EnvVar env("CCLX_TIMEOUT", bad);
    bool threw = false;
    try {
      Comm comm(MPI_COMM_WORLD);
    } catch (const cclx::Error& e) {
      threw = true;
      CHECK_MESSAGE(std::string(e.what()).find("CCLX_TIMEOUT") != std::string::npos, e.what());
    }
    CHECK_MESSAGE(threw, "CCLX_TIMEOUT=" << bad << " was accepted");
  }
}

TEST_CASE("faults: with a deadline set, every collective and algorithm still gives the result") {
  Comm comm(MPI_COMM_WORLD);
  comm.set_timeout(120);  // generous: only the path with a deadline is under test here
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  for_each_algorithm([&](std::string_view name, const auto& a) {
    const std::string l(name);
    if constexpr (serves<decltype(a)>(Coll::allreduce)) {
      std::vector<int> v(1000, r + 1);
      no_throw(l + " allreduce", [&] { comm.allreduce(v, cclx::sum, a); });
      CHECK_MESSAGE(v == std::vector<int>(1000, n * (n + 1) / 2), l);
      std::vector<int> w(77, r);
      auto rq = comm.iallreduce(w, cclx::max, a);
      no_throw(l + " iallreduce", [&] { rq.wait(); });
      CHECK_MESSAGE(w == std::vector<int>(77, n - 1), l);
    }
    if constexpr (serves<decltype(a)>(Coll::reduce)) {
      std::vector<int> v(100, 2);
      const int root = n - 1;
      no_throw(l + " reduce", [&] { comm.reduce(v, cclx::sum, root, a); });
      if (r == root) CHECK_MESSAGE(v == std::vector<int>(100, 2 * n), l);
    }
    if constexpr (serves<decltype(a)>(Coll::bcast)) {
      std::vector<int> v(100, r == 0 ? 7 : 0);
      no_throw(l + " bcast", [&] { comm.bcast(v, 0, a); });
      CHECK_MESSAGE(v == std::vector<int>(100, 7), l);
    }
    if constexpr (serves<decltype(a)>(Coll::reduce_scatter)) {
      std::vector<int> v(3 * un, 1);
      no_throw(l + " reduce_scatter", [&] { comm.reduce_scatter(v, cclx::sum, a); });
      CHECK_MESSAGE(std::vector<int>(v.begin(), v.begin() + 3) == std::vector<int>(3, n), l);
    }
    if constexpr (serves<decltype(a)>(Coll::allgather)) {
      std::vector<int> in(2, r), out(2 * un, -1), want;
      for (int i = 0; i < n; ++i) want.insert(want.end(), {i, i});
      no_throw(l + " allgather", [&] { comm.allgather(in, out, a); });
      CHECK_MESSAGE(out == want, l);
    }
    if constexpr (serves<decltype(a)>(Coll::alltoall)) {
      std::vector<int> in(un), out(un, -1), want(un, r);
      for (int i = 0; i < n; ++i) in[static_cast<std::size_t>(i)] = i;
      no_throw(l + " alltoall", [&] { comm.alltoall(in, out, a); });
      CHECK_MESSAGE(out == want, l);
    }
    if constexpr (serves<decltype(a)>(Coll::barrier))
      no_throw(l + " barrier", [&] { comm.barrier(a); });
  });
}

TEST_CASE("faults: Request::wait of an irecv nobody sends times out, naming the peer") {
  Comm comm(MPI_COMM_WORLD);
  const int r = comm.rank(), n = comm.size();
  comm.set_timeout(0.3);
  std::vector<int> v(4, -1);
  const int from = (r + 1) % n;
  auto rq = comm.irecv(v, from, 4242);
  const auto t0 = std::chrono::steady_clock::now();
  expect_error("irecv timeout", r, [&] { rq.wait(); },
               {"irecv from rank " + std::to_string(from), "did not complete within 0.3 s"});
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  CHECK_MESSAGE(took >= 0.25, "timed out after " << took << " s");
  CHECK_MESSAGE(took < 0.3 + 5.0, "timed out after " << took << " s");  // loaded 2-core machine
  CHECK_FALSE(rq.pending());                                            // abandoned (and cancelled)
  // The cancelled receive must not take a later message of the same tag (sent only once every
  // rank has given up its receive).
  comm.barrier();
  comm.set_timeout(30);
  std::vector<int> mine(4, r), got(4, -1);
  auto s = comm.isend(mine, (r + n - 1) % n, 4242);
  comm.recv(got, from, 4242);
  s.wait();
  CHECK(got == std::vector<int>(4, from));
}

TEST_CASE("faults: a Communicator destroyed with pending requests; they still complete") {
  const int n = [] {
    int s = 0;
    MPI_Comm_size(MPI_COMM_WORLD, &s);
    return s;
  }();
  for (int round = 0; round < 2; ++round) {
    std::vector<float> a(5000, 1.0f), b(3, 2.0f);
    std::vector<int> c(64, 1);
    cclx::Request ra, rb, rc;
    {
      Comm comm(MPI_COMM_WORLD);
      if (round == 1) comm.set_timeout(60);  // the timed waits too
      ra = comm.iallreduce(a, cclx::sum, cclx::algo::Ring{});
      rb = comm.iallreduce(b, cclx::sum);  // native
      rc = comm.iallreduce(c, cclx::sum, cclx::algo::RecursiveHalvingDoubling{});
    }  // the Communicator goes first
    no_throw("ring request after its Communicator", [&] { ra.wait(); });
    no_throw("native request after its Communicator", [&] { rb.wait(); });
    CHECK(a == std::vector<float>(5000, static_cast<float>(n)));
    CHECK(b == std::vector<float>(3, 2.0f * static_cast<float>(n)));
    // rc is left to its destructor, which completes it
    rc = cclx::Request();
    CHECK(c == std::vector<int>(64, n));
  }
}

}  // namespace cclx_test
