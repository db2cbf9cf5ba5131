// cclx-cuda-bench: the GPU measurements of docs/results-cuda.md (docs/cuda.md says how to run it).
//   cclx-cuda-bench kernels              device reduction kernels (every type x op, 256 MiB)
//                                        against the measured device-to-device copy bandwidth
//   mpiexec -n N cclx-cuda-bench allreduce [--algo native|ring] [--max BYTES]
//                                        allreduce (float sum) on device buffers (staged or
//                                        CUDA-aware) against the same on host buffers, 1 KiB up
// Times are medians over iterations; bandwidth counts the bytes of the three operands (reads of
// a and b, write of dst) for kernels and 2x the bytes for the copy (a read and a write).
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <span>
#include <string>
#include <vector>

#include "../lib/cuda/reduce_kernels.hpp"
#include "cclx/cclx.hpp"
#include "cclx/cuda.hpp"
#include "cli.hpp"
#include "kit/timing.hpp"

namespace {

void ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "cclx-cuda-bench: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Seconds of `f` (queued on the default stream), median of `iters` after a warm-up.
template <class F>
double time_gpu(F&& f, int iters) {
  cudaEvent_t a, b;
  ok(cudaEventCreate(&a), "cudaEventCreate");
  ok(cudaEventCreate(&b), "cudaEventCreate");
  f();
  std::vector<double> t;
  for (int i = 0; i < iters; ++i) {
    ok(cudaEventRecord(a), "cudaEventRecord");
    f();
    ok(cudaEventRecord(b), "cudaEventRecord");
    ok(cudaEventSynchronize(b), "cudaEventSynchronize");
    float ms = 0;
    ok(cudaEventElapsedTime(&ms, a, b), "cudaEventElapsedTime");
    t.push_back(ms * 1e-3);
  }
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return cclx::kit::median(t);
}

int kernels() {
  const std::size_t bytes = std::size_t{256} << 20;
  void *a, *b, *d;
  ok(cudaMalloc(&a, bytes), "cudaMalloc");
  ok(cudaMalloc(&b, bytes), "cudaMalloc");
  ok(cudaMalloc(&d, bytes), "cudaMalloc");
  ok(cudaMemset(a, 1, bytes), "cudaMemset");
  ok(cudaMemset(b, 2, bytes), "cudaMemset");
  const double copy_s = time_gpu([&] { cudaMemcpy(d, a, bytes, cudaMemcpyDeviceToDevice); }, 20);
  const double copy_bw = 2.0 * static_cast<double>(bytes) / copy_s / 1e9;
  std::printf("# device-to-device copy of 256 MiB: %.1f GB/s (read + write)\n", copy_bw);
  std::printf("%-8s %-5s %12s %10s\n", "type", "op", "GB/s", "vs copy");
  using cclx::DataType;
  const DataType types[] = {DataType::i8,  DataType::u8,  DataType::i16,    DataType::u16,
                            DataType::i32, DataType::u32, DataType::i64,    DataType::u64,
                            DataType::f32, DataType::f64, DataType::boolean};
  for (DataType t : types) {
    for (int op = 0; op < 7; ++op) {
      const std::size_t es = t == DataType::i8 || t == DataType::u8 || t == DataType::boolean ? 1
                             : t == DataType::i16 || t == DataType::u16                       ? 2
                             : t == DataType::i32 || t == DataType::u32 || t == DataType::f32 ? 4
                                                                                              : 8;
      const std::size_t n = bytes / es;
      if (cclx::cuda_detail::launch_reduce(t, op, d, a, b, n, nullptr) != cudaSuccess) {
        (void)cudaGetLastError();
        continue;  // not defined for this type
      }
      const double s =
          time_gpu([&] { (void)cclx::cuda_detail::launch_reduce(t, op, d, a, b, n, nullptr); }, 20);
      const double bw = 3.0 * static_cast<double>(bytes) / s / 1e9;
      std::printf("%-8s %-5s %12.1f %9.0f%%\n", std::string(cclx::to_string(t)).c_str(),
                  std::string(cclx::to_string(static_cast<cclx::OpId>(op))).c_str(), bw,
                  100.0 * bw / copy_bw);
    }
  }
  cudaFree(a);
  cudaFree(b);
  cudaFree(d);
  return 0;
}

double time_allreduce(MPI_Comm comm, int iters, auto&& call) {
  std::vector<double> t;
  call();
  for (int i = 0; i < iters; ++i) t.push_back(cclx::kit::slowest_call(comm, call));
  return cclx::kit::median(t);
}

template <class A>
void allreduce_sizes(std::size_t max_bytes, const A& algo, const char* name) {
  cclx::Communicator<> host(MPI_COMM_WORLD);
  cclx::Communicator<cclx::CudaBackend> dev(MPI_COMM_WORLD);
  if (host.rank() == 0)
    std::printf("# allreduce float sum, %s, %d ranks, device path: %s\n%12s %14s %14s %8s\n", name,
                host.size(), dev.backend().cuda_aware() ? "CUDA-aware MPI" : "staged", "bytes",
                "host us", "device us", "ratio");
  for (std::size_t bytes = 1024; bytes <= max_bytes; bytes *= 4) {
    const std::size_t n = bytes / 4;
    std::vector<float> h(n, 1.0f);
    float* d = nullptr;
    ok(cudaMalloc(&d, bytes), "cudaMalloc");
    ok(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
    const int iters = bytes >= (std::size_t{16} << 20) ? 10 : 50;
    const double th =
        time_allreduce(MPI_COMM_WORLD, iters, [&] { host.allreduce(h, cclx::sum, algo); });
    const double td = time_allreduce(
        MPI_COMM_WORLD, iters, [&] { dev.allreduce(std::span<float>(d, n), cclx::sum, algo); });
    if (host.rank() == 0)
      std::printf("%12zu %14.1f %14.1f %8.2f\n", bytes, th * 1e6, td * 1e6, td / th);
    cudaFree(d);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string algo = "native";
  std::size_t max_bytes = std::size_t{256} << 20;
  cclx::kit::App app("cclx-cuda-bench",
                     "The GPU measurements of docs/results-cuda.md (docs/cuda.md says how to run "
                     "it).");
  app.require_subcommand(1);
  auto* kernels_cmd =
      app.add_subcommand("kernels",
                         "device reduction kernels (every type x op, 256 MiB) against the measured "
                         "device-to-device copy bandwidth");
  auto* allreduce_cmd = app.add_subcommand(
      "allreduce",
      "allreduce (float sum) on device buffers (staged or CUDA-aware) against the same on host "
      "buffers, 1 KiB up (under mpiexec)");
  allreduce_cmd->add_option("--algo", algo, "native or ring (default native)")
      ->check(CLI::IsMember({"native", "ring"}));
  allreduce_cmd->add_option("--max", max_bytes, "largest size (default 256M; cclx/byte_size.hpp)")
      ->transform(cclx::kit::ByteSize{});
  if (const auto rc = cclx::kit::parse(app, argc, argv)) return *rc;
  if (kernels_cmd->parsed()) return kernels();
  MPI_Init(&argc, &argv);
  {
    int local = 0;  // ranks of one node share the GPUs round robin
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_rank(node, &local);
    MPI_Comm_free(&node);
    int devices = 1;
    ok(cudaGetDeviceCount(&devices), "cudaGetDeviceCount");
    ok(cudaSetDevice(local % devices), "cudaSetDevice");
    if (algo == "ring")
      allreduce_sizes(max_bytes, cclx::algo::Ring{}, "ring");
    else
      allreduce_sizes(max_bytes, cclx::algo::Native{}, "native");
  }
  MPI_Finalize();
  return 0;
}
