// Persistent collectives (comm.*_init): the grid, and the request's lifetime rules.
//
// Grid design ("grid persistent ..."): every collective x every algorithm serving it (Native
// included) x in place / out of place; per collective and algorithm every (type, op) pair below
// (together every element type and every op) at count n + 1 plus counts 0 and 2000 (segmented
// algorithms cut that), or for data movement every element type at counts {0, 1, n+1}; roots
// {0, n/2, n-1} cycling over those. Each request is started kStarts times with different inputs
// every time; each result is compared with a locally computed reference (exact for integers and
// min/max, relative tolerance for floating sum/prod) and, where the collective says so, must be
// bitwise identical across ranks. Lighter than the one-shot grid: every request duplicates a
// communicator at init.
#include <doctest/doctest.h>

#include <functional>
#include <set>
#include <thread>
#include <utility>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// Every element type and every op, each at least once; unsigned max/min and 8-bit sum are the
// ops where native MPI needs cclx's workarounds (docs/architecture.md).
template <class F>
void for_each_reduction_pair(F&& f) {
  f(Tag<float>{}, cclx::sum);
  f(Tag<double>{}, cclx::prod);
  f(Tag<std::int32_t>{}, cclx::band);
  f(Tag<std::int32_t>{}, cclx::bxor);
  f(Tag<std::int64_t>{}, cclx::bor);
  f(Tag<std::uint8_t>{}, cclx::max);
  f(Tag<std::uint64_t>{}, cclx::min);
  f(Tag<float>{}, cclx::max);
}

template <class T>
bool exact_for(cclx::OpId op) {
  return !std::is_floating_point_v<T> || op == cclx::OpId::min || op == cclx::OpId::max;
}

// New contents in the same storage: a request is bound to the buffer, not to the vector object
// (assigning another vector would free the bound buffer).
template <class T>
void refill(std::vector<T>& dst, const std::vector<T>& src) {
  REQUIRE(dst.size() == src.size());
  put(dst, 0, src);
}

// Makes the request with `init`, then runs kStarts starts: before each, `fill(g)` sets the
// inputs; after, `check(g, l)` compares. Start 1 completes through a test() loop, the others
// through wait(). Stops at the first throw (reported once by no_throw). Not a template: one
// compiled body for every case of the grid.
void starts(const std::string& l, const std::function<cclx::PersistentRequest()>& init,
            const std::function<void(int)>& fill,
            const std::function<void(int, const std::string&)>& check) {
  progress(l);
  cclx::PersistentRequest p;
  if (!no_throw(l + " init", [&] { p = init(); })) return;
  CHECK_MESSAGE(!p.active(), l << ": active before start()");
  for (int g = 0; g < kStarts; ++g) {
    fill(g);
    const std::string lg = l + " start " + std::to_string(g);
    const bool ok = no_throw(lg, [&] {
      p.start();
      if (g == 1)
        while (!p.test()) std::this_thread::yield();  // oversubscribed: let the others run
      else
        p.wait();
    });
    if (!ok) return;
    CHECK_MESSAGE(!p.active(), lg << ": still active after completion");
    check(g, lg);
  }
}

// ---- reductions ----

template <class T, class Op>
void allreduce_grid(Comm& comm, Consistency& cons, const Op& op, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(count), out(count, sentinel<T>());
      starts(
          form_label("persistent", "allreduce", type_name<T>(), cclx::to_string(Op::id), count,
                     name, ip),
          [&] {
            return ip ? comm.allreduce_init(out, op, a) : comm.allreduce_init(in, out, op, a);
          },
          [&](int g) { refill(ip ? out : in, reduce_inputs<T>(Op::id, r, 0, count, g)); },
          [&](int g, const std::string& l) {
            compare(l, out, reduced<T>(Op::id, n, 0, count, g), exact_for<T>(Op::id));
            if (!ip)
              compare(l + " input untouched", in, reduce_inputs<T>(Op::id, r, 0, count, g), true);
            cons.add(l, out);
          });
    }
  });
}

template <class T, class Op>
void reduce_grid(Comm& comm, const Op& op, std::size_t count, int root) {
  const int n = comm.size(), r = comm.rank();
  const bool is_root = r == root;
  for_each_algorithm_serving<Coll::reduce>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(count), out(count, sentinel<T>());
      starts(
          form_label("persistent", "reduce", type_name<T>(), cclx::to_string(Op::id), count, name,
                     ip, root),
          [&] {
            return ip ? comm.reduce_init(out, op, root, a) : comm.reduce_init(in, out, op, root, a);
          },
          [&](int g) { refill(ip ? out : in, reduce_inputs<T>(Op::id, r, 0, count, g)); },
          [&](int g, const std::string& l) {
            const auto mine = reduce_inputs<T>(Op::id, r, 0, count, g);
            if (is_root)
              compare(l, out, reduced<T>(Op::id, n, 0, count, g), exact_for<T>(Op::id));
            else if (ip)
              compare(l + " non-root buffer untouched", out, mine, true);
            else
              compare(l + " non-root output untouched", out, std::vector<T>(count, sentinel<T>()),
                      true);
            if (!ip) compare(l + " input untouched", in, mine, true);
          });
    }
  });
}

template <class T, class Op>
void reduce_scatter_grid(Comm& comm, const Op& op, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const std::size_t total = block * static_cast<std::size_t>(n);
  const std::size_t mine = block * static_cast<std::size_t>(r);
  for_each_algorithm_serving<Coll::reduce_scatter>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(total), out(ip ? total : block, sentinel<T>());
      starts(
          form_label("persistent", "reduce_scatter", type_name<T>(), cclx::to_string(Op::id), block,
                     name, ip),
          [&] {
            return ip ? comm.reduce_scatter_init(out, op, a)
                      : comm.reduce_scatter_init(in, out, op, a);
          },
          [&](int g) { refill(ip ? out : in, reduce_inputs<T>(Op::id, r, 0, total, g)); },
          [&](int g, const std::string& l) {
            // In place the result is the buffer's first block.
            const std::vector<T> got(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(block));
            compare(l, got, reduced<T>(Op::id, n, mine, block, g), exact_for<T>(Op::id));
          });
    }
  });
}

// ---- data movement ----

template <class T>
void bcast_grid(Comm& comm, Consistency& cons, std::size_t count, int root) {
  const int r = comm.rank();
  for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
    std::vector<T> buf(count, sentinel<T>());
    starts(
        form_label("persistent", "bcast", type_name<T>(), "-", count, name, true, root),
        [&] { return comm.bcast_init(buf, root, a); },
        [&](int g) {
          refill(buf,
                 r == root ? payload<T>(root, 0, count, g) : std::vector<T>(count, sentinel<T>()));
        },
        [&](int g, const std::string& l) {
          compare(l, buf, payload<T>(root, 0, count, g), true);
          cons.add(l, buf);
        });
  });
}

template <class T>
std::vector<T> gathered(int n, std::size_t block, int g) {
  std::vector<T> all(block * static_cast<std::size_t>(n));
  for (int s = 0; s < n; ++s)
    put(all, static_cast<std::size_t>(s) * block, payload<T>(s, 0, block, g));
  return all;
}

template <class T>
void allgather_grid(Comm& comm, Consistency& cons, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const std::size_t total = block * static_cast<std::size_t>(n);
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(block), out(total, sentinel<T>());
      starts(
          form_label("persistent", "allgather", type_name<T>(), "-", block, name, ip),
          [&] { return ip ? comm.allgather_init(out, a) : comm.allgather_init(in, out, a); },
          [&](int g) {
            std::fill(out.begin(), out.end(), sentinel<T>());
            if (ip)
              put(out, block * static_cast<std::size_t>(r), payload<T>(r, 0, block, g));
            else
              refill(in, payload<T>(r, 0, block, g));
          },
          [&](int g, const std::string& l) {
            compare(l, out, gathered<T>(n, block, g), true);
            cons.add(l, out);
          });
    }
  });
}

template <class T>
void gather_grid(Comm& comm, std::size_t block, int root) {
  const int n = comm.size(), r = comm.rank();
  const bool is_root = r == root;
  const std::size_t total = block * static_cast<std::size_t>(n);
  for_each_algorithm_serving<Coll::gather>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      // In place the root's buffer holds n blocks with its own at block root; the others' is
      // theirs. Out of place `out` matters on the root only.
      std::vector<T> in(block), out(ip ? (is_root ? total : block) : (is_root ? total : 0));
      starts(
          form_label("persistent", "gather", type_name<T>(), "-", block, name, ip, root),
          [&] { return ip ? comm.gather_init(out, root, a) : comm.gather_init(in, out, root, a); },
          [&](int g) {
            std::fill(out.begin(), out.end(), sentinel<T>());
            if (!ip)
              refill(in, payload<T>(r, 0, block, g));
            else
              put(out, is_root ? block * static_cast<std::size_t>(r) : 0,
                  payload<T>(r, 0, block, g));
          },
          [&](int g, const std::string& l) {
            if (is_root)
              compare(l, out, gathered<T>(n, block, g), true);
            else if (ip)
              compare(l + " non-root buffer untouched", out, payload<T>(r, 0, block, g), true);
          });
    }
  });
}

template <class T>
void scatter_grid(Comm& comm, std::size_t block, int root) {
  const int n = comm.size(), r = comm.rank();
  const bool is_root = r == root;
  const std::size_t total = block * static_cast<std::size_t>(n);
  const std::size_t mine = block * static_cast<std::size_t>(r);
  for_each_algorithm_serving<Coll::scatter>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      // In place the root's buffer holds all n blocks (its own stays at block root).
      std::vector<T> in(is_root && !ip ? total : 0), out(ip && is_root ? total : block);
      starts(
          form_label("persistent", "scatter", type_name<T>(), "-", block, name, ip, root),
          [&] {
            return ip ? comm.scatter_init(out, root, a) : comm.scatter_init(in, out, root, a);
          },
          [&](int g) {
            if (ip && is_root)
              refill(out, payload<T>(root, 0, total, g));
            else
              std::fill(out.begin(), out.end(), sentinel<T>());
            if (!ip && is_root) refill(in, payload<T>(root, 0, total, g));
          },
          [&](int g, const std::string& l) {
            if (ip && is_root)
              compare(l, out, payload<T>(root, 0, total, g), true);
            else
              compare(l, out, payload<T>(root, mine, block, g), true);
          });
    }
  });
}

template <class T>
void alltoall_grid(Comm& comm, std::size_t block) {
  const int n = comm.size(), r = comm.rank();
  const std::size_t total = block * static_cast<std::size_t>(n);
  // Block d of rank s's input goes to rank d: payload(s) at d * block.
  auto want = [&](int g) {
    std::vector<T> w(total);
    for (int s = 0; s < n; ++s)
      put(w, static_cast<std::size_t>(s) * block,
          payload<T>(s, static_cast<std::size_t>(r) * block, block, g));
    return w;
  };
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    for (bool ip : {false, true}) {
      std::vector<T> in(total), out(total, sentinel<T>());
      starts(
          form_label("persistent", "alltoall", type_name<T>(), "-", block, name, ip),
          [&] { return ip ? comm.alltoall_init(out, a) : comm.alltoall_init(in, out, a); },
          [&](int g) {
            refill(ip ? out : in, payload<T>(r, 0, total, g));
            if (!ip) std::fill(out.begin(), out.end(), sentinel<T>());
          },
          [&](int g, const std::string& l) { compare(l, out, want(g), true); });
    }
  });
}

std::vector<std::size_t> data_counts(int n) {
  return {0, 1, static_cast<std::size_t>(n) + 1};
}

}  // namespace

// Per collective and algorithm, both in place and out of place: every (type, op) pair at count
// n + 1, the root (rooted collectives) cycling through {0, n/2, n-1} over the pairs; count 0 on
// int32 sum, and 2000 on uint8 sum (segmented algorithms cut it; Open MPI's saturating 8-bit sum
// shows from 32 elements on). Every init is a collective, hence the lighter product.
template <class F>
void for_each_reduction_case(int n, F&& f) {
  const auto roots = all_roots(n);
  std::size_t k = 0;
  for_each_reduction_pair([&](auto tag, const auto& op) {
    f(tag, op, static_cast<std::size_t>(n) + 1, roots[k++ % roots.size()]);
  });
  f(Tag<std::int32_t>{}, cclx::sum, std::size_t{0}, roots.front());
  f(Tag<std::uint8_t>{}, cclx::sum, std::size_t{2000}, roots.back());
}

TEST_CASE("grid persistent allreduce") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  for_each_reduction_case(comm.size(), [&](auto tag, const auto& op, std::size_t count, int) {
    allreduce_grid<typename decltype(tag)::type>(comm, cons, op, count);
  });
}

TEST_CASE("grid persistent reduce") {
  Comm comm(MPI_COMM_WORLD);
  for_each_reduction_case(comm.size(), [&](auto tag, const auto& op, std::size_t count, int root) {
    reduce_grid<typename decltype(tag)::type>(comm, op, count, root);
  });
}

TEST_CASE("grid persistent reduce_scatter") {
  Comm comm(MPI_COMM_WORLD);
  for_each_reduction_case(comm.size(), [&](auto tag, const auto& op, std::size_t count, int) {
    reduce_scatter_grid<typename decltype(tag)::type>(comm, op, count);
  });
}

// Every element type per collective and algorithm, counts {0, 1, n+1} and roots cycling.
TEST_CASE("grid persistent data movement") {
  Comm comm(MPI_COMM_WORLD);
  Consistency cons(comm.native_handle());
  const auto roots = all_roots(comm.size());
  const auto counts = data_counts(comm.size());
  std::size_t k = 0;
  for_each_type([&](auto tag) {
    using T = typename decltype(tag)::type;
    const std::size_t c = counts[k % counts.size()];
    const int root = roots[k % roots.size()];
    ++k;
    allgather_grid<T>(comm, cons, c);
    alltoall_grid<T>(comm, c);
    bcast_grid<T>(comm, cons, c, root);
    gather_grid<T>(comm, c, root);
    scatter_grid<T>(comm, c, root);
  });
}

// ---- the request's lifetime and errors (docs/faults.md for a request that fails) ----

TEST_CASE("persistent: start() on an active request throws; wait() and test() when inactive") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size();
  std::vector<int> buf(10, 1);
  auto check = [&](std::string_view name, auto&& algorithm) {
    progress(std::string("persistent lifetime ") + std::string(name));
    std::fill(buf.begin(), buf.end(), 1);
    auto p = comm.allreduce_init(buf, cclx::sum, algorithm);
    CHECK(p.valid());
    CHECK_FALSE(p.active());
    p.wait();  // never started: returns at once, as MPI_Wait on an inactive request
    CHECK(p.test());
    CHECK(buf == std::vector<int>(10, 1));
    p.start();
    CHECK(p.active());
    expect_error(std::string(name) + ": start while active", comm.rank(), [&] { p.start(); },
                 {"start() while active", "allreduce"});
    p.wait();  // the first start is unaffected
    CHECK(buf == std::vector<int>(10, n));
    CHECK_FALSE(p.active());
    p.wait();  // complete: returns at once
    CHECK(p.test());
  };
  check("ring", cclx::algo::Ring{});
  check("native", cclx::algo::Native{});
  cclx::PersistentRequest empty;
  CHECK_FALSE(empty.valid());
  CHECK(empty.test());
  empty.wait();
  CHECK_THROWS_AS(empty.start(), cclx::Error);
}

TEST_CASE("persistent: destroying an active request completes it") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size();
  for (int native = 0; native < 2; ++native) {
    std::vector<double> buf(1000, 2.0);
    {
      auto p = native ? comm.allreduce_init(buf, cclx::sum)
                      : comm.allreduce_init(buf, cclx::sum, cclx::algo::Ring{});
      p.start();
    }  // the destructor waits
    CHECK_MESSAGE(buf == std::vector<double>(1000, 2.0 * n), (native ? "native" : "ring"));
    // Moving onto an active request completes it first.
    std::vector<int> a(5, 1), b(5, 1);
    auto pa = comm.allreduce_init(a, cclx::sum, cclx::algo::RecursiveHalvingDoubling{});
    auto pb = comm.allreduce_init(b, cclx::max);
    pa.start();
    pa = std::move(pb);
    CHECK(a == std::vector<int>(5, n));
    CHECK_FALSE(pb.valid());  // NOLINT(bugprone-use-after-move): moved-from is empty
    pa.start();
    pa.wait();
    CHECK(b == std::vector<int>(5, 1));
  }
}

TEST_CASE("persistent: a request outlives its Communicator and still starts") {
  const int n = world_size();
  std::vector<float> ring_buf(3000), native_buf(7);
  std::vector<int> bcast_buf(33);
  cclx::PersistentRequest pr, pn, pb;
  {
    Comm comm(MPI_COMM_WORLD);
    pr = comm.allreduce_init(ring_buf, cclx::sum, cclx::algo::Ring{.segment_bytes = 1024});
    pn = comm.allreduce_init(native_buf, cclx::sum);
    pb = comm.bcast_init(bcast_buf, n - 1, cclx::algo::BinomialTree{});
    std::fill(ring_buf.begin(), ring_buf.end(), 1.0f);
    pr.start();
  }  // the Communicator goes first; the requests keep what they need alive
  no_throw("ring request after its Communicator", [&] { pr.wait(); });
  CHECK(ring_buf == std::vector<float>(3000, static_cast<float>(n)));
  for (int g = 0; g < 3; ++g) {
    std::fill(ring_buf.begin(), ring_buf.end(), static_cast<float>(g));
    std::fill(native_buf.begin(), native_buf.end(), static_cast<float>(g + 1));
    std::fill(bcast_buf.begin(), bcast_buf.end(), world_rank() == n - 1 ? g + 5 : -1);
    pr.start();
    pn.start();
    pb.start();
    no_throw("started after the Communicator", [&] {
      pb.wait();
      pn.wait();
      pr.wait();
    });
    CHECK(ring_buf == std::vector<float>(3000, static_cast<float>(g * n)));
    CHECK(native_buf == std::vector<float>(7, static_cast<float>((g + 1) * n)));
    CHECK(bcast_buf == std::vector<int>(33, g + 5));
  }
}

TEST_CASE("persistent: one-shot and nonblocking calls between start() and wait() never mix") {
  // The request runs on its own communicator (docs/architecture.md, Tags): other calls, of the
  // same shape and algorithm, in flight at the same time on the same Communicator, take channel
  // numbers meanwhile and must match only each other.
  Comm comm(MPI_COMM_WORLD);
  const std::int64_t n = comm.size(), r = comm.rank();
  std::vector<std::int64_t> pbuf(257), p2buf(257), one(257), nb(257);
  auto p = comm.allreduce_init(pbuf, cclx::sum, cclx::algo::Ring{});
  auto p2 = comm.allreduce_init(p2buf, cclx::sum, cclx::algo::Ring{});
  for (std::int64_t g = 0; g < 3; ++g) {
    progress("persistent isolation round " + std::to_string(g));
    std::fill(pbuf.begin(), pbuf.end(), 1000 * (g + 1) + r);
    std::fill(p2buf.begin(), p2buf.end(), 7 * (g + 1));
    p.start();
    std::fill(nb.begin(), nb.end(), 3 * r);
    auto q = comm.iallreduce(nb, cclx::sum, cclx::algo::Ring{});
    p2.start();
    for (std::int64_t k = 0; k < 20; ++k) {
      std::fill(one.begin(), one.end(), k + r);
      comm.allreduce(one, cclx::sum, cclx::algo::Ring{});
      CHECK(one == std::vector<std::int64_t>(257, n * k + n * (n - 1) / 2));
      std::fill(one.begin(), one.end(), k);
      comm.allreduce(one, cclx::max);
      CHECK(one == std::vector<std::int64_t>(257, k));
    }
    p2.wait();
    q.wait();
    p.wait();
    CHECK(pbuf == std::vector<std::int64_t>(257, n * 1000 * (g + 1) + n * (n - 1) / 2));
    CHECK(p2buf == std::vector<std::int64_t>(257, n * 7 * (g + 1)));
    CHECK(nb == std::vector<std::int64_t>(257, 3 * (n * (n - 1) / 2)));
  }
}

TEST_CASE("persistent: a user-defined op with Native is refused on every rank") {
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> buf(4, 1);
  auto op = cclx::user_op([](int a, int b) { return a + b; }, true);
  expect_error("native persistent with a user op", comm.rank(),
               [&] { auto p = comm.allreduce_init(buf, op); }, {"user-defined"});
  // A scheduled algorithm takes it, and keeps the op (a temporary here) alive as long as the
  // request: a (+) b = a + b + 1 is commutative and associative; over n ranks it adds n - 1.
  const int n = comm.size();
  auto p = comm.allreduce_init(buf, cclx::user_op([](int a, int b) { return a + b + 1; }, true),
                               cclx::algo::Ring{});
  for (int g = 0; g < 3; ++g) {
    std::fill(buf.begin(), buf.end(), g);
    p.start();
    p.wait();
    CHECK(buf == std::vector<int>(4, g * n + n - 1));
  }
}

TEST_CASE("persistent: CCLX_VALIDATE checks at init that every rank makes the same request") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  std::vector<int> buf(6, 1);
  {  // Agreeing ranks: validated once, at init; the starts need nothing more.
    auto p = comm.allreduce_init(buf, cclx::sum, cclx::algo::Ring{});
    for (int g = 0; g < 3; ++g) {
      std::fill(buf.begin(), buf.end(), g);
      p.start();
      p.wait();
      CHECK(buf == std::vector<int>(6, g * n));
    }
  }
  if (n > 1) {
    // Rank 0 makes a persistent request where the others make a one-shot call: every rank
    // throws instead of rank 0 duplicating a communicator while the others run a collective.
    expect_error("init against a one-shot call", r,
                 [&] {
                   if (r == 0) {
                     auto p = comm.allreduce_init(buf, cclx::sum, cclx::algo::Ring{});
                   } else {
                     comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
                   }
                 },
                 {"persistent init", "ranks disagree"});
  }
  // The communicator still works.
  std::fill(buf.begin(), buf.end(), 1);
  comm.allreduce(buf, cclx::sum, cclx::algo::Ring{});
  CHECK(buf == std::vector<int>(6, n));
}

}  // namespace cclx_test
