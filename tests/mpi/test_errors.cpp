// Bad input: every case throws a cclx::Error whose message says what is wrong and
// names the rank. With validation off, the bad input is given on every rank (a local error on one
// rank alone would leave the others waiting in the collective: that is what validation is for).
// With validation on, ranks that disagree, or one rank with a local error, make EVERY rank throw.
#include <doctest/doctest.h>

#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "cclx/algo/registry.hpp"
#include "cclx/settings.hpp"
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
    default:  // the other collectives are not called here
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
  for (const auto& g : cclx::algo::generators())
    for (Coll c : all_collectives) {
      if (std::find(g.collectives.begin(), g.collectives.end(), c) != g.collectives.end()) continue;
      cclx::sched::ScheduleRequest req;
      req.collective = c;
      req.nranks = comm.size();
      expect_error(g.name + " " + std::string(cclx::sched::to_string(c)), r,
                   [&] {
                     try {
                       (void)cclx::algo::generate_by_name(g.name, req);
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
  cclx::settings::reload();  // cclx reads the environment once (cclx/settings.hpp)
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK(comm.backend().validation());
    comm.backend().set_validation(false);
    CHECK_FALSE(comm.backend().validation());
  }
  setenv("CCLX_VALIDATE", "0", 1);
  cclx::settings::reload();
  {
    Comm comm(MPI_COMM_WORLD);
    CHECK_FALSE(comm.backend().validation());
  }
  if (old)
    setenv("CCLX_VALIDATE", saved.c_str(), 1);
  else
    unsetenv("CCLX_VALIDATE");
  cclx::settings::reload();
}

// A communicator agrees on its settings when it is made (one MPI_Allgather): a bad value, or a
// setting that changes what goes over the wire seen otherwise, on some ranks makes every rank
// throw, where the others would otherwise wait for the rank that threw, validate alone, or cut
// messages differently.
TEST_CASE("settings: a bad or differing setting on one rank throws on every rank, naming it") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  // `variable` set to `value` on rank `on` alone while a communicator is made.
  const auto expect = [&](const char* variable, int on, const char* value,
                          std::initializer_list<std::string> needles) {
    const cclx_test::ScopedEnv env(variable, r == on ? value : nullptr);
    cclx_test::expect_error(
        variable, r, [] { Comm comm(MPI_COMM_WORLD); }, needles);
  };
  const int last = n - 1;
  const std::string on_last = "rank(s) " + std::to_string(last);
  using cclx_test::ScopedEnv;
  const ScopedEnv no_limit("CCLX_MAX_MESSAGE_BYTES", nullptr),
      no_handshake("CCLX_HANDSHAKE_BYTES", nullptr), no_validation("CCLX_VALIDATE", nullptr),
      no_canonical("CCLX_REPRODUCIBLE", nullptr), no_timeout("CCLX_TIMEOUT", nullptr);
  expect("CCLX_TIMEOUT", last, "soon", {"CCLX_TIMEOUT is invalid on " + on_last});
  expect("CCLX_HANDSHAKE_BYTES", 0, "1X", {"CCLX_HANDSHAKE_BYTES is invalid on rank(s) 0"});
  // Read by a relay request's set-up, a collective step.
  expect("CCLX_ADAPTIVE_FAULT", last, "bad", {"CCLX_ADAPTIVE_FAULT is invalid on " + on_last});
  if (n > 1) {
    expect("CCLX_MAX_MESSAGE_BYTES", last, "1001",
           {"CCLX_MAX_MESSAGE_BYTES differs", on_last + " see 1001", "rank 0 sees 0"});
    expect("CCLX_HANDSHAKE_BYTES", last, "64K", {"CCLX_HANDSHAKE_BYTES differs", on_last});
    // One more collective per call on some ranks; another schedule on some ranks.
    expect("CCLX_VALIDATE", last, "1", {"CCLX_VALIDATE differs", on_last + " see 1"});
    expect("CCLX_REPRODUCIBLE", 0, "yes", {"CCLX_REPRODUCIBLE differs", "rank 0 sees 1"});
  }
  // The same values on every rank pass, and the communicator works.
  const ScopedEnv limit("CCLX_MAX_MESSAGE_BYTES", "1001"),
      handshake("CCLX_HANDSHAKE_BYTES", "1001");
  Comm comm(MPI_COMM_WORLD);
  std::vector<std::int64_t> v(3000, r + 1);
  comm.allreduce(v, cclx::sum, cclx::algo::Ring{});
  CHECK(v == std::vector<std::int64_t>(3000, std::int64_t{n} * (n + 1) / 2));
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

// ---- validation of algorithm parameters and wire settings ----

namespace {

// A ring whose parameter string is longer than the agreement record's field: ranks that differ
// only past the field's end must still be told apart (the record carries a hash of the whole).
struct LongParamsRing {
  static constexpr std::string_view name = "long_params_ring";
  static constexpr auto collectives = cclx::algo::Ring::collectives;
  static constexpr auto keeps_rank_order = cclx::algo::Ring::keeps_rank_order;
  std::string tail;
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    return cclx::sched::ring(r);
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const {
    return "padding=" + std::string(200, 'x') + ",tail=" + tail;
  }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

// A policy that claims bcast although its generator (the ring's) rejects it: a generator error that
// only this rank meets, since the typed API refuses a policy's undeclared collectives at compile
// time.
struct BcastClaimingRing {
  static constexpr std::string_view name = "ring";
  static constexpr std::array collectives = {cclx::sched::Collective::bcast};
  static constexpr std::array<cclx::sched::Collective, 0> keeps_rank_order = {};
  [[nodiscard]] cclx::sched::Schedule generate(const cclx::sched::ScheduleRequest& r) const {
    return cclx::sched::ring(r);
  }
  [[nodiscard]] std::string cache_params(const cclx::sched::ScheduleRequest&) const { return {}; }
  [[nodiscard]] cclx::engine::ExecOptions exec_options() const { return {}; }
};

}  // namespace

TEST_CASE("validation: algorithm parameters and wire settings must match on every rank") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  namespace algo = cclx::algo;
  std::vector<float> v(4 * static_cast<std::size_t>(n), 1.0f);
  if (n == 1) {  // nobody to disagree with: every policy passes with its parameters checked
    no_throw("n = 1, pipelined tree", [&] {
      comm.allreduce(v, cclx::sum, algo::PipelinedTree{.segment_bytes = 64, .fanout = 3});
    });
    no_throw("n = 1, stragglar", [&] { comm.allreduce(v, cclx::sum, algo::StragglAR{0}); });
    no_throw("n = 1, long parameters", [&] { comm.allreduce(v, cclx::sum, LongParamsRing{"a"}); });
    CHECK(v[0] == 1.0f);
    still_works(comm, "n = 1");
    return;
  }
  const int last = n - 1;
  const std::string other = "rank " + std::to_string(last) + " has ";
  const std::vector<std::string> common = {"allreduce: ranks disagree (CCLX_VALIDATE)",
                                           "(CCLX_VALIDATE): algorithm parameters: rank 0 has "};

  SUBCASE("pipelined tree fanout") {
    expect_error("fanout 2 vs 3", r,
                 [&] {
                   comm.allreduce(v, cclx::sum,
                                  algo::PipelinedTree{.segment_bytes = 256, .fanout = r ? 3 : 2});
                 },
                 {common[0], common[1], "fanout=2", other + "segment_bytes=256,fanout=3"});
  }
  SUBCASE("pipelined tree segment_bytes") {
    expect_error("pipelined tree segment_bytes", r,
                 [&] { comm.bcast(v, 0, algo::PipelinedTree{.segment_bytes = r ? 4096u : 256u}); },
                 {"bcast: ranks disagree", "algorithm parameters", "rank 0 has segment_bytes=256",
                  other + "segment_bytes=4096"});
  }
  SUBCASE("ring segment_bytes") {
    expect_error("ring segment_bytes", r,
                 [&] { comm.allreduce(v, cclx::sum, algo::Ring{.segment_bytes = r ? 8u : 0u}); },
                 {common[0], "rank 0 has segment_bytes=0", other + "segment_bytes=8"});
    expect_error("rhd segment_bytes", r,
                 [&] {
                   comm.allreduce(v, cclx::sum,
                                  algo::RecursiveHalvingDoubling{.segment_bytes = r ? 8u : 16u});
                 },
                 {common[0], "rank 0 has segment_bytes=16", other + "segment_bytes=8"});
  }
  SUBCASE("stragglar straggler") {
    expect_error(
        "straggler 0 vs n-1", r,
        [&] { comm.allreduce(v, cclx::sum, algo::StragglAR{.straggler = r ? -1 : 0}); },
        {common[0], "rank 0 has straggler=0", other + "straggler=" + std::to_string(last)});
    // -1 means the last rank: the same schedule as naming it, so no disagreement.
    no_throw("straggler -1 vs n-1",
             [&] { comm.allreduce(v, cclx::sum, algo::StragglAR{.straggler = r ? -1 : last}); });
  }
  SUBCASE("parameters longer than the record's field") {
    expect_error("long parameters", r,
                 [&] { comm.allreduce(v, cclx::sum, LongParamsRing{r ? "b" : "a"}); },
                 {common[0], "rank 0 has padding=xxx", "...", other + "padding=xxx"});
    no_throw("long parameters, equal",
             [&] { comm.allreduce(v, cclx::sum, LongParamsRing{"same"}); });
  }
  SUBCASE("handshake threshold") {
    const std::size_t saved = comm.backend().handshake_bytes();
    comm.backend().set_handshake_bytes(r ? 65536 : 0);
    expect_error("handshake threshold", r, [&] { comm.allreduce(v, cclx::sum, algo::Ring{}); },
                 {common[0], "handshake_bytes", "rank 0 has 0", other + "65536"});
    // Also for Native: it is a communicator-wide setting that must be equal everywhere.
    expect_error("handshake threshold (native)", r, [&] { comm.allreduce(v, cclx::sum); },
                 {"handshake_bytes"});
    comm.backend().set_handshake_bytes(saved);
  }
  CHECK(comm.backend().validation());
  still_works(comm, "parameter disagreement");
}

TEST_CASE("validation: a schedule error on one rank makes every rank throw (no hang)") {
  Comm comm(MPI_COMM_WORLD);
  comm.backend().set_validation(true);
  const int n = comm.size(), r = comm.rank();
  const int bad = n - 1;
  namespace algo = cclx::algo;
  std::vector<float> v(2 * static_cast<std::size_t>(n), 1.0f);
  const std::string out_of_range =
      "straggler " + std::to_string(n) + " out of range for " + std::to_string(n) + " ranks";
  const std::string others = "invalid arguments on rank(s) " + std::to_string(bad);

  SUBCASE("stragglar with an out-of-range straggler on one rank") {
    expect_error(
        "out-of-range straggler", r,
        [&] { comm.allreduce(v, cclx::sum, algo::StragglAR{.straggler = r == bad ? n : -1}); },
        {r == bad ? "stragglar: " + out_of_range : "allreduce: " + others, out_of_range});
  }
  SUBCASE("a generator that rejects the collective on one rank") {
    // Ring does not implement bcast: the bad rank's generator throws. The others' algorithm name
    // differs too, but the local error is what they are told about.
    expect_error("ring bcast on one rank", r,
                 [&] {
                   if (r == bad)
                     comm.bcast(v, 0, BcastClaimingRing{});
                   else
                     comm.bcast(v, 0, algo::BinomialTree{});
                 },
                 {"ring", "bcast", r == bad ? "ring" : others});
    if (n > 1)
      expect_error(
          "pipelined tree, fanout 0 on one rank", r,
          [&] { comm.allreduce(v, cclx::sum, algo::PipelinedTree{.fanout = r == bad ? 0 : 2}); },
          {"pipelined_tree: fanout must be >= 1", r == bad ? "got 0" : others});
  }
  SUBCASE("a non-commutative op with Ring on one rank (schedule check)") {
    auto nc = cclx::user_op([](float a, float b) { return a + b; }, false);
    if (n > 1)
      expect_error("non-commutative ring on one rank", r,
                   [&] {
                     if (r == bad)
                       comm.allreduce(v, nc, algo::Ring{});
                     else
                       comm.allreduce(v, nc, algo::BinomialTree{});
                   },
                   {"non-commutative", r == bad ? "ring" : others});
  }
  still_works(comm, "schedule error");
}

}  // namespace cclx_test
