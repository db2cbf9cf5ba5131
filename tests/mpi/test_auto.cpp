// algo::Auto through the Communicator (docs/tuning.md): every collective against a local
// reference, the ranks' agreement on the selector's inputs, online tuning under per-rank timing
// noise (every rank must end with the same choice), CCLX_TUNE_SAVE / CCLX_TUNE_FILE, the
// explain() / CCLX_LOG=tune text, and alltoallv (one-shot: one choice for every size;
// alltoallv_init: a size agreed at init).
#include <doctest/doctest.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <numeric>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cclx/settings.hpp"
#include "cclx/tune/table.hpp"
#include "support.hpp"

namespace {

using cclx_test::Coll;
using Comm = cclx::Communicator<>;

using cclx_test::ScopedEnv;

// Whether every rank passes the same string.
bool same_on_all_ranks(const std::string& s) {
  const std::uint64_t h = cclx_test::content_hash(s.data(), s.size());
  std::uint64_t lo = h, hi = h;
  MPI_Allreduce(MPI_IN_PLACE, &lo, 1, MPI_UINT64_T, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &hi, 1, MPI_UINT64_T, MPI_MAX, MPI_COMM_WORLD);
  return lo == hi;
}

// The candidate an explanation starts with: "allreduce 4K bytes, ...: ring(...) from ...".
std::string chosen(const std::string& explanation) {
  const auto colon = explanation.find(": ");
  const std::string rest = explanation.substr(colon + 2);
  return rest.substr(0, rest.find(' '));
}

// A file name every rank agrees on (rank 0's pid).
std::string shared_tmp_name(const char* stem) {
  int pid = static_cast<int>(getpid());
  MPI_Bcast(&pid, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return "/tmp/cclx-test-" + std::string(stem) + "-" + std::to_string(pid) + ".json";
}

// Every collective with Auto, integer data, against references computed here.
void every_collective(Comm& comm, std::size_t count, const std::string& label) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  const auto val = [](int rank, std::size_t i) { return cclx_test::data_value<int>(rank, i); };
  const auto sum_at = [&](std::size_t i) {
    int s = 0;
    for (int q = 0; q < n; ++q) s += val(q, i);
    return s;
  };
  const cclx::algo::Auto a{};
  std::vector<int> buf(count), want(count);

  // Twice in a row: the repeat runs the remembered decision (AutoContext::repeat()).
  for (int rep = 0; rep < 2; ++rep) {
    for (std::size_t i = 0; i < count; ++i) buf[i] = val(r, i), want[i] = sum_at(i);
    comm.allreduce(buf, cclx::sum, a);
    cclx_test::compare(label + " allreduce #" + std::to_string(rep), buf, want, true);
  }

  for (std::size_t i = 0; i < count; ++i) buf[i] = val(r, i);
  const int root = n - 1;
  comm.reduce(buf, cclx::sum, root, a);
  if (r == root) cclx_test::compare(label + " reduce", buf, want, true);

  for (int rep = 0; rep < 2; ++rep) {
    for (std::size_t i = 0; i < count; ++i) buf[i] = r == 0 ? val(0, i) : -1, want[i] = val(0, i);
    comm.bcast(buf, 0, a);
    cclx_test::compare(label + " bcast #" + std::to_string(rep), buf, want, true);
  }

  // n blocks of `count` elements: reduce_scatter, allgather, alltoall, gather, scatter.
  std::vector<int> big(count * un), out(count), all(count * un), wall(count * un);
  for (std::size_t i = 0; i < big.size(); ++i) big[i] = val(r, i);
  comm.reduce_scatter(big, out, cclx::sum, a);
  for (std::size_t i = 0; i < count; ++i) want[i] = sum_at(static_cast<std::size_t>(r) * count + i);
  cclx_test::compare(label + " reduce_scatter", out, want, true);

  for (std::size_t i = 0; i < count; ++i) buf[i] = val(r, i);
  comm.allgather(buf, all, a);
  for (std::size_t b = 0; b < un; ++b)
    for (std::size_t i = 0; i < count; ++i) wall[b * count + i] = val(static_cast<int>(b), i);
  cclx_test::compare(label + " allgather", all, wall, true);

  std::fill(all.begin(), all.end(), -1);
  comm.gather(buf, all, 0, a);
  if (r == 0) cclx_test::compare(label + " gather", all, wall, true);

  for (std::size_t i = 0; i < big.size(); ++i) big[i] = val(r, i);
  comm.alltoall(big, all, a);
  for (std::size_t b = 0; b < un; ++b)
    for (std::size_t i = 0; i < count; ++i)
      wall[b * count + i] = val(static_cast<int>(b), static_cast<std::size_t>(r) * count + i);
  cclx_test::compare(label + " alltoall", all, wall, true);

  comm.scatter(big, out, 0, a);
  for (std::size_t i = 0; i < count; ++i) want[i] = val(0, static_cast<std::size_t>(r) * count + i);
  cclx_test::compare(label + " scatter", out, want, true);

  comm.barrier(a);

  // v-collectives with counts i + 1 (packed), and alltoallv.
  std::vector<int> counts(un);
  std::iota(counts.begin(), counts.end(), 1);
  const std::size_t total = un * (un + 1) / 2;
  std::vector<std::size_t> off(un, 0);
  for (std::size_t b = 1; b < un; ++b)
    off[b] = off[b - 1] + static_cast<std::size_t>(counts[b - 1]);
  const auto mine = static_cast<std::size_t>(counts[static_cast<std::size_t>(r)]);
  std::vector<int> vin(mine), vall(total), vwant(total);
  for (std::size_t i = 0; i < mine; ++i) vin[i] = val(r, i);
  for (std::size_t b = 0; b < un; ++b)
    for (std::size_t i = 0; i < static_cast<std::size_t>(counts[b]); ++i)
      vwant[off[b] + i] = val(static_cast<int>(b), i);
  for (int rep = 0; rep < 2; ++rep) {
    std::fill(vall.begin(), vall.end(), -1);
    comm.allgatherv(vin, vall, counts, a);
    cclx_test::compare(label + " allgatherv #" + std::to_string(rep), vall, vwant, true);
  }
  std::fill(vall.begin(), vall.end(), -1);
  comm.gatherv(vin, vall, counts, 0, a);
  if (r == 0) cclx_test::compare(label + " gatherv", vall, vwant, true);
  std::vector<int> vout(mine);
  comm.scatterv(vwant, vout, counts, 0, a);
  std::vector<int> vmine(
      vwant.begin() + static_cast<std::ptrdiff_t>(off[static_cast<std::size_t>(r)]),
      vwant.begin() + static_cast<std::ptrdiff_t>(off[static_cast<std::size_t>(r)] + mine));
  cclx_test::compare(label + " scatterv", vout, vmine, true);
  std::vector<int> vbig(total);
  for (std::size_t i = 0; i < total; ++i) vbig[i] = val(r, i);
  comm.reduce_scatterv(vbig, vout, counts, cclx::sum, a);
  for (std::size_t i = 0; i < mine; ++i) vmine[i] = sum_at(off[static_cast<std::size_t>(r)] + i);
  cclx_test::compare(label + " reduce_scatterv", vout, vmine, true);
  std::vector<int> ones(un, 1), a2a_in(un), a2a_out(un), a2a_want(un);
  for (std::size_t b = 0; b < un; ++b)
    a2a_in[b] = val(r, b), a2a_want[b] = val(static_cast<int>(b), static_cast<std::size_t>(r));
  comm.alltoallv(a2a_in, ones, a2a_out, ones, a);
  cclx_test::compare(label + " alltoallv", a2a_out, a2a_want, true);

  // Nonblocking.
  for (std::size_t i = 0; i < count; ++i) buf[i] = val(r, i), want[i] = sum_at(i);
  comm.iallreduce(buf, cclx::sum, a).wait();
  cclx_test::compare(label + " iallreduce", buf, want, true);
}

}  // namespace

TEST_CASE("auto: every collective with the model's choices equals a local reference") {
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", nullptr),
      file("CCLX_TUNE_FILE", nullptr);
  Comm comm(MPI_COMM_WORLD);
  for (std::size_t count : {3, 3000}) {
    cclx_test::progress("auto model " + std::to_string(count));
    every_collective(comm, count, "auto/model/" + std::to_string(count));
  }
  const std::string e = comm.explain<int>(Coll::allreduce, 3000);
  CHECK_MESSAGE(e.find(" from model: predicted:") != std::string::npos, e);
  CHECK_MESSAGE(e.find("native=") != std::string::npos, e);
  CHECK(same_on_all_ranks(e));
}

TEST_CASE("auto: overrides choose scheduled candidates; ones that cannot serve are skipped") {
  const ScopedEnv algo("CCLX_ALGO",
                       "allreduce:0-1K=recursive_doubling,1K-inf=rhd;bcast:*=pipelined_tree("
                       "fanout=2);reduce:*=binomial_tree;*:*=ring");
  const ScopedEnv tune("CCLX_TUNE", nullptr), file("CCLX_TUNE_FILE", nullptr);
  Comm comm(MPI_COMM_WORLD);
  for (std::size_t count : {3, 3000}) {
    cclx_test::progress("auto override " + std::to_string(count));
    every_collective(comm, count, "auto/override/" + std::to_string(count));
  }
  std::string e = comm.explain<int>(Coll::allreduce, 3000);
  CHECK_MESSAGE(
      e.find("rhd from override (CCLX_ALGO): rule 'allreduce:1K-inf=rhd'") != std::string::npos, e);
  // Ring does not serve gather: the rule is skipped, and the explanation says why.
  e = comm.explain<int>(Coll::gather, 10);
  CHECK_MESSAGE(
      e.find("(skipped: CCLX_ALGO chose ring but ring does not serve gather)") != std::string::npos,
      e);
  // A non-commutative op: ring reorders contributions, so it is skipped (the rank-ordered
  // reference below would catch a wrong choice).
  e = comm.explain<int>(Coll::reduce_scatter, 100, 0, /*commutative=*/false);
  CHECK_MESSAGE(e.find("reorders contributions") != std::string::npos, e);
  // 2x2 matrices over Z/256 packed in a uint32: multiplication is associative (as MPI requires)
  // but not commutative, so only a rank-ordered reduction gives the reference.
  const auto matmul = [](std::uint32_t x, std::uint32_t y) {
    const auto e = [](std::uint32_t m, int k) { return (m >> (8 * k)) & 0xffu; };
    const std::uint32_t p0 = e(x, 0) * e(y, 0) + e(x, 1) * e(y, 2);
    const std::uint32_t p1 = e(x, 0) * e(y, 1) + e(x, 1) * e(y, 3);
    const std::uint32_t p2 = e(x, 2) * e(y, 0) + e(x, 3) * e(y, 2);
    const std::uint32_t p3 = e(x, 2) * e(y, 1) + e(x, 3) * e(y, 3);
    return (p0 & 0xffu) | (p1 & 0xffu) << 8 | (p2 & 0xffu) << 16 | (p3 & 0xffu) << 24;
  };
  const int n = comm.size(), r = comm.rank();
  const auto f = cclx::user_op(matmul, /*commutative=*/false);
  const auto in_at = [](int rank, std::size_t i) {
    return static_cast<std::uint32_t>(cclx_test::mix(static_cast<std::uint64_t>(rank) * 977 + i));
  };
  std::vector<std::uint32_t> in(static_cast<std::size_t>(n) * 5), out(5), want(5);
  for (std::size_t i = 0; i < in.size(); ++i) in[i] = in_at(r, i);
  for (std::size_t i = 0; i < 5; ++i) {
    const std::size_t at = static_cast<std::size_t>(r) * 5 + i;
    std::uint32_t acc = in_at(0, at);
    for (int q = 1; q < n; ++q) acc = matmul(acc, in_at(q, at));
    want[i] = acc;
  }
  comm.reduce_scatter(in, out, f, cclx::algo::Auto{});
  cclx_test::compare("auto non-commutative reduce_scatter", out, want, true);
  // A nonblocking user-op allreduce: native's nonblocking path does not take user ops.
  const auto g = cclx::user_op([](int x, int y) { return x + y; }, /*commutative=*/true);
  std::vector<int> v(4, r + 1), vw(4, n * (n + 1) / 2);
  const ScopedEnv none("CCLX_ALGO", nullptr);
  Comm plain(MPI_COMM_WORLD);
  plain.iallreduce(v, g, cclx::algo::Auto{}).wait();
  cclx_test::compare("auto user-op iallreduce", v, vw, true);
}

TEST_CASE("auto: ranks that see different CCLX_ALGO or CCLX_NET_* throw naming the rank") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  if (n == 1) return;
  const ScopedEnv tune("CCLX_TUNE", nullptr), file("CCLX_TUNE_FILE", nullptr);
  // `variable` set to `value` on rank `on` alone: a first Auto call throws on every rank.
  const auto expect = [&](const char* label, const char* variable, int on, const char* value,
                          std::initializer_list<std::string> needles) {
    const ScopedEnv env(variable, r == on ? value : nullptr);
    Comm comm(MPI_COMM_WORLD);
    std::vector<int> buf(4, 1);
    cclx_test::expect_error(
        label, r, [&] { comm.allreduce(buf, cclx::sum, cclx::algo::Auto{}); }, needles);
  };
  const std::string last = "rank(s) " + std::to_string(n - 1) + " see different";
  expect("fingerprint", "CCLX_ALGO", n - 1, "allreduce:*=ring", {last + " CCLX_ALGO"});
  expect("bad override", "CCLX_ALGO", 0, "allreduce:0-8X=ring", {"invalid on rank(s) 0"});
  // The model's network decides as much as the override does.
  expect("network fingerprint", "CCLX_NET_BANDWIDTH", n - 1, "25M", {last, "CCLX_NET_*"});
  expect("bad network", "CCLX_NET_LINKS", 0, "0", {"invalid on rank(s) 0"});
}

// Online tuning with injected per-rank timing noise: every rank sleeps a random, rank-dependent
// time before each call, so local times differ; the tuner is fed max-over-ranks times and must
// walk the same path everywhere. Then CCLX_TUNE_SAVE / CCLX_TUNE_FILE: the next communicator
// takes the learned choice from the table without tuning.
TEST_CASE("auto: online tuning under per-rank noise converges alike everywhere, saves, reloads") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  const std::string path = shared_tmp_name("auto-online");
  const ScopedEnv algo("CCLX_ALGO", nullptr), file("CCLX_TUNE_FILE", nullptr);
  const ScopedEnv tune("CCLX_TUNE", "online"), save("CCLX_TUNE_SAVE", path.c_str());
  std::remove(path.c_str());
  constexpr std::size_t kCount = 2048;  // 8 KiB of int
  std::mt19937 noise(static_cast<unsigned>(1234 + 7919 * r));
  std::uniform_int_distribution<int> us(0, 300);
  std::vector<int> buf(kCount), want(kCount), bc(kCount), bw(kCount);
  for (std::size_t i = 0; i < kCount; ++i) {
    want[i] = 0;
    for (int q = 0; q < n; ++q) want[i] += cclx_test::data_value<int>(q, i);
    bw[i] = cclx_test::data_value<int>(0, i);
  }
  std::string converged_ar, converged_bc;
  {
    Comm comm(MPI_COMM_WORLD);
    int calls_ar = -1;
    for (int call = 0; call < 48; ++call) {
      cclx_test::progress("auto online call " + std::to_string(call));
      std::this_thread::sleep_for(std::chrono::microseconds(us(noise)));
      for (std::size_t i = 0; i < kCount; ++i) buf[i] = cclx_test::data_value<int>(r, i);
      comm.allreduce(buf, cclx::sum, cclx::algo::Auto{});
      cclx_test::compare("online allreduce call " + std::to_string(call), buf, want, true);
      std::this_thread::sleep_for(std::chrono::microseconds(us(noise)));
      for (std::size_t i = 0; i < kCount; ++i) bc[i] = r == 0 ? bw[i] : -1;
      comm.bcast(bc, 0, cclx::algo::Auto{});
      cclx_test::compare("online bcast call " + std::to_string(call), bc, bw, true);
      const std::string e = comm.explain<int>(Coll::allreduce, kCount);
      if (calls_ar < 0 && e.find("converged after ") != std::string::npos) calls_ar = call + 1;
    }
    const std::string ar = comm.explain<int>(Coll::allreduce, kCount);
    const std::string b = comm.explain<int>(Coll::bcast, kCount);
    CHECK_MESSAGE(ar.find("from online tuning (converged after ") != std::string::npos, ar);
    CHECK_MESSAGE(b.find("from online tuning (converged after ") != std::string::npos, b);
    CHECK_MESSAGE(ar.find(" samples)") != std::string::npos, ar);  // the measured candidates
    CHECK_MESSAGE((calls_ar > 0 && calls_ar <= 40), "converged after " << calls_ar << " calls");
    converged_ar = chosen(ar);
    converged_bc = chosen(b);
    CHECK_MESSAGE(same_on_all_ranks(converged_ar), "rank " << r << " chose " << converged_ar);
    CHECK_MESSAGE(same_on_all_ranks(converged_bc), "rank " << r << " chose " << converged_bc);
  }  // rank 0 saves here
  MPI_Barrier(MPI_COMM_WORLD);
  {
    const ScopedEnv reload("CCLX_TUNE_FILE", path.c_str());
    const ScopedEnv nosave("CCLX_TUNE_SAVE", nullptr);
    Comm comm(MPI_COMM_WORLD);
    for (std::size_t i = 0; i < kCount; ++i) buf[i] = cclx_test::data_value<int>(r, i);
    comm.allreduce(buf, cclx::sum, cclx::algo::Auto{});
    cclx_test::compare("reloaded allreduce", buf, want, true);
    const std::string ar = comm.explain<int>(Coll::allreduce, kCount);
    const std::string b = comm.explain<int>(Coll::bcast, kCount);
    CHECK_MESSAGE(ar.find(converged_ar + " from tuning table: " + path) != std::string::npos, ar);
    CHECK_MESSAGE(b.find(converged_bc + " from tuning table: " + path) != std::string::npos, b);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) std::remove(path.c_str());
}

TEST_CASE("auto: CCLX_LOG=tune prints each new decision on rank 0 only") {
  const int r = cclx_test::world_rank();
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", nullptr),
      file("CCLX_TUNE_FILE", nullptr), log("CCLX_LOG", "shim,tune");
  const std::string path = "/tmp/cclx-test-auto-log-" + std::to_string(getpid()) + ".txt";
  std::fflush(stderr);
  const int saved = dup(2);
  FILE* f = std::fopen(path.c_str(), "w");
  REQUIRE(f != nullptr);
  dup2(fileno(f), 2);
  {
    Comm comm(MPI_COMM_WORLD);
    std::vector<float> buf(1024, 1.0f);
    for (int i = 0; i < 3; ++i) comm.allreduce(buf, cclx::sum, cclx::algo::Auto{});
  }
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(f);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  const std::string s = text.str();
  if (r == 0) {
    const std::string head = "cclx tune: allreduce 4K bytes, " +
                             std::to_string(cclx_test::world_size()) + " ranks, 4-byte elements: ";
    CHECK_MESSAGE(s.find(head) == 0, s);
    CHECK_MESSAGE(s.find(" from model: predicted: ") != std::string::npos, s);
    CHECK_MESSAGE(s.find(head, 1) == std::string::npos, "logged more than once: " << s);
  } else {
    CHECK_MESSAGE(s.empty(), s);
  }
}

TEST_CASE("auto: persistent requests choose once at init and run it at every start") {
  const ScopedEnv algo("CCLX_ALGO", "allreduce:0-1K=native,1K-inf=ring;bcast:*=binomial_tree");
  const ScopedEnv tune("CCLX_TUNE", nullptr), file("CCLX_TUNE_FILE", nullptr);
  Comm comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  for (std::size_t count : {4, 3000}) {
    std::vector<int> in(count), out(count), want(count), b(count), bw(count);
    cclx::PersistentRequest ar = comm.allreduce_init(in, out, cclx::sum, cclx::algo::Auto{});
    cclx::PersistentRequest bc = comm.bcast_init(b, 0, cclx::algo::Auto{});
    for (int round = 0; round < 3; ++round) {
      for (std::size_t i = 0; i < count; ++i) {
        in[i] = cclx_test::data_value<int>(r, i) + round;
        want[i] = 0;
        for (int q = 0; q < n; ++q) want[i] += cclx_test::data_value<int>(q, i) + round;
        bw[i] = cclx_test::data_value<int>(0, i) - round;
        b[i] = r == 0 ? bw[i] : -1;
      }
      ar.start();
      bc.start();
      ar.wait();
      bc.wait();
      cclx_test::compare("persistent auto allreduce", out, want, true);
      cclx_test::compare("persistent auto bcast", b, bw, true);
    }
  }
}

// ---- alltoallv under Auto (docs/tuning-alltoallv.md) ----
namespace {

// Runs `f` with this process's stderr captured; returns what it printed.
template <class F>
std::string captured_stderr(F&& f) {
  const std::string path = "/tmp/cclx-test-auto-stderr-" + std::to_string(getpid()) + ".txt";
  std::fflush(stderr);
  const int saved = dup(2);
  FILE* file = std::fopen(path.c_str(), "w");
  REQUIRE(file != nullptr);
  dup2(fileno(file), 2);
  f();
  std::fflush(stderr);
  dup2(saved, 2);
  close(saved);
  std::fclose(file);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::remove(path.c_str());
  return text.str();
}

// A tuning table for alltoallv on this many ranks, written by rank 0 to a file every rank names:
// at each of `sizes`, native 10 us and ring 5 us where `ring_wins(size)`, else native 5 us and
// ring 20 us (so that over all sizes native has the smaller worst case, 2x against ring's 4x).
template <class Wins>
std::string alltoallv_table(const char* stem, std::initializer_list<std::size_t> sizes,
                            Wins ring_wins) {
  const std::string path = shared_tmp_name(stem);
  if (cclx_test::world_rank() == 0) {
    cclx::tune::TuningTable t;
    for (const std::size_t b : sizes) {
      const bool ring = ring_wins(b);
      t.record({Coll::alltoallv,
                cclx_test::world_size(),
                b,
                {{"native", ring ? 10.0 : 5.0}, {"ring", ring ? 5.0 : 20.0}},
                {}});
    }
    t.save(path);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  return path;
}

// An alltoallv whose block from rank i to rank j has counts(i, j) ints of value
// i * 1000000 + j * 1000 + k: this rank's send buffer, its recvcounts and the expected output.
struct Exchange {
  std::vector<int> sendcounts, recvcounts, in, want;
  std::size_t in_total = 0, out_total = 0;
};
template <class Counts>
Exchange exchange(int n, int r, Counts counts) {
  Exchange e;
  for (int j = 0; j < n; ++j) {
    e.sendcounts.push_back(counts(r, j));
    e.recvcounts.push_back(counts(j, r));
    for (int k = 0; k < counts(r, j); ++k) e.in.push_back(r * 1000000 + j * 1000 + k);
    for (int k = 0; k < counts(j, r); ++k) e.want.push_back(j * 1000000 + r * 1000 + k);
  }
  e.in_total = e.in.size();
  e.out_total = e.want.size();
  return e;
}

// The first line of comm.explain() for alltoallv (the one-shot decision) and the second (an
// alltoallv_init's at `count`).
std::pair<std::string, std::string> alltoallv_explain(Comm& comm, std::size_t count) {
  const std::string e = comm.explain<int>(Coll::alltoallv, count);
  const auto nl = e.find('\n');
  REQUIRE(nl != std::string::npos);
  return {e.substr(0, nl), e.substr(nl + 1)};
}

}  // namespace

TEST_CASE("auto: alltoallv runs the one candidate a table names at every size") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  const std::string path = alltoallv_table("a2av-one", {8, 1024, 65536}, [](auto) { return true; });
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", nullptr),
      file("CCLX_TUNE_FILE", path.c_str());
  Comm comm(MPI_COMM_WORLD);
  const auto explained = alltoallv_explain(comm, 100);
  const std::string& one_shot = explained.first;  // references, not bindings: the
  const std::string& init = explained.second;     // CHECK macros' lambdas capture them
  CHECK_MESSAGE(one_shot.find("alltoallv (one-shot: no size all ranks know), " + std::to_string(n) +
                              " ranks, 4-byte elements: ring from tuning "
                              "table at every size") != std::string::npos,
                one_shot);
  CHECK_MESSAGE(one_shot.find("0-inf ring (tuning table " + path + ")") != std::string::npos,
                one_shot);
  CHECK_MESSAGE(init.find("alltoallv_init 400 bytes (the busiest rank's, agreed at init)") !=
                    std::string::npos,
                init);
  CHECK(same_on_all_ranks(one_shot));
  // Counts differ per pair and per call (so the memo's key changes), zeros included.
  for (int call = 0; call < 3; ++call) {
    const Exchange e = exchange(n, r, [&](int i, int j) { return (i * 3 + j * 5 + call) % 7; });
    std::vector<int> out(e.out_total, -1);
    comm.alltoallv(e.in, e.sendcounts, out, e.recvcounts, cclx::algo::Auto{});
    cclx_test::compare("auto alltoallv call " + std::to_string(call), out, e.want, true);
    std::fill(out.begin(), out.end(), -1);
    comm.ialltoallv(e.in, e.sendcounts, out, e.recvcounts, cclx::algo::Auto{}).wait();
    cclx_test::compare("auto ialltoallv call " + std::to_string(call), out, e.want, true);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) std::remove(path.c_str());
}

// The table's choice flips with size: the one-shot call takes the smaller worst case (native);
// alltoallv_init agrees on the busiest rank's size, so ranks whose own sizes fall on either side
// of the flip choose alike.
TEST_CASE("auto: alltoallv by size: one-shot least worst case, alltoallv_init on the agreed size") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  // Ring from 4 KiB up, native at 8 B; the entries' regions meet at 192 B.
  const std::string path =
      alltoallv_table("a2av-flip", {8, 4096, 1u << 20}, [](std::size_t b) { return b >= 4096; });
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", nullptr),
      file("CCLX_TUNE_FILE", path.c_str()), log("CCLX_LOG", "tune");
  // Rank 0 exchanges one int with everyone (n * 4 <= 32 bytes), the others 1024 ints with each
  // other (more than 4 KiB): rank 0's own size maps to native, theirs to ring.
  const auto counts = [](int i, int j) { return i == 0 || j == 0 ? 1 : 1024; };
  const Exchange e = exchange(n, r, counts);
  const std::size_t busiest = n > 1 ? 1 + static_cast<std::size_t>(n - 1) * 1024 : 1;
  std::string log_text;
  {
    Comm comm(MPI_COMM_WORLD);
    const auto explained = alltoallv_explain(comm, busiest);
    const std::string& one_shot = explained.first;  // references, not bindings: the
    const std::string& init = explained.second;     // CHECK macros' lambdas capture them
    CHECK_MESSAGE(one_shot.find("native from tuning table: the choice varies with size and no "
                                "size all ranks know") != std::string::npos,
                  one_shot);
    CHECK_MESSAGE(
        one_shot.find("native at most 100.0% slower at any of 3 sizes") != std::string::npos,
        one_shot);
    const bool ring = n > 1;  // busiest * 4 >= 4100 bytes, nearest to the 4 KiB entry
    CHECK_MESSAGE(init.find(std::string(": ") + (ring ? "ring" : "native") +
                            " from tuning table") != std::string::npos,
                  init);
    // Each rank's own size alone would choose differently (the precondition of the test).
    if (n > 1) {
      const auto own = alltoallv_explain(comm, std::max(e.in_total, e.out_total)).second;
      CHECK_MESSAGE(own.find(r == 0 ? ": native from" : ": ring from") != std::string::npos, own);
    }
    log_text = captured_stderr([&] {
      std::vector<int> out(e.out_total, -1);
      comm.alltoallv(e.in, e.sendcounts, out, e.recvcounts, cclx::algo::Auto{});
      cclx_test::compare("auto alltoallv (native, the least worst case)", out, e.want, true);
      std::vector<int> pin(e.in), pout(e.out_total, -1);
      cclx::PersistentRequest req =
          comm.alltoallv_init(pin, e.sendcounts, pout, e.recvcounts, cclx::algo::Auto{});
      for (int round = 0; round < 3; ++round) {
        for (std::size_t i = 0; i < pin.size(); ++i) pin[i] = e.in[i] + round;
        std::fill(pout.begin(), pout.end(), -1);
        req.start();
        req.wait();
        std::vector<int> want(e.want);
        for (int& v : want) v += round;
        cclx_test::compare("auto alltoallv_init round " + std::to_string(round), pout, want, true);
      }
    });
  }
  if (r == 0) {
    const std::string head = "cclx tune: alltoallv_init " + cclx::format_byte_size(busiest * 4) +
                             " bytes (the busiest rank's, agreed at init)";
    CHECK_MESSAGE(log_text.find(head) != std::string::npos, log_text);
    CHECK_MESSAGE(
        log_text.find("alltoallv (one-shot: no size all ranks know)") != std::string::npos,
        log_text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) std::remove(path.c_str());
}

// Per-rank timing noise with online tuning on: alltoallv is never tuned (no rank may time it
// and reduce its time while another does not), every call of a new size agrees without
// communicating, and an online-tuned allreduce in between still converges alike.
TEST_CASE("auto: alltoallv under per-rank noise and CCLX_TUNE=online chooses alike everywhere") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  const std::string path = alltoallv_table("a2av-noise", {8, 65536}, [](auto) { return true; });
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", "online"),
      file("CCLX_TUNE_FILE", path.c_str()), save("CCLX_TUNE_SAVE", nullptr);
  std::mt19937 noise(static_cast<unsigned>(4321 + 7919 * r));
  std::uniform_int_distribution<int> us(0, 300);
  Comm comm(MPI_COMM_WORLD);
  std::vector<int> buf(64), want(64);
  for (int call = 0; call < 24; ++call) {
    std::this_thread::sleep_for(std::chrono::microseconds(us(noise)));
    const Exchange e = exchange(n, r, [&](int i, int j) { return (i + 2 * j + call) % 5; });
    std::vector<int> out(e.out_total, -1);
    comm.alltoallv(e.in, e.sendcounts, out, e.recvcounts, cclx::algo::Auto{});
    cclx_test::compare("noisy alltoallv call " + std::to_string(call), out, e.want, true);
    std::this_thread::sleep_for(std::chrono::microseconds(us(noise)));
    for (std::size_t i = 0; i < buf.size(); ++i) {
      buf[i] = cclx_test::data_value<int>(r, i);
      want[i] = 0;
      for (int q = 0; q < n; ++q) want[i] += cclx_test::data_value<int>(q, i);
    }
    comm.allreduce(buf, cclx::sum, cclx::algo::Auto{});
    cclx_test::compare("noisy allreduce call " + std::to_string(call), buf, want, true);
  }
  std::vector<int> pin(1), pout(1);
  const std::vector<int> ones(static_cast<std::size_t>(n), 1);
  std::vector<int> pin_n(static_cast<std::size_t>(n)), pout_n(static_cast<std::size_t>(n), -1);
  for (int j = 0; j < n; ++j) pin_n[static_cast<std::size_t>(j)] = r * 100 + j;
  std::this_thread::sleep_for(std::chrono::microseconds(us(noise)));
  cclx::PersistentRequest req = comm.alltoallv_init(pin_n, ones, pout_n, ones, cclx::algo::Auto{});
  req.start();
  req.wait();
  for (int j = 0; j < n; ++j) CHECK(pout_n[static_cast<std::size_t>(j)] == j * 100 + r);
  const auto explained = alltoallv_explain(comm, static_cast<std::size_t>(n));
  const std::string& one_shot = explained.first;  // references, not bindings: the
  const std::string& init = explained.second;     // CHECK macros' lambdas capture them
  CHECK_MESSAGE(one_shot.find("ring from tuning table at every size") != std::string::npos,
                one_shot);
  CHECK(same_on_all_ranks(one_shot));
  CHECK(same_on_all_ranks(init));
  CHECK(same_on_all_ranks(chosen(comm.explain<int>(Coll::allreduce, 64))));
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) std::remove(path.c_str());
}

// Displacements: ring cannot serve them, so the table's ring falls back to native, and the
// explanation (CCLX_LOG=tune) says why; the result still equals the local reference.
TEST_CASE("auto: alltoallv with displacements falls back to native, explained") {
  const int n = cclx_test::world_size(), r = cclx_test::world_rank();
  const std::string path = alltoallv_table("a2av-displs", {8, 65536}, [](auto) { return true; });
  const ScopedEnv algo("CCLX_ALGO", nullptr), tune("CCLX_TUNE", nullptr),
      file("CCLX_TUNE_FILE", path.c_str()), log("CCLX_LOG", "tune");
  const auto un = static_cast<std::size_t>(n);
  // Two ints per pair; the output blocks in reverse order with a gap of one after each.
  const std::vector<int> counts(un, 2);
  std::vector<long> sdispls(un), rdispls(un);
  std::vector<int> in(2 * un), out(3 * un, -7), want(3 * un, -7);
  for (std::size_t j = 0; j < un; ++j) {
    sdispls[j] = static_cast<long>(2 * j);
    rdispls[j] = static_cast<long>(3 * (un - 1 - j));
    for (std::size_t k = 0; k < 2; ++k) {
      in[2 * j + k] = r * 100 + static_cast<int>(j * 10 + k);
      want[3 * (un - 1 - j) + k] = static_cast<int>(j) * 100 + r * 10 + static_cast<int>(k);
    }
  }
  std::string text;
  {
    Comm comm(MPI_COMM_WORLD);
    text = captured_stderr([&] {
      comm.alltoallv(in, counts, cclx::Displs(sdispls), out, counts, cclx::Displs(rdispls),
                     cclx::algo::Auto{});
    });
    cclx_test::compare("auto alltoallv with displacements", out, want, true);
  }
  if (r == 0) {
    CHECK_MESSAGE(text.find("alltoallv (one-shot: no size all ranks know), " + std::to_string(n) +
                            " ranks, 4-byte elements, displacements: native from tuning table "
                            "at every size") != std::string::npos,
                  text);
    CHECK_MESSAGE(text.find("table chose ring but ring needs packed blocks, and the call gives "
                            "displacements (cclx::Displs)") != std::string::npos,
                  text);
  }
  MPI_Barrier(MPI_COMM_WORLD);
  if (r == 0) std::remove(path.c_str());
}
