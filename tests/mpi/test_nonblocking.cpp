// Nonblocking collectives (comm.i*): every collective x every algorithm serving it (Native
// included) x in place / out of place x roots {0, n/2, n-1} x counts {0, n+1}, on int32 (sum /
// max for reductions, exact) and float (sum: within tolerance), against a locally computed
// reference; then requests of different collectives outstanding together, completed in reverse
// order. iallreduce's own tests (wait, test loops, two outstanding) are in test_api.cpp.
#include <doctest/doctest.h>

#include <set>
#include <thread>
#include <utility>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// Completes `req` through a test() loop (odd counts) or wait().
void complete(cclx::Request& req, std::size_t count) {
  if (count % 2)
    while (!req.test()) std::this_thread::yield();  // oversubscribed: let the others run
  else
    req.wait();
  CHECK_FALSE(req.pending());
}

template <class T, class Op>
void reductions(Comm& comm, const Op& op, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const bool exact = !std::is_floating_point_v<T> || Op::id != cclx::OpId::sum;
  const auto t = type_name<T>();
  const auto o = cclx::to_string(Op::id);
  for_each_algorithm_serving<Coll::reduce>([&](std::string_view name, const auto& a) {
    for (int root : all_roots(n))
      for (bool ip : {false, true}) {
        const std::string l = form_label("nonblocking", "ireduce", t, o, count, name, ip, root);
        progress(l);
        const auto in = reduce_inputs<T>(Op::id, r, 0, count);
        std::vector<T> out = ip ? in : std::vector<T>(count, sentinel<T>());
        if (!no_throw(l, [&] {
              auto q = ip ? comm.ireduce(out, op, root, a) : comm.ireduce(in, out, op, root, a);
              complete(q, count);
            }))
          continue;
        if (r == root)
          compare(l, out, reduced<T>(Op::id, n, 0, count), exact);
        else
          compare(l + " non-root untouched", out, ip ? in : std::vector<T>(count, sentinel<T>()),
                  true);
      }
  });
  for_each_algorithm_serving<Coll::reduce_scatter>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      const std::string l = form_label("nonblocking", "ireduce_scatter", t, o, count, name, ip);
      progress(l);
      const auto in = reduce_inputs<T>(Op::id, r, 0, count * un);
      std::vector<T> out = ip ? in : std::vector<T>(count, sentinel<T>());
      if (!no_throw(l, [&] {
            auto q = ip ? comm.ireduce_scatter(out, op, a) : comm.ireduce_scatter(in, out, op, a);
            complete(q, count);
          }))
        continue;
      out.resize(count);  // in place: the first block
      compare(l, out, reduced<T>(Op::id, n, count * static_cast<std::size_t>(r), count), exact);
    }
  });
}

template <class T>
void data_movement(Comm& comm, Consistency& cons, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const auto t = type_name<T>();
  std::vector<T> all_blocks(block * un);  // block s from rank s
  for (int s = 0; s < n; ++s) {
    const auto p = payload<T>(s, 0, block);
    std::copy(p.begin(), p.end(), all_blocks.begin() + static_cast<std::ptrdiff_t>(s * block));
  }
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      const std::string l = form_label("nonblocking", "iallgather", t, "-", block, name, ip);
      progress(l);
      const auto mine = payload<T>(r, 0, block);
      std::vector<T> out(block * un, sentinel<T>());
      if (ip)
        std::copy(mine.begin(), mine.end(), out.begin() + static_cast<std::ptrdiff_t>(r * block));
      if (!no_throw(l, [&] {
            auto q = ip ? comm.iallgather(out, a) : comm.iallgather(mine, out, a);
            complete(q, block);
          }))
        continue;
      compare(l, out, all_blocks, true);
      cons.add(l, out);
    }
  });
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      const std::string l = form_label("nonblocking", "ialltoall", t, "-", block, name, ip);
      progress(l);
      const auto in = payload<T>(r, 0, block * un);  // block d goes to rank d
      std::vector<T> want(block * un);
      for (int s = 0; s < n; ++s) {
        const auto p = payload<T>(s, static_cast<std::size_t>(r) * block, block);
        std::copy(p.begin(), p.end(), want.begin() + static_cast<std::ptrdiff_t>(s * block));
      }
      std::vector<T> out = ip ? in : std::vector<T>(block * un, sentinel<T>());
      if (!no_throw(l, [&] {
            auto q = ip ? comm.ialltoall(out, a) : comm.ialltoall(in, out, a);
            complete(q, block);
          }))
        continue;
      compare(l, out, want, true);
    }
  });
  for (int root : all_roots(n)) {
    for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
      const std::string l = form_label("nonblocking", "ibcast", t, "-", block, name, true, root);
      progress(l);
      std::vector<T> buf = r == root ? payload<T>(root, 0, block) : std::vector<T>(block);
      if (!no_throw(l, [&] {
            auto q = comm.ibcast(buf, root, a);
            complete(q, block);
          }))
        return;
      compare(l, buf, payload<T>(root, 0, block), true);
      cons.add(l, buf);
    });
    for_each_algorithm_serving<Coll::gather>([&](std::string_view name, const auto& a) {
      for (bool ip : {false, true}) {
        const std::string l = form_label("nonblocking", "igather", t, "-", block, name, ip, root);
        progress(l);
        const auto mine = payload<T>(r, 0, block);
        std::vector<T> out;
        if (ip) {
          out = r == root ? std::vector<T>(block * un, sentinel<T>()) : mine;
          if (r == root)
            std::copy(mine.begin(), mine.end(),
                      out.begin() + static_cast<std::ptrdiff_t>(r * block));
        } else {
          out.assign(r == root ? block * un : 0, sentinel<T>());
        }
        if (!no_throw(l, [&] {
              auto q = ip ? comm.igather(out, root, a) : comm.igather(mine, out, root, a);
              complete(q, block);
            }))
          continue;
        if (r == root) compare(l, out, all_blocks, true);
      }
    });
    for_each_algorithm_serving<Coll::scatter>([&](std::string_view name, const auto& a) {
      for (bool ip : {false, true}) {
        const std::string l = form_label("nonblocking", "iscatter", t, "-", block, name, ip, root);
        progress(l);
        const auto all = payload<T>(root, 0, block * un);
        const auto want = payload<T>(root, static_cast<std::size_t>(r) * block, block);
        std::vector<T> in = r == root && !ip ? all : std::vector<T>{};
        std::vector<T> out = ip && r == root ? all : std::vector<T>(block, sentinel<T>());
        if (!no_throw(l, [&] {
              auto q = ip ? comm.iscatter(out, root, a) : comm.iscatter(in, out, root, a);
              complete(q, block);
            }))
          continue;
        compare(l, out, ip && r == root ? all : want, true);
      }
    });
  }
}

}  // namespace

TEST_CASE("grid nonblocking reductions") {
  Comm comm(MPI_COMM_WORLD);
  const auto n1 = static_cast<std::size_t>(comm.size()) + 1;
  for (std::size_t c : {std::size_t{0}, n1}) {
    reductions<std::int32_t>(comm, cclx::sum, c);
    reductions<std::int32_t>(comm, cclx::max, c);
    reductions<float>(comm, cclx::sum, c);
  }
}

TEST_CASE("grid nonblocking data movement") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  const auto n1 = static_cast<std::size_t>(comm.size()) + 1;
  for (std::size_t c : {std::size_t{0}, n1}) {
    data_movement<std::int32_t>(comm, cons, c);
    data_movement<float>(comm, cons, c);
  }
}

TEST_CASE("nonblocking: requests of different collectives outstanding together") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const int root = n - 1;
  for (int round = 0; round < 2; ++round) {
    progress("nonblocking overlap round " + std::to_string(round));
    std::vector<std::int64_t> red(100, r + 1), gat(3 * un, -1), a2a(2 * un), bc(50, -1), sc(4, -1),
        ar(10, r), rs(5 * un, r);
    const std::vector<std::int64_t> mine(3, 10 * r + round);
    for (std::size_t i = 0; i < a2a.size(); ++i)
      a2a[i] = std::int64_t{100} * r + static_cast<std::int64_t>(i);
    std::vector<std::int64_t> sc_all(4 * un);
    for (std::size_t i = 0; i < sc_all.size(); ++i) sc_all[i] = static_cast<std::int64_t>(i);
    if (r == root) std::fill(bc.begin(), bc.end(), 77 + round);
    std::vector<std::int64_t> sc_in = r == root ? sc_all : std::vector<std::int64_t>{};
    // Scheduled and native requests of seven collectives in flight at once; completed in
    // reverse order of starting (round 0) or in starting order (round 1).
    std::vector<cclx::Request> q;
    q.push_back(comm.ireduce(red, cclx::sum, root, cclx::algo::BinomialTree{}));
    q.push_back(comm.iallgather(mine, gat, cclx::algo::Ring{}));
    q.push_back(comm.ialltoall(a2a));  // native
    q.push_back(comm.ibcast(bc, root, cclx::algo::PipelinedTree{.segment_bytes = 64}));
    q.push_back(comm.iscatter(sc_in, sc, root));  // native
    q.push_back(comm.iallreduce(ar, cclx::max, cclx::algo::RecursiveHalvingDoubling{}));
    q.push_back(comm.ireduce_scatter(rs, cclx::sum));  // native, in place
    no_throw("overlapping requests", [&] {
      if (round == 0)
        for (auto it = q.rbegin(); it != q.rend(); ++it) it->wait();
      else
        for (auto& x : q) x.wait();
    });
    if (r == root) CHECK(red == std::vector<std::int64_t>(100, n * (n + 1) / 2));
    for (int s = 0; s < n; ++s)
      for (int k = 0; k < 3; ++k) CHECK(gat[static_cast<std::size_t>(3 * s + k)] == 10 * s + round);
    for (int s = 0; s < n; ++s)
      for (int k = 0; k < 2; ++k)
        CHECK(a2a[static_cast<std::size_t>(2 * s + k)] == 100 * s + 2 * r + k);
    CHECK(bc == std::vector<std::int64_t>(50, 77 + round));
    for (int k = 0; k < 4; ++k) CHECK(sc[static_cast<std::size_t>(k)] == 4 * r + k);
    CHECK(ar == std::vector<std::int64_t>(10, n - 1));
    for (std::size_t k = 0; k < 5; ++k) CHECK(rs[k] == n * (n - 1) / 2);
  }
}

}  // namespace cclx_test
