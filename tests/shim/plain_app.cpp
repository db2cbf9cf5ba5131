// An ordinary MPI program that knows nothing of cclx (built with the MPI compiler wrapper flags
// only, never linked to cclx). tests/shim/preload_check.sh runs it with and without
// libcclx-mpi.so in LD_PRELOAD: the outputs must be identical, and the library's report must show
// that it served the calls.
//
// The computations are exact (integer values, also in doubles), so any algorithm gives the same
// bits; rank 0 prints one line per step.
#include <mpi.h>

#include <cstdint>
#include <cstdio>
#include <numeric>
#include <vector>

namespace {

int rank = 0, nranks = 1;

using u64 = unsigned long long;

u64 checksum(const double* v, std::size_t n) {
  u64 s = 0;
  for (std::size_t i = 0; i < n; ++i) s = s * 31 + static_cast<u64>(static_cast<long long>(v[i]));
  return s;
}
template <class T>
u64 checksum(const std::vector<T>& v) {
  u64 s = 0;
  for (const T& x : v) s = s * 31 + static_cast<u64>(static_cast<long long>(x));
  return s;
}

void print(const char* what, u64 value) {
  if (rank == 0) std::printf("%-34s %llu\n", what, value);
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &nranks);
  const auto n = static_cast<std::size_t>(nranks);

  // A "gradient" summed over ranks, small to large, in place and not, several iterations.
  for (const std::size_t len : {1ul, 1000ul, 100000ul}) {
    std::vector<double> grad(len), sum(len);
    u64 acc = 0;
    for (int it = 0; it < 5; ++it) {
      for (std::size_t i = 0; i < len; ++i)
        grad[i] = static_cast<double>((rank + 1) * (i % 97) + it);
      MPI_Allreduce(grad.data(), sum.data(), static_cast<int>(len), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
      MPI_Allreduce(MPI_IN_PLACE, grad.data(), static_cast<int>(len), MPI_DOUBLE, MPI_SUM,
                    MPI_COMM_WORLD);
      acc = acc * 7 + checksum(sum.data(), len) + 3 * checksum(grad.data(), len);
    }
    print(len == 1      ? "allreduce sum double x1"
          : len == 1000 ? "allreduce sum double x1000"
                        : "allreduce sum double x100000",
          acc);
  }

  // Integer max/min/bitwise, in place.
  {
    std::vector<int> v(257);
    for (std::size_t i = 0; i < v.size(); ++i)
      v[i] = static_cast<int>((rank * 7919 + i * 31) % 1000);
    std::vector<int> mx = v, mn = v, bx = v;
    MPI_Allreduce(MPI_IN_PLACE, mx.data(), 257, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, mn.data(), 257, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(MPI_IN_PLACE, bx.data(), 257, MPI_INT, MPI_BXOR, MPI_COMM_WORLD);
    print("allreduce max/min/bxor int", checksum(mx) ^ (checksum(mn) << 1) ^ (checksum(bx) << 2));
  }

  // Parameters from rank 0 as bytes, a long vector from the last rank.
  {
    struct Params {
      int steps;
      double rate;
      char name[16];
    } p{};
    if (rank == 0) p = {42, 0.5, "plain-app"};
    MPI_Bcast(&p, sizeof p, MPI_BYTE, 0, MPI_COMM_WORLD);
    std::vector<long long> w(50000);
    if (rank == nranks - 1) std::iota(w.begin(), w.end(), 3);
    MPI_Bcast(w.data(), 50000, MPI_LONG_LONG, nranks - 1, MPI_COMM_WORLD);
    print("bcast params + long long x50000",
          static_cast<u64>(p.steps + static_cast<int>(p.rate * 10) + p.name[0]) + checksum(w));
  }

  // Reduce to the last rank (result printed by rank 0 after a bcast).
  {
    std::vector<long long> v(3000), r(3000);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<long long>(i) * (rank + 2);
    MPI_Reduce(v.data(), r.data(), 3000, MPI_LONG_LONG, MPI_SUM, nranks - 1, MPI_COMM_WORLD);
    MPI_Bcast(r.data(), 3000, MPI_LONG_LONG, nranks - 1, MPI_COMM_WORLD);
    print("reduce sum long long to last", checksum(r));
  }

  // Data movement: allgather, alltoall, gather, scatter, reduce_scatter_block.
  {
    const std::size_t k = 1000;
    std::vector<int> mine(k), all(k * n), a2a(k * n), got(k * n), part(k);
    for (std::size_t i = 0; i < k; ++i) mine[i] = static_cast<int>(rank * 100000 + i);
    MPI_Allgather(mine.data(), k, MPI_INT, all.data(), k, MPI_INT, MPI_COMM_WORLD);
    print("allgather int x1000", checksum(all));
    std::vector<int> send(k * n);
    for (std::size_t i = 0; i < send.size(); ++i) send[i] = static_cast<int>(rank * 7 + i);
    MPI_Alltoall(send.data(), k, MPI_INT, a2a.data(), k, MPI_INT, MPI_COMM_WORLD);
    u64 a = checksum(a2a) * static_cast<u64>(rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, &a, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    print("alltoall int x1000", a);
    MPI_Gather(mine.data(), k, MPI_INT, got.data(), k, MPI_INT, 0, MPI_COMM_WORLD);
    print("gather int x1000", checksum(got));
    MPI_Scatter(got.data(), k, MPI_INT, part.data(), k, MPI_INT, 0, MPI_COMM_WORLD);
    u64 s = checksum(part) * static_cast<u64>(rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, &s, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    print("scatter int x1000", s);
    std::vector<float> rs_in(k * n), rs_out(k);
    for (std::size_t i = 0; i < rs_in.size(); ++i) rs_in[i] = static_cast<float>((i + rank) % 13);
    MPI_Reduce_scatter_block(rs_in.data(), rs_out.data(), k, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
    u64 r = checksum(rs_out) * static_cast<u64>(rank + 1);
    MPI_Allreduce(MPI_IN_PLACE, &r, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    print("reduce_scatter_block float x1000", r);
  }

  MPI_Barrier(MPI_COMM_WORLD);

  // Variable counts, a nonblocking call and a derived datatype (served: packed locally), a gatherv
  // (passed through).
  {
    std::vector<int> counts(n), displs(n), all(n * (n + 1) / 2);
    for (std::size_t i = 0; i < n; ++i) {
      counts[i] = static_cast<int>(i + 1);
      displs[i] = static_cast<int>(i * (i + 1) / 2);
    }
    std::vector<int> mine(static_cast<std::size_t>(rank + 1), rank);
    MPI_Allgatherv(mine.data(), rank + 1, MPI_INT, all.data(), counts.data(), displs.data(),
                   MPI_INT, MPI_COMM_WORLD);
    print("allgatherv int", checksum(all));
    long long x = rank + 1, y = 0;
    MPI_Request req;
    MPI_Iallreduce(&x, &y, 1, MPI_LONG_LONG, MPI_PROD, MPI_COMM_WORLD, &req);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    print("iallreduce prod", static_cast<u64>(y));
    std::vector<int> gathered(rank == 0 ? all.size() : 0);
    MPI_Gatherv(mine.data(), rank + 1, MPI_INT, gathered.data(), counts.data(), displs.data(),
                MPI_INT, 0, MPI_COMM_WORLD);
    print("gatherv int", checksum(gathered));
    MPI_Datatype every_other;
    MPI_Type_vector(100, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    std::vector<double> v(200, -1.0);
    if (rank == 0)
      for (std::size_t i = 0; i < v.size(); i += 2) v[i] = static_cast<double>(i);
    MPI_Bcast(v.data(), 1, every_other, 0, MPI_COMM_WORLD);
    MPI_Type_free(&every_other);
    print("bcast vector type", checksum(v));
  }

  MPI_Finalize();
  return 0;
}
