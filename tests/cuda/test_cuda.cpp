// cclx-cuda-tests: Communicator<CudaBackend> under mpiexec (tests/mpi/main.cpp runs doctest).
// Without a GPU only the refusal is tested (every rank throws a cclx::Error naming the ranks);
// the device tests are skipped, and say so. With one (N ranks share it), the correctness grid on
// device buffers: every collective, scheduled algorithm and native, types, ops, in and out of
// place; sizes up to CCLX_CUDA_GRID_MAX_BYTES (default 1 MiB; 268435456 for the full check);
// stream ordering; the kernels against the host's. docs/cuda.md lists the commands.
#include <cuda_runtime.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "../../lib/cuda/reduce_kernels.hpp"
#include "../mpi/support.hpp"
#include "cclx/cuda.hpp"

namespace {

using namespace cclx_test;
using Dev = cclx::Communicator<cclx::CudaBackend>;

bool have_gpu() {
  static const bool yes = [] {
    int n = 0;
    const bool ok = cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
    (void)cudaGetLastError();
    return ok;
  }();
  return yes;
}

// A device buffer of T with host round trips.
template <class T>
class DeviceVec {
 public:
  explicit DeviceVec(std::size_t n) : n_(n) {
    REQUIRE(cudaMalloc(&p_, std::max<std::size_t>(n, 1) * sizeof(T)) == cudaSuccess);
  }
  explicit DeviceVec(const std::vector<T>& v) : DeviceVec(v.size()) { upload(v); }
  ~DeviceVec() { cudaFree(p_); }
  DeviceVec(const DeviceVec&) = delete;
  DeviceVec& operator=(const DeviceVec&) = delete;
  void upload(const std::vector<T>& v) {
    REQUIRE(v.size() == n_);
    REQUIRE(cudaMemcpy(p_, v.data(), n_ * sizeof(T), cudaMemcpyHostToDevice) == cudaSuccess);
  }
  [[nodiscard]] std::vector<T> download() const {
    std::vector<T> v(n_);
    REQUIRE(cudaMemcpy(v.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost) == cudaSuccess);
    return v;
  }
  [[nodiscard]] std::span<T> span() { return {static_cast<T*>(p_), n_}; }

 private:
  void* p_ = nullptr;
  std::size_t n_;
};

std::vector<std::size_t> grid_counts(std::size_t elem) {
  const char* env = std::getenv("CCLX_CUDA_GRID_MAX_BYTES");
  const std::size_t max_bytes = env ? std::strtoull(env, nullptr, 10) : (std::size_t{1} << 20);
  std::vector<std::size_t> c{0, 1, 7, 1000};
  for (std::size_t b = std::size_t{1} << 16; b <= max_bytes; b <<= 4) c.push_back(b / elem + 3);
  return c;
}

template <class T, class Op>
void device_allreduce(Dev& comm, const Op& op, std::size_t count, Consistency& cons) {
  const int n = comm.size(), r = comm.rank();
  std::vector<T> input(count), ref(count);
  for (std::size_t i = 0; i < count; ++i) {
    input[i] = reduce_input<T>(Op::id, r, i);
    ref[i] = expected_reduction<T>(Op::id, n, i);
  }
  const bool exact =
      !std::is_floating_point_v<T> || Op::id == cclx::OpId::min || Op::id == cclx::OpId::max;
  for_each_algorithm_serving<Coll::allreduce>([&](std::string_view name, const auto& a) {
    for (bool in_place : {false, true}) {
      const std::string l = std::string("device allreduce ") + type_name<T>() + " " +
                            std::string(cclx::to_string(Op::id)) +
                            " count=" + std::to_string(count) + " [" + std::string(name) +
                            (in_place ? ", in place]" : ", out of place]");
      progress(l);
      DeviceVec<T> out(count);
      if (in_place) {
        out.upload(input);
        if (!no_throw(l, [&] { comm.allreduce(out.span(), op, a); })) continue;
      } else {
        DeviceVec<T> in(input);
        out.upload(std::vector<T>(count, sentinel<T>()));
        if (!no_throw(l, [&] { comm.allreduce(in.span(), out.span(), op, a); })) continue;
        compare(l + " input untouched", in.download(), input, true);
      }
      const std::vector<T> got = out.download();
      compare(l, got, ref, exact);
      cons.add(l, std::span<const T>(got));
    }
  });
}

template <class T>
void device_reductions(Dev& comm, Consistency& cons) {
  for (std::size_t count : grid_counts(sizeof(T)))
    for_each_op<T>([&](const auto& op) { device_allreduce<T>(comm, op, count, cons); });
}

// Data movement: bcast, allgather, alltoall with every algorithm serving them.
template <class T>
void device_movement(Dev& comm, std::size_t count) {
  const int n = comm.size(), r = comm.rank();
  const auto un = static_cast<std::size_t>(n);
  std::vector<T> mine(count);
  for (std::size_t i = 0; i < count; ++i) mine[i] = data_value<T>(r, i);
  std::vector<T> gathered(count * un), a2a_in(count * un), a2a_ref(count * un);
  for (int q = 0; q < n; ++q)
    for (std::size_t i = 0; i < count; ++i) {
      gathered[static_cast<std::size_t>(q) * count + i] = data_value<T>(q, i);
      a2a_in[static_cast<std::size_t>(q) * count + i] = data_value<T>(r * n + q, i);
      a2a_ref[static_cast<std::size_t>(q) * count + i] = data_value<T>(q * n + r, i);
    }
  const std::string base = std::string(type_name<T>()) + " count=" + std::to_string(count);
  for_each_algorithm_serving<Coll::bcast>([&](std::string_view name, const auto& a) {
    for (int root : {0, n - 1}) {
      const std::string l = "device bcast " + base + " [" + std::string(name) + ", root " +
                            std::to_string(root) + "]";
      progress(l);
      std::vector<T> want(count);
      for (std::size_t i = 0; i < count; ++i) want[i] = data_value<T>(root, i);
      DeviceVec<T> buf(r == root ? want : std::vector<T>(count, sentinel<T>()));
      if (no_throw(l, [&] { comm.bcast(buf.span(), root, a); }))
        compare(l, buf.download(), want, true);
    }
  });
  for_each_algorithm_serving<Coll::allgather>([&](std::string_view name, const auto& a) {
    const std::string l = "device allgather " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(mine), out(std::vector<T>(count * un, sentinel<T>()));
    if (no_throw(l, [&] { comm.allgather(in.span(), out.span(), a); }))
      compare(l, out.download(), gathered, true);
  });
  for_each_algorithm_serving<Coll::alltoall>([&](std::string_view name, const auto& a) {
    const std::string l = "device alltoall " + base + " [" + std::string(name) + "]";
    progress(l);
    DeviceVec<T> in(a2a_in), out(std::vector<T>(count * un, sentinel<T>()));
    if (no_throw(l, [&] { comm.alltoall(in.span(), out.span(), a); }))
      compare(l, out.download(), a2a_ref, true);
  });
}

}  // namespace

TEST_CASE("cuda: without a GPU the backend refuses on every rank, naming the ranks") {
  if (have_gpu()) {
    MESSAGE("a GPU is present: the refusal is not tested here");
    return;
  }
  MESSAGE(
      "no CUDA device: the device tests (grid, streams, kernels) are skipped; run them on a "
      "GPU machine (docs/cuda.md)");
  try {
    Dev comm(MPI_COMM_WORLD);
    FAIL("constructing Communicator<CudaBackend> without a GPU must throw");
  } catch (const cclx::Error& e) {
    CHECK(e.rank() == world_rank());
    CHECK_MESSAGE(
        std::string(e.what()).find("no usable CUDA device on rank(s) 0") != std::string::npos,
        e.what());
  }
}

TEST_CASE("cuda grid: allreduce on device buffers" * doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  Consistency cons(MPI_COMM_WORLD);
  device_reductions<std::int32_t>(comm, cons);
  device_reductions<float>(comm, cons);
  device_reductions<double>(comm, cons);
  device_reductions<std::uint8_t>(comm, cons);
  device_reductions<std::int64_t>(comm, cons);
  device_reductions<std::uint16_t>(comm, cons);
}

TEST_CASE("cuda grid: data movement on device buffers" * doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  for (std::size_t count : grid_counts(4)) {
    device_movement<std::int32_t>(comm, count);
    device_movement<double>(comm, count / 2);
  }
  for (std::size_t count : {std::size_t{1}, std::size_t{1001}})
    device_movement<std::uint8_t>(comm, count);
}

TEST_CASE("cuda streams: a stream-ordered call waits for the stream and the stream for it" *
          doctest::skip(!have_gpu())) {
  Dev comm(MPI_COMM_WORLD);
  const int n = comm.size(), r = comm.rank();
  cudaStream_t s = nullptr;
  REQUIRE(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) == cudaSuccess);
  comm.backend().set_stream(s);
  comm.backend().set_blocking(false);
  const std::size_t count = (std::size_t{4} << 20) + 5;
  std::int32_t* host = nullptr;
  REQUIRE(cudaMallocHost(reinterpret_cast<void**>(&host), count * 4) == cudaSuccess);
  for (std::size_t i = 0; i < count; ++i) host[i] = static_cast<std::int32_t>(r + 1 + i % 13);
  DeviceVec<std::int32_t> buf(count);
  for (int round = 0; round < 2; ++round) {
    // Upload, reduce and download are all queued on `s`; only the host waits at the end.
    REQUIRE(cudaMemcpyAsync(buf.span().data(), host, count * 4, cudaMemcpyHostToDevice, s) ==
            cudaSuccess);
    if (round == 0)
      comm.allreduce(buf.span(), cclx::sum, cclx::algo::Ring{});
    else
      comm.allreduce(buf.span(), cclx::sum);  // native
    REQUIRE(cudaMemcpyAsync(host, buf.span().data(), count * 4, cudaMemcpyDeviceToHost, s) ==
            cudaSuccess);
    REQUIRE(cudaStreamSynchronize(s) == cudaSuccess);
    std::size_t bad = 0;
    for (std::size_t i = 0; i < count; ++i) {
      const auto want = static_cast<std::int32_t>(n * (n + 1) / 2 + n * static_cast<int>(i % 13));
      bad += host[i] != want;
      host[i] = static_cast<std::int32_t>(r + 1 + i % 13);
    }
    CHECK_MESSAGE(bad == 0, "round " << round << ": " << bad << " wrong elements");
  }
  cudaFreeHost(host);
  cudaStreamDestroy(s);
}

TEST_CASE("cuda kernels: every type x op matches the host kernel" * doctest::skip(!have_gpu())) {
  auto check_type = [](auto tag) {
    using T = decltype(tag);
    for_each_op<T>([&](const auto& op) {
      using Op = std::decay_t<decltype(op)>;
      for (std::size_t n : {std::size_t{1}, std::size_t{17}, std::size_t{100003}}) {
        for (std::size_t shift : {std::size_t{0}, std::size_t{1}}) {  // aligned, misaligned
          std::vector<T> a(n + 1), b(n + 1), want(n + 1);
          for (std::size_t i = 0; i <= n; ++i) {
            a[i] = reduce_input<T>(Op::id, 1, i);
            b[i] = reduce_input<T>(Op::id, 2, i);
          }
          const cclx::ReduceKernel k = cclx::make_kernel<T>(op);
          k(want.data() + shift, a.data() + shift, b.data() + shift, n);
          DeviceVec<T> da(a), db(b), dd(std::vector<T>(n + 1, T{}));
          REQUIRE(cclx::cuda_detail::launch_reduce(
                      k.type, static_cast<int>(k.op), dd.span().data() + shift,
                      da.span().data() + shift, db.span().data() + shift, n,
                      nullptr) == cudaSuccess);
          std::vector<T> got = dd.download();
          compare(std::string("kernel ") + type_name<T>() + " " +
                      std::string(cclx::to_string(Op::id)) + " n=" + std::to_string(n),
                  got, want, true);
        }
      }
    });
  };
  check_type(std::int8_t{});
  check_type(std::uint8_t{});
  check_type(std::int16_t{});
  check_type(std::uint16_t{});
  check_type(std::int32_t{});
  check_type(std::uint32_t{});
  check_type(std::int64_t{});
  check_type(std::uint64_t{});
  check_type(float{});
  check_type(double{});
}
