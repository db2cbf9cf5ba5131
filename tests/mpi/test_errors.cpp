// Bad input (issue 2, item 8): every case throws a cclx::Error whose message says what is wrong and
// names the rank. With validation off, the bad input is given on every rank (a local error on one
// rank alone would leave the others waiting in the collective: that is what validation is for).
// With validation on, ranks that disagree, or one rank with a local error, make EVERY rank throw.
#include <doctest/doctest.h>

#include <cstdlib>

#include "support.hpp"

namespace cclx_test {
namespace {

using Comm = cclx::Communicator<>;

// What std::span<T>(nullptr, n) means: a null pointer claiming n elements.
template <class T>
std::span<T> null_span(std::size_t n) {
  return {static_cast<T*>(nullptr), n};
}

// After an error the communicator must still work.
void still_works(Comm& comm, const std::string& after) {
  std::vector<int> v{1, 2, 3};
  no_throw("allreduce after " + after, [&] { comm.allreduce(v, cclx::sum, cclx::algo::Ring{}); });
  const int n = comm.size();
  CHECK_MESSAGE(v == std::vector<int>({n, 2 * n, 3 * n}), "allreduce after " << after);
}

// Calls collective `c` through algorithm `a` with valid small buffers.
template <class A>
void call(Comm& comm, Coll c, const A& a) {
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<float> buf(2 * n, 1.0f);
  switch (c) {
    case Coll::allreduce:
      if constexpr (serves<A>(Coll::allreduce)) comm.allreduce(buf, cclx::sum, a);
      break;
    case Coll::reduce:
      if constexpr (serves<A>(Coll::reduce)) comm.reduce(buf, cclx::sum, 0, a);
      break;
    case Coll::bcast:
      if constexpr (serves<A>(Coll::bcast)) comm.bcast(buf, 0, a);
      break;
    case Coll::reduce_scatter:
      if constexpr (serves<A>(Coll::reduce_scatter)) comm.reduce_scatter(buf, cclx::sum, a);
      break;
    case Coll::allgather:
      if constexpr (serves<A>(Coll::allgather)) comm.allgather(buf, a);
      break;
    case Coll::alltoall:
      if constexpr (serves<A>(Coll::alltoall)) comm.alltoall(buf, a);
      break;
  }
}

constexpr Coll all_collectives[] = {Coll::allreduce,      Coll::reduce,    Coll::bcast,
                                    Coll::reduce_scatter, Coll::allgather, Coll::alltoall};

}  // namespace

TEST_CASE("bad input: null data with a nonzero count") {
  Comm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  std::vector<float> ok(5, 1.0f);
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    const std::string l = "null data, " + std::string(name);
    expect_error(l + " (in place)", r, [&] { comm.allreduce(null_span<float>(5), cclx::sum, a); },
                 {"allreduce", "input is null", "5 elements"});
    expect_error(l + " (output)", r, [&] { comm.allreduce(ok, null_span<float>(5), cclx::sum, a); },
                 {"allreduce", "output is null", "5 elements"});
  });
  expect_error("null data, bcast", r, [&] { comm.bcast(null_span<double>(3), 0); },
               {"bcast", "null", "3 elements"});
  // A null pointer with count 0 is fine.
  no_throw("null data with count 0",
           [&] { comm.allreduce(null_span<float>(0), cclx::sum, cclx::algo::Ring{}); });
  still_works(comm, "null data");
}

TEST_CASE("bad input: invalid root (-1 and n)") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  std::vector<int> buf(4, 1), out(4, 0);
  for (int root : {-1, n}) {
    const std::string root_s = "invalid root " + std::to_string(root);
    for_each_algorithm([&](std::string_view name, const auto& a) {
      const std::string l = root_s + ", " + std::string(name);
      if constexpr (serves<decltype(a)>(Coll::reduce)) {
        expect_error(l + " reduce", r, [&] { comm.reduce(buf, cclx::sum, root, a); },
                     {"reduce", root_s});
        expect_error(l + " reduce out of place", r,
                     [&] { comm.reduce(buf, out, cclx::sum, root, a); }, {"reduce", root_s});
      }
      if constexpr (serves<decltype(a)>(Coll::bcast))
        expect_error(l + " bcast", r, [&] { comm.bcast(buf, root, a); }, {"bcast", root_s});
    });
  }
  still_works(comm, "invalid root");
}

TEST_CASE("bad input: out-of-place buffers of different sizes") {
  Comm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  const auto n = static_cast<std::size_t>(comm.size());
  std::vector<double> in5(5, 1.0), out4(4, 0.0);
  std::vector<double> in_rs(3 * n + 1, 1.0), out3(3, 0.0), in3(3, 1.0), out_ag(3 * n + 1, 0.0);
  for_each_algorithm([&](std::string_view name, const auto& a) {
    const std::string l = "size mismatch, " + std::string(name);
    if constexpr (serves<decltype(a)>(Coll::allreduce))
      expect_error(l + " allreduce", r, [&] { comm.allreduce(in5, out4, cclx::sum, a); },
                   {"allreduce", "buffer sizes do not match", "input 5", "output 4"});
    if constexpr (serves<decltype(a)>(Coll::reduce)) {
      // Reduce's output matters on the root only, so only the root sees the mismatch: with
      // validation off the others would wait for it. Validation makes every rank throw.
      comm.backend().set_validation(true);
      const int root = comm.size() - 1;
      if (r == root)
        expect_error(l + " reduce", r, [&] { comm.reduce(in5, out4, cclx::sum, root, a); },
                     {"reduce", "buffer sizes do not match"});
      else
        expect_error(l + " reduce", r, [&] { comm.reduce(in5, out4, cclx::sum, root, a); },
                     {"reduce", "invalid arguments on rank(s) " + std::to_string(root)});
      comm.backend().set_validation(false);
    }
    if constexpr (serves<decltype(a)>(Coll::reduce_scatter))
      expect_error(l + " reduce_scatter", r,
                   [&] { comm.reduce_scatter(in_rs, out3, cclx::sum, a); },
                   {"reduce_scatter", "buffer sizes do not match"});
    if constexpr (serves<decltype(a)>(Coll::allgather))
      expect_error(l + " allgather", r, [&] { comm.allgather(in3, out_ag, a); },
                   {"allgather", "buffer sizes do not match"});
    if constexpr (serves<decltype(a)>(Coll::alltoall))
      expect_error(l + " alltoall", r, [&] { comm.alltoall(in5, out4, a); },
                   {"alltoall", "buffer sizes do not match"});
  });
  still_works(comm, "size mismatch");
}

TEST_CASE("bad input: overlapping input and output") {
  Comm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  std::vector<float> v(8, 1.0f);
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    expect_error("overlap, " + std::string(name), r,
                 [&] {
                   comm.allreduce(std::span<const float>(v.data(), 4),
                                  std::span<float>(v.data() + 2, 4), cclx::sum, a);
                 },
                 {"allreduce", "overlap"});
  });
  // Identical spans are overlap too (in place must use the one-buffer overload).
  expect_error("overlap, identical", r,
               [&] {
                 comm.allreduce(std::span<const float>(v.data(), 8), std::span<float>(v), cclx::max,
                                cclx::algo::Ring{});
               },
               {"overlap"});
  still_works(comm, "overlap");
}

TEST_CASE("bad input: a non-commutative user op with Ring") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  auto op = cclx::user_op([](int a, int b) { return a; }, false);  // "first": non-commutative
  std::vector<int> buf(6, r);
  if (n == 1) {
    // One rank: the trivial ring keeps order, so it may run.
    no_throw("ring, non-commutative, n = 1", [&] { comm.allreduce(buf, op, cclx::algo::Ring{}); });
    CHECK(buf == std::vector<int>(6, 0));
  } else {
    expect_error("ring, non-commutative", r, [&] { comm.allreduce(buf, op, cclx::algo::Ring{}); },
                 {"ring", "non-commutative"});
    std::vector<int> in(6 * static_cast<std::size_t>(n), r), out(6, 0);
    expect_error("ring reduce_scatter, non-commutative", r,
                 [&] { comm.reduce_scatter(in, out, op, cclx::algo::Ring{}); },
                 {"ring", "non-commutative"});
    CHECK(buf == std::vector<int>(6, r));  // untouched
  }
  still_works(comm, "non-commutative op");
}

TEST_CASE("bad input: a collective an algorithm does not implement throws, never falls back") {
  // Through the typed API this does not compile (tests/compile_fail/unserved_collective.cpp);
  // code that picks algorithms by name at run time (tools, benchmarks) gets an error naming both.
  Comm comm(MPI_COMM_WORLD);
  const int r = comm.rank();
  for (const auto& g : cclx::sched::generators())
    for (Coll c : all_collectives) {
      if (std::find(g.collectives.begin(), g.collectives.end(), c) != g.collectives.end()) continue;
      cclx::sched::ScheduleRequest req;
      req.collective = c;
      req.nranks = comm.size();
      expect_error(g.name + " " + std::string(cclx::sched::to_string(c)), r,
                   [&] {
                     try {
                       (void)cclx::sched::generate_by_name(g.name, req);
                     } catch (const cclx::Error& e) {
                       throw e.on_rank(r);
                     }
                   },
                   {g.name, std::string(cclx::sched::to_string(c))});
    }
  still_works(comm, "unsupported collective");
}

TEST_CASE("bad input: in-place blocked collectives with a buffer not divisible by n") {
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  if (n == 1) {  // everything divides by 1
    std::vector<int> b(3, 1);
    no_throw("n = 1", [&] { comm.reduce_scatter(b, cclx::sum); });
    CHECK(b[0] == 1);
    return;
  }
  std::vector<int> buf(2 * static_cast<std::size_t>(n) + 1, 1);
  const std::string size_s = std::to_string(buf.size()) + " elements";
  for_each_algorithm([&](std::string_view name, const auto& a) {
    const std::string l = "not divisible, " + std::string(name);
    if constexpr (serves<decltype(a)>(Coll::reduce_scatter))
      expect_error(l + " reduce_scatter", r, [&] { comm.reduce_scatter(buf, cclx::sum, a); },
                   {"reduce_scatter", size_s, "not divisible"});
    if constexpr (serves<decltype(a)>(Coll::allgather))
      expect_error(l + " allgather", r, [&] { comm.allgather(buf, a); },
                   {"allgather", size_s, "not divisible"});
    if constexpr (serves<decltype(a)>(Coll::alltoall))
      expect_error(l + " alltoall", r, [&] { comm.alltoall(buf, a); },
                   {"alltoall", size_s, "not divisible"});
  });
  still_works(comm, "not divisible");
}

// ---- validation mode ----

TEST_CASE("validation: CCLX_VALIDATE=1 turns it on, set_validation() toggles it") {
  const char* old = std::getenv("CCLX_VALIDATE");
  const std::string saved = old ? old : "";
  setenv("CCLX_VALIDATE", "1", 1);
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK(comm.backend().validation());
    comm.backend().set_validation(false);
    CHECK_FALSE(comm.backend().validation());
  }
  setenv("CCLX_VALIDATE", "0", 1);
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK_FALSE(comm.backend().validation());
  }
  if (old)
    setenv("CCLX_VALIDATE", saved.c_str(), 1);
  else
    unsetenv("CCLX_VALIDATE");
}

TEST_CASE("validation: ranks that disagree all throw, naming the ranks") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  if (n == 1) {  // nobody to disagree with; a valid call passes
    std::vector<int> v{4};
    no_throw("validation, n = 1", [&] { comm.allreduce(v, cclx::sum, cclx::algo::Ring{}); });
    CHECK(v[0] == 4);
    return;
  }
  const std::string other = "rank " + std::to_string(n - 1) + " has ";

  SUBCASE("count") {
    std::vector<float> v(r == 0 ? 4 : 5, 1.0f);
    expect_error("count", r, [&] { comm.allreduce(v, cclx::sum, cclx::algo::Ring{}); },
                 {"ranks disagree", "count", "rank 0 has 4", other + "5"});
  }
  SUBCASE("op") {
    std::vector<int> v(4, r);
    expect_error("op", r,
                 [&] {
                   if (r == 0)
                     comm.allreduce(v, cclx::sum);
                   else
                     comm.allreduce(v, cclx::max);
                 },
                 {"ranks disagree", "op", "rank 0 has sum", other + "max"});
  }
  SUBCASE("root") {
    std::vector<int> v(4, r);
    expect_error("root", r, [&] { comm.bcast(v, r == 0 ? 0 : n - 1); },
                 {"ranks disagree", "root", "rank 0 has 0", other + std::to_string(n - 1)});
    expect_error("root (reduce)", r,
                 [&] { comm.reduce(v, cclx::sum, r == n - 1 ? 0 : n - 1, cclx::algo::Native{}); },
                 {"ranks disagree", "root"});
  }
  SUBCASE("algorithm") {
    std::vector<int> v(4, r);
    expect_error("algorithm", r,
                 [&] {
                   if (r == 0)
                     comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
                   else
                     comm.allreduce(v, cclx::sum, cclx::algo::Native{});
                 },
                 {"ranks disagree", "algorithm", "rank 0 has ring", other + "native"});
  }
  SUBCASE("element type") {
    std::vector<float> f(4, 1.0f);
    std::vector<std::int32_t> i(4, 1);
    expect_error("element type", r,
                 [&] {
                   if (r == 0)
                     comm.allreduce(f, cclx::sum, cclx::algo::Ring{});
                   else
                     comm.allreduce(i, cclx::sum, cclx::algo::Ring{});
                 },
                 {"ranks disagree", "element type", "rank 0 has float", other + "int32"});
  }
  SUBCASE("collective") {
    std::vector<int> v(2 * static_cast<std::size_t>(n), 1);
    expect_error("collective", r,
                 [&] {
                   if (r == 0)
                     comm.allgather(v);
                   else
                     comm.alltoall(v);
                 },
                 {"ranks disagree", "collective"});
  }
  SUBCASE("commutativity of a user op") {
    std::vector<int> v(4, 1);
    auto c = cclx::user_op([](int a, int b) { return a + b; }, true);
    auto nc = cclx::user_op([](int a, int b) { return a + b; }, false);
    expect_error("commutativity", r,
                 [&] {
                   if (r == 0)
                     comm.allreduce(v, c, cclx::algo::BinomialTree{});
                   else
                     comm.allreduce(v, nc, cclx::algo::BinomialTree{});
                 },
                 {"ranks disagree", "op"});
  }
  still_works(comm, "disagreement");
}

TEST_CASE("validation: a local error on one rank makes every rank throw (no hang)") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  const int bad = n - 1;
  std::vector<float> v(5, 1.0f);
  std::span<float> mine = r == bad ? null_span<float>(5) : std::span<float>(v);
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    const std::string l = "local error on rank " + std::to_string(bad) + ", " + std::string(name);
    if (r == bad)
      expect_error(l, r, [&] { comm.allreduce(mine, cclx::sum, a); }, {"input is null"});
    else
      expect_error(l, r, [&] { comm.allreduce(mine, cclx::sum, a); },
                   {"invalid arguments on rank(s) " + std::to_string(bad)});
  });
  // Invalid root on one rank only (reduce).
  std::vector<int> b(3, 1);
  const int root = r == 0 ? -1 : 0;
  if (r == 0)
    expect_error("invalid root on rank 0", r, [&] { comm.reduce(b, cclx::sum, root); },
                 {"invalid root -1"});
  else
    expect_error("invalid root on rank 0", r, [&] { comm.reduce(b, cclx::sum, root); },
                 {"invalid arguments on rank(s) 0"});
  still_works(comm, "local error");
}

}  // namespace cclx_test
