// Prototype of "reduce straight from the peer's memory", measured and not built
// (docs/results-ring.md): a 2-rank float-sum allreduce of BYTES
// whose step 0 reads the peer's In block with process_vm_readv in pieces of PIECE bytes into a
// temporary that stays in L2 and reduces each piece into Out at once (received data as the left
// operand), then answers "done" over MPI; step 1 is an MPI_Sendrecv of the reduced half.
// Interleaved per repetition with the bound (two MPI_Sendrecv of BYTES/2 both ways) and the MPI
// ring as cclx runs it (Sendrecv into Out[v], then Out[v] = Out[v] + In[v]); also step 1 done by
// process_vm_readv too, and the fused step with non-temporal stores; and "write-through" (no step
// 1: each reduced piece goes straight into the peer's Out with process_vm_writev while it is in
// L2; "NT": reduced into an L2 temporary, written to the peer from there and streamed into the
// local Out with non-temporal stores). Slowest rank's time of one
// call after a barrier, medians; each rank also prints the median time of its fused read+reduce
// loop (256 KiB pieces). Kept for the record of that measurement; built as cclx-proto-cma-fused
// (ctest proto-cma-fused runs it on 1 MiB):
//
//   mpiexec -bind-to core -n 2 build/benchmarks/cclx-proto-cma-fused [BYTES [REPS [PIECE...]]]
//
// BYTES and PIECE are sizes as cclx reads them (64M, 256K; cclx/byte_size.hpp); --help says more.
#include <mpi.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "cclx/detail/median.hpp"
#include "cli.hpp"

using cclx::detail::median;

__attribute__((noinline)) static void add_into(float* __restrict out, const float* __restrict a,
                                               const float* __restrict b, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

#include <immintrin.h>
__attribute__((noinline)) static void add_into_nt(float* __restrict out, const float* __restrict a,
                                                  const float* __restrict b, std::size_t n) {
  std::size_t i = 0;
  for (; i + 4 <= n; i += 4)
    _mm_stream_ps(out + i, _mm_add_ps(_mm_loadu_ps(a + i), _mm_loadu_ps(b + i)));
  for (; i < n; ++i) out[i] = a[i] + b[i];
  _mm_sfence();
}
static bool use_nt = false;
static std::vector<double> step0_ms;
int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank, size;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  std::size_t bytes = std::size_t{64} << 20;
  int reps = 11;
  std::vector<std::size_t> pieces{131072, 262144, 524288, 1048576};
  cclx::kit::App app("cclx-proto-cma-fused",
                     "Prototype: a 2-rank float-sum allreduce whose first step reads the peer's "
                     "input with process_vm_readv and reduces it piece by piece, against the "
                     "bound (two MPI_Sendrecv of BYTES/2) and the MPI ring, medians over REPS "
                     "(docs/results-ring.md). Run under mpiexec -n 2.");
  const auto multiple_of = [](std::size_t unit) {
    return CLI::Validator(
        [unit](std::string& v) -> std::string {
          const auto b = std::stoull(v);
          return b > 0 && b % unit == 0
                     ? ""
                     : "must be a positive multiple of " + std::to_string(unit) + " bytes";
        },
        "");
  };
  // The non-temporal stores need 16-byte aligned addresses: halves and pieces are multiples of 16.
  app.add_option("bytes", bytes, "message size (default 64M; a multiple of 32)")
      ->transform(cclx::kit::ByteSize{})
      ->check(multiple_of(32));
  app.add_option("reps", reps, "timed repetitions, after two warm-ups (default 11)")
      ->check(cclx::kit::Positive{});
  app.add_option("piece", pieces,
                 "piece sizes of the fused variants (default 128K 256K 512K 1M; multiples of 16)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll)
      ->transform(cclx::kit::ByteSize{})
      ->check(multiple_of(16));
  if (const auto rc = cclx::kit::parse_mpi(app, argc, argv)) return *rc;
  if (size != 2) {
    if (rank == 0) std::fprintf(stderr, "cclx-proto-cma-fused: runs on 2 ranks, not %d\n", size);
    MPI_Finalize();
    return 2;
  }
  const int peer = 1 - rank;
  const std::size_t n = bytes / 4, half = bytes / 2, hn = n / 2;
  std::vector<float> in(n), out(n), sbuf(hn, 1.0f), rbuf(hn);
  std::vector<float> tmp(
      std::max<std::size_t>(262144, *std::max_element(pieces.begin(), pieces.end())) / 4);
  auto value = [](std::size_t i, int r) { return static_cast<float>((i * 7 + r) % 13); };
  for (std::size_t i = 0; i < n; ++i) in[i] = value(i, rank);
  std::fill(tmp.begin(), tmp.end(), 0.f);

  // probe
  struct Desc {
    int pid;
    std::uint64_t addr;
  } mine{getpid(), reinterpret_cast<std::uint64_t>(in.data())}, theirs;
  MPI_Sendrecv(&mine, sizeof mine, MPI_BYTE, peer, 1, &theirs, sizeof theirs, MPI_BYTE, peer, 1,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  {
    float x;
    iovec l{&x, 4}, r{reinterpret_cast<void*>(theirs.addr), 4};
    if (process_vm_readv(theirs.pid, &l, 1, &r, 1, 0) != 4) {
      perror("process_vm_readv");
      MPI_Abort(MPI_COMM_WORLD, 3);
    }
  }
  const std::size_t own = static_cast<std::size_t>(rank);  // block this rank reduces
  float* out_own = out.data() + own * hn;
  const float* in_own = in.data() + own * hn;
  float* out_other = out.data() + (1 - own) * hn;

  auto timed = [&](auto&& f) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    f();
    double dt = MPI_Wtime() - t0, slowest = 0;
    MPI_Allreduce(&dt, &slowest, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return slowest * 1e3;
  };
  auto bound = [&] {
    for (int k = 0; k < 2; ++k)
      MPI_Sendrecv(sbuf.data(), (int)half, MPI_BYTE, peer, 7, rbuf.data(), (int)half, MPI_BYTE,
                   peer, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };
  auto step1 = [&] {
    MPI_Sendrecv(out_own, (int)half, MPI_BYTE, peer, 8, out_other, (int)half, MPI_BYTE, peer, 8,
                 MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  };
  auto mpiring = [&] {
    // step 0: send In[other-block] (the block the peer reduces), receive peer's In[own] into
    // Out[own]
    MPI_Sendrecv(in.data() + (1 - own) * hn, (int)half, MPI_BYTE, peer, 9, out_own, (int)half,
                 MPI_BYTE, peer, 9, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    add_into(out_own, out_own, in_own, hn);
    step1();
  };
  auto fused = [&](std::size_t piece, bool cma1 = false) {
    return [&, piece, cma1] {
      // descriptor exchange (pid, addr) as the engine would post per call
      Desc d{getpid(), reinterpret_cast<std::uint64_t>(in.data())}, p;
      MPI_Sendrecv(&d, sizeof d, MPI_BYTE, peer, 10, &p, sizeof p, MPI_BYTE, peer, 10,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const char* remote = reinterpret_cast<const char*>(p.addr) + own * half;
      const std::size_t pe = piece / 4;
      const double tr0 = MPI_Wtime();
      for (std::size_t off = 0; off < hn; off += pe) {
        const std::size_t m = std::min(pe, hn - off);
        iovec l{tmp.data(), m * 4}, r{const_cast<char*>(remote) + off * 4, m * 4};
        if (process_vm_readv(p.pid, &l, 1, &r, 1, 0) != (ssize_t)(m * 4))
          MPI_Abort(MPI_COMM_WORLD, 4);
        if (use_nt)
          add_into_nt(out_own + off, tmp.data(), in_own + off, m);
        else
          add_into(out_own + off, tmp.data(), in_own + off, m);  // received is the left operand
      }
      if (piece == 262144 && !use_nt && !cma1) step0_ms.push_back((MPI_Wtime() - tr0) * 1e3);
      // done message
      char a = 1, b;
      MPI_Sendrecv(&a, 1, MPI_BYTE, peer, 11, &b, 1, MPI_BYTE, peer, 11, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
      if (!cma1) {
        step1();
        return;
      }
      Desc d1{getpid(), reinterpret_cast<std::uint64_t>(out_own)}, p1;
      MPI_Sendrecv(&d1, sizeof d1, MPI_BYTE, peer, 12, &p1, sizeof p1, MPI_BYTE, peer, 12,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      iovec l{out_other, half}, r{reinterpret_cast<void*>(p1.addr), half};
      if (process_vm_readv(p1.pid, &l, 1, &r, 1, 0) != (ssize_t)half) MPI_Abort(MPI_COMM_WORLD, 5);
      MPI_Sendrecv(&a, 1, MPI_BYTE, peer, 13, &b, 1, MPI_BYTE, peer, 13, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    };
  };
  // write-through: reduce each piece into Out[own] and write it at once into the peer's
  // Out[own] with process_vm_writev while it is still in L2; no step 1. `nt`: reduce into an L2
  // temporary, write that to the peer, and stream it into the local Out with non-temporal stores.
  std::vector<float> tmp2(tmp.size());
  auto through = [&](std::size_t piece, bool nt = false) {
    return [&, piece, nt] {
      struct D2 {
        int pid;
        std::uint64_t in, out;
      } d{getpid(), reinterpret_cast<std::uint64_t>(in.data()),
          reinterpret_cast<std::uint64_t>(out.data())},
          p;
      MPI_Sendrecv(&d, sizeof d, MPI_BYTE, peer, 14, &p, sizeof p, MPI_BYTE, peer, 14,
                   MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const char* remote = reinterpret_cast<const char*>(p.in) + own * half;
      char* remote_out = reinterpret_cast<char*>(p.out) + own * half;
      const std::size_t pe = piece / 4;
      for (std::size_t off = 0; off < hn; off += pe) {
        const std::size_t m = std::min(pe, hn - off);
        iovec l{tmp.data(), m * 4}, r{const_cast<char*>(remote) + off * 4, m * 4};
        if (process_vm_readv(p.pid, &l, 1, &r, 1, 0) != (ssize_t)(m * 4))
          MPI_Abort(MPI_COMM_WORLD, 4);
        float* sum = nt ? tmp2.data() : out_own + off;
        add_into(sum, tmp.data(), in_own + off, m);
        iovec lw{sum, m * 4}, rw{remote_out + off * 4, m * 4};
        if (process_vm_writev(p.pid, &lw, 1, &rw, 1, 0) != (ssize_t)(m * 4))
          MPI_Abort(MPI_COMM_WORLD, 6);
        if (!nt) continue;
        float* o = out_own + off;
        std::size_t i = 0;
        for (; i + 4 <= m; i += 4) _mm_stream_ps(o + i, _mm_loadu_ps(tmp2.data() + i));
        for (; i < m; ++i) o[i] = tmp2[i];
      }
      if (nt) _mm_sfence();
      char a = 1, b;
      MPI_Sendrecv(&a, 1, MPI_BYTE, peer, 15, &b, 1, MPI_BYTE, peer, 15, MPI_COMM_WORLD,
                   MPI_STATUS_IGNORE);
    };
  };
  auto check = [&](const char* what) {
    for (std::size_t i = 0; i < n; ++i)
      if (out[i] != value(i, 0) + value(i, 1)) {
        std::fprintf(stderr, "rank %d: %s wrong at %zu\n", rank, what, i);
        return false;
      }
    return true;
  };
  std::vector<std::string> names{"bound", "mpi ring (recv into Out, reduce)"};
  for (auto p : pieces) names.push_back("fused cma piece=" + std::to_string(p));
  names.push_back("fused 256K + cma step 1");
  names.push_back("fused 256K NT stores");
  for (auto p : pieces) names.push_back("write-through piece=" + std::to_string(p));
  for (auto p : pieces) names.push_back("write-through NT piece=" + std::to_string(p));
  std::vector<std::vector<double>> t(names.size());
  int rc = 0;
  for (int r = -2; r < reps; ++r) {
    double x = timed(bound);
    if (r >= 0) t[0].push_back(x);
    std::fill(out.begin(), out.end(), 0.f);
    x = timed(mpiring);
    if (r == -2 && !check("mpi ring")) rc = 1;
    if (r >= 0) t[1].push_back(x);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::fill(out.begin(), out.end(), 0.f);
      x = timed(fused(pieces[k]));
      if (r == -2 && !check("fused")) rc = 1;
      if (r >= 0) t[2 + k].push_back(x);
    }
    std::fill(out.begin(), out.end(), 0.f);
    x = timed(fused(262144, true));
    if (r == -2 && !check("fused+cma1")) rc = 1;
    if (r >= 0) t[2 + pieces.size()].push_back(x);
    std::fill(out.begin(), out.end(), 0.f);
    use_nt = true;
    x = timed(fused(262144));
    use_nt = false;
    if (r == -2 && !check("fused nt")) rc = 1;
    if (r >= 0) t[3 + pieces.size()].push_back(x);
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::fill(out.begin(), out.end(), 0.f);
      x = timed(through(pieces[k]));
      if (r == -2 && !check("write-through")) rc = 1;
      if (r >= 0) t[4 + pieces.size() + k].push_back(x);
    }
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::fill(out.begin(), out.end(), 0.f);
      x = timed(through(pieces[k], true));
      if (r == -2 && !check("write-through nt")) rc = 1;
      if (r >= 0) t[4 + 2 * pieces.size() + k].push_back(x);
    }
  }
  if (!step0_ms.empty())  // timed where 256K is one of the pieces
    std::printf("rank %d: fused 256K read+reduce loop median %.3f ms\n", rank, median(step0_ms));
  if (rank == 0) {
    const double b = median(t[0]);
    for (std::size_t i = 0; i < t.size(); ++i)
      std::printf("%-40s %8.2f ms  bound/time %.3f\n", names[i].c_str(), median(t[i]),
                  b / median(t[i]));
  }
  MPI_Finalize();
  return rc;
}
