// The rest of the API under MPI: point-to-point, iallreduce (wait / test loops), user ops
// (commutative with Native and Ring, non-commutative with every order-keeping algorithm, both
// against a locally computed reference), Ownership::borrow vs duplicate, and sub-communicators
// from MPI_Comm_split.
#include <doctest/doctest.h>

#include <array>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// Affine maps x -> m x + c (mod p) packed as (m << 32) | c, composed left to right: f(a, b) applies
// a, then b. Associative and NOT commutative, so the result shows the order of the contributions.
constexpr std::uint64_t P = 65521;
std::uint64_t compose(std::uint64_t a, std::uint64_t b) {
  const std::uint64_t ma = a >> 32, ca = a & 0xffffffffu, mb = b >> 32, cb = b & 0xffffffffu;
  return ((ma * mb % P) << 32) | ((mb * ca + cb) % P);
}
std::uint64_t affine_input(int rank, std::size_t i) {
  const auto r = static_cast<std::uint64_t>(rank);
  return ((2 + (r * 7 + i) % 100) << 32) | ((r * 13 + i * 5) % 1000);
}

// Runs `f`; an algorithm may refuse a non-commutative op (a cclx::Error saying so, on every rank),
// otherwise its result must equal MPI's. Returns whether it ran.
template <class F>
bool run_or_refuse(const std::string& l, F&& f) {
  try {
    f();
    return true;
  } catch (const cclx::Error& e) {
    const std::string msg = e.what();
    CHECK_MESSAGE(msg.find("non-commutative") != std::string::npos,
                  l << ": unexpected error: " << msg);
    return false;
  }
}

// The non-commutative op through `a`: every algorithm whose schedule claims to preserve rank
// order must give MPI's result; the others must refuse with a clear error.
template <class A>
void check_noncommutative(Comm& comm, const A& a, std::string_view name, std::size_t count,
                          int root, Coll coll) {
  const int n = comm.size(), r = comm.rank();
  auto op = cclx::user_op([](std::uint64_t x, std::uint64_t y) { return compose(x, y); }, false);
  std::vector<std::uint64_t> input(count), want(count);
  for (std::size_t i = 0; i < count; ++i) {
    input[i] = affine_input(r, i);
    want[i] = affine_input(0, i);
    for (int s = 1; s < n; ++s) want[i] = compose(want[i], affine_input(s, i));
  }
  const std::string l = "non-commutative user op, " + std::string(name) +
                        ", count=" + std::to_string(count) + ", root " + std::to_string(root);
  progress(l);
  // MPI's own result with the same user op.
  std::vector<std::uint64_t> mpi(count);
  no_throw(l + " native allreduce", [&] { comm.allreduce(input, mpi, op); });
  compare(l + " MPI vs rank-order fold", mpi, want, true);

  if (coll == Coll::allreduce) {
    if constexpr (serves<A>(Coll::allreduce)) {
      std::vector<std::uint64_t> out(count, 0);
      if (run_or_refuse(l, [&] { comm.allreduce(input, out, op, a); }))
        compare(l + " allreduce", out, mpi, true);
      std::vector<std::uint64_t> buf = input;
      if (run_or_refuse(l, [&] { comm.allreduce(buf, op, a); }))
        compare(l + " allreduce in place", buf, mpi, true);
    }
  } else if constexpr (serves<A>(Coll::reduce)) {
    std::vector<std::uint64_t> red(count, 0);
    if (run_or_refuse(l, [&] { comm.reduce(input, red, op, root, a); }) && r == root)
      compare(l + " reduce", red, mpi, true);
    std::vector<std::uint64_t> buf = input;
    if (run_or_refuse(l, [&] { comm.reduce(buf, op, root, a); }))
      compare(l + " reduce in place", buf, r == root ? mpi : input, true);
  }
}

}  // namespace

TEST_CASE("point-to-point: send/recv/isend/irecv on ranges") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  const int right = (r + 1) % n, left = (r + n - 1) % n;

  // vector<int>: isend right, blocking recv from the left.
  std::vector<int> v(1000), got(1000, -1), want(1000);
  for (int i = 0; i < 1000; ++i) {
    v[static_cast<std::size_t>(i)] = r * 100000 + i;
    want[static_cast<std::size_t>(i)] = left * 100000 + i;
  }
  {
    auto s = comm.isend(v, right, 7);
    comm.recv(got, left, 7);
    s.wait();
  }
  CHECK(got == want);

  // std::array<double> and a span into a larger buffer: irecv + blocking send, tags kept apart.
  std::array<double, 5> a{};
  for (std::size_t i = 0; i < 5; ++i) a[i] = r + 0.5 * static_cast<double>(i);
  std::vector<double> big(20, -1.0);
  std::span<double> window(big.data() + 10, 5);
  {
    auto rq = comm.irecv(window, left, 3);
    std::array<double, 5> other{};  // a second message with another tag must not match tag 3
    other.fill(-7.0);
    auto rq2 = comm.irecv(std::span<double>(big.data(), 5), left, 4);
    {
      auto s2 = comm.isend(other, right, 4);
      comm.send(a, right, 3);
      s2.wait();
    }
    while (!rq.test()) {
    }
    rq2.wait();
  }
  for (std::size_t i = 0; i < 5; ++i) {
    CHECK(window[i] == left + 0.5 * static_cast<double>(i));
    CHECK(big[i] == -7.0);
  }
  CHECK(big[9] == -1.0);
  CHECK(big[15] == -1.0);

  // uint8 and int64 from every rank to rank 0 (n - 1 messages), identified by source.
  std::vector<std::int64_t> mine{r, -r, std::int64_t{1} << 40};
  if (r == 0) {
    for (int s = 1; s < n; ++s) {
      std::vector<std::int64_t> in(3, 0);
      comm.recv(in, s, 11);
      CHECK(in == std::vector<std::int64_t>{s, -s, std::int64_t{1} << 40});
    }
  } else {
    comm.send(mine, 0, 11);
  }
  // Zero-length messages.
  std::vector<std::uint8_t> empty;
  {
    auto rq = comm.irecv(empty, left, 12);
    comm.send(empty, right, 12);
    rq.wait();
    CHECK_FALSE(rq.pending());
  }
}

TEST_CASE("iallreduce: Native and Ring, wait and test loops") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  for (std::size_t count :
       {std::size_t{0}, std::size_t{1}, std::size_t{1000}, std::size_t{100003}}) {
    std::vector<std::int64_t> in(count), want(count);
    for (std::size_t i = 0; i < count; ++i) {
      in[i] = static_cast<std::int64_t>(i % 1000) * 10 + r;
      want[i] = static_cast<std::int64_t>(i % 1000) * 10 * n + n * (n - 1) / 2;
    }
    const std::string c = " count=" + std::to_string(count);
    progress("iallreduce" + c);
    {  // Native, out of place, wait()
      std::vector<std::int64_t> out(count, -1);
      auto req = comm.iallreduce(in, out, cclx::sum);
      req.wait();
      CHECK_FALSE(req.pending());
      compare("native iallreduce wait" + c, out, want, true);
    }
    {  // Native, in place, test() loop
      std::vector<std::int64_t> buf = in;
      auto req = comm.iallreduce(buf, cclx::sum);
      std::size_t polls = 0;
      while (!req.test()) ++polls;
      compare("native iallreduce test loop" + c, buf, want, true);
    }
    {  // Ring, out of place, test() loop
      std::vector<std::int64_t> out(count, -1);
      auto req = comm.iallreduce(in, out, cclx::sum, cclx::algo::Ring{});
      while (!req.test()) {
      }
      CHECK(req.test());  // stays complete
      compare("ring iallreduce test loop" + c, out, want, true);
    }
    {  // Two Ring requests outstanding at once (in place, segmented), completed in reverse order.
      std::vector<std::int64_t> b1 = in, b2 = in;
      for (auto& x : b2) x *= 2;
      auto q1 = comm.iallreduce(b1, cclx::sum, cclx::algo::Ring{.segment_bytes = 4096});
      auto q2 = comm.iallreduce(b2, cclx::max, cclx::algo::Ring{});
      q2.wait();
      q1.wait();
      compare("ring iallreduce 1 of 2" + c, b1, want, true);
      std::vector<std::int64_t> want2(count);
      for (std::size_t i = 0; i < count; ++i)
        want2[i] = 2 * (static_cast<std::int64_t>(i % 1000) * 10 + (n - 1));
      compare("ring iallreduce 2 of 2" + c, b2, want2, true);
    }
    {  // A request dropped while pending completes in its destructor.
      std::vector<std::int64_t> buf = in;
      { auto req = comm.iallreduce(buf, cclx::sum, cclx::algo::Ring{}); }
      compare("ring iallreduce completed by destructor" + c, buf, want, true);
    }
  }
}

TEST_CASE("iallreduce: a user op with Native throws on every rank") {
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> buf(4, 1);
  auto op = cclx::user_op([](int a, int b) { return a + b; }, true);
  expect_error("native iallreduce with a user op", comm.rank(),
               [&] { auto req = comm.iallreduce(buf, op); }, {"user-defined"});
  // The communicator still works afterwards.
  comm.allreduce(buf, cclx::sum);
  CHECK(buf == std::vector<int>(4, comm.size()));
}

TEST_CASE("user op: BinomialTree serves reduce with a non-commutative op") {
  // Spec: BinomialTree does reduce, bcast and allreduce in rank order; the non-commutative reduce
  // is the case it exists for.
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  auto op = cclx::user_op([](std::uint64_t x, std::uint64_t y) { return compose(x, y); }, false);
  std::vector<std::uint64_t> in(33), want(33), out(33, 0);
  for (std::size_t i = 0; i < 33; ++i) {
    in[i] = affine_input(r, i);
    want[i] = affine_input(0, i);
    for (int s = 1; s < n; ++s) want[i] = compose(want[i], affine_input(s, i));
  }
  no_throw("binomial_tree reduce, non-commutative",
           [&] { comm.reduce(in, out, op, n - 1, cclx::algo::BinomialTree{}); });
  if (r == n - 1) compare("binomial_tree reduce, non-commutative", out, want, true);
}

TEST_CASE("user op: commutative, Native and Ring equal the local reference") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  // (a + b) mod M on int64: commutative and associative. Every input is below M, so any order of
  // the reduction gives the sum of the n inputs mod M, computed here rank by rank.
  constexpr std::int64_t M = 1000003;
  auto op = cclx::user_op([](std::int64_t a, std::int64_t b) { return (a + b) % M; }, true);
  const auto value = [](int rank, std::size_t i) {
    return static_cast<std::int64_t>(mix(static_cast<std::uint64_t>(rank) * 7919 + i) % M);
  };
  const auto sum_mod = [&](std::size_t first, std::size_t count) {
    std::vector<std::int64_t> want(count, 0);
    for (int q = 0; q < n; ++q)
      for (std::size_t i = 0; i < count; ++i) want[i] = (want[i] + value(q, first + i)) % M;
    return want;
  };
  for (std::size_t count : {std::size_t{1}, std::size_t{1001}, std::size_t{262147}}) {
    std::vector<std::int64_t> in(count);
    for (std::size_t i = 0; i < count; ++i) in[i] = value(r, i);
    const auto want = sum_mod(0, count);
    const std::string l = "commutative user op count=" + std::to_string(count);
    progress(l);
    std::vector<std::int64_t> native(count), ring(count), seg(count);
    no_throw(l, [&] { comm.allreduce(in, native, op); });
    no_throw(l, [&] { comm.allreduce(in, ring, op, cclx::algo::Ring{}); });
    no_throw(l, [&] { comm.allreduce(in, seg, op, cclx::algo::Ring{.segment_bytes = 1024}); });
    compare(l + " native", native, want, true);
    compare(l + " ring", ring, want, true);
    compare(l + " segmented ring", seg, want, true);
    // reduce_scatter: blocks of count / n elements, so the whole vector stays about `count`.
    const std::size_t block = std::max<std::size_t>(1, count / static_cast<std::size_t>(n));
    std::vector<std::int64_t> rin(block * static_cast<std::size_t>(n));
    for (std::size_t i = 0; i < rin.size(); ++i) rin[i] = value(r, i);
    const auto rs_want = sum_mod(static_cast<std::size_t>(r) * block, block);
    std::vector<std::int64_t> rs_native(block), rs_ring(block);
    no_throw(l, [&] { comm.reduce_scatter(rin, rs_native, op); });
    no_throw(l, [&] { comm.reduce_scatter(rin, rs_ring, op, cclx::algo::Ring{}); });
    compare(l + " native reduce_scatter", rs_native, rs_want, true);
    compare(l + " ring reduce_scatter", rs_ring, rs_want, true);
  }
}

TEST_CASE("user op: non-commutative (affine composition) keeps rank order") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size();
  // Native against the rank-order fold (MPI's own result); then every algorithm of the list:
  // order-preserving ones must match, the others must refuse.
  for_each_algorithm([&](std::string_view name, const auto& a) {
    for (Coll coll : {Coll::allreduce, Coll::reduce}) {
      if (!supports(a, coll)) continue;
      for (std::size_t count : {std::size_t{1}, std::size_t{17}, std::size_t{4099}})
        for (int root : {0, n / 2, n - 1})
          if (coll == Coll::reduce || root == 0)
            check_noncommutative(comm, a, name, count, root, coll);
    }
  });
}

TEST_CASE("ownership: borrow uses the communicator, duplicate copies it") {
  const int n = world_size();
  MPI_Comm mine = MPI_COMM_NULL;
  MPI_Comm_dup(MPI_COMM_WORLD, &mine);
  {
    cclx::Communicator borrowed(mine, cclx::Ownership::borrow);
    int cmp = 0;
    MPI_Comm_compare(borrowed.native_handle(), mine, &cmp);
    CHECK(cmp == MPI_IDENT);
    std::vector<int> v{1, 2};
    borrowed.allreduce(v, cclx::sum, cclx::algo::Ring{});
    CHECK(v == std::vector<int>{n, 2 * n});
  }
  {  // the borrowed communicator outlives the Communicator and still works
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, mine);
    CHECK(total == n);
  }
  {
    cclx::Communicator dup(mine, cclx::Ownership::duplicate);
    int cmp = 0;
    MPI_Comm_compare(dup.native_handle(), mine, &cmp);
    CHECK(cmp == MPI_CONGRUENT);  // same group, different context
    CHECK(dup.native_handle() != mine);
    std::vector<double> v{1.5};
    dup.allreduce(v, cclx::max);
    CHECK(v[0] == 1.5);
  }
  {
    int one = 1, total = 0;
    MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, mine);
    CHECK(total == n);
  }
  {  // Default: duplicate of MPI_COMM_WORLD; application traffic on the world does not interfere.
    cclx::Communicator comm(MPI_COMM_WORLD);
    int cmp = 0;
    MPI_Comm_compare(comm.native_handle(), MPI_COMM_WORLD, &cmp);
    CHECK(cmp == MPI_CONGRUENT);
  }
  MPI_Comm_free(&mine);
}

TEST_CASE("MPI_Comm_split: sub-communicators of different sizes run collectives concurrently") {
  const int n = world_size(), wr = world_rank();
  // Three groups by world rank % 3 (sizes differ unless n % 3 == 0), ordered by descending world
  // rank so that sub-rank order differs from world order.
  MPI_Comm sub_raw = MPI_COMM_NULL;
  const int color = wr % 3;
  MPI_Comm_split(MPI_COMM_WORLD, color, n - wr, &sub_raw);
  {
    cclx::Communicator sub(sub_raw, cclx::Ownership::borrow);
    cclx::Communicator world(MPI_COMM_WORLD);
    const int m = sub.size(), sr = sub.rank();
    int expect_m = 0;
    for (int i = 0; i < n; ++i) expect_m += (i % 3 == color);
    CHECK(m == expect_m);
    for (int iter = 0; iter < 3; ++iter) {
      const std::size_t count = 1000 + static_cast<std::size_t>(color) * 37;
      std::vector<std::int32_t> in(count), ring(count), nat(count);
      for (std::size_t i = 0; i < count; ++i) in[i] = wr + static_cast<std::int32_t>(i);
      std::int32_t member_sum = 0;
      for (int i = 0; i < n; ++i)
        if (i % 3 == color) member_sum += i;
      progress("split allreduce iteration " + std::to_string(iter));
      sub.allreduce(in, ring, cclx::sum, cclx::algo::Ring{});
      sub.allreduce(in, nat, cclx::sum);
      bool ok = true;
      for (std::size_t i = 0; i < count; ++i)
        ok = ok && ring[i] == member_sum + m * static_cast<std::int32_t>(i) && nat[i] == ring[i];
      CHECK_MESSAGE(ok, "sub-communicator " << color << " (size " << m << ") allreduce wrong");

      // A world collective between sub-communicator collectives.
      std::vector<int> w{1};
      world.allreduce(w, cclx::sum, cclx::algo::Ring{});
      CHECK(w[0] == n);

      // allgather of sub-ranks' world ranks: block i comes from sub-rank i.
      std::vector<int> ranks(static_cast<std::size_t>(m), -1);
      ranks[static_cast<std::size_t>(sr)] = wr;
      sub.allgather(ranks, cclx::algo::Ring{});
      for (int i = 0; i < m; ++i) CHECK(ranks[static_cast<std::size_t>(i)] % 3 == color);
      for (int i = 1; i < m; ++i)  // keys n - wr ascending: world ranks descending
        CHECK(ranks[static_cast<std::size_t>(i)] < ranks[static_cast<std::size_t>(i - 1)]);
      // bcast from the last sub-rank
      std::vector<double> b(5, sr == m - 1 ? 3.25 : 0.0);
      sub.bcast(b, m - 1);
      CHECK(b == std::vector<double>(5, 3.25));
    }
  }
  MPI_Comm_free(&sub_raw);
}

}  // namespace cclx_test
