// Built against an installed cclx with find_package(cclx COMPONENTS cuda); run under mpiexec by
// the consumer test. Without a GPU the backend's documented refusal (a cclx::Error on every rank)
// is the expected outcome; with one, a nonblocking ring allreduce on device memory.
#include <cuda_runtime.h>

#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <cstdio>
#include <string>
#include <vector>

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rc = 0;
  try {
    cclx::Communicator<cclx::CudaBackend> comm(MPI_COMM_WORLD);
    const std::size_t n = 1000;
    std::vector<long> v(n, comm.rank() + 1);
    long* d = nullptr;
    if (cudaMalloc(reinterpret_cast<void**>(&d), n * sizeof(long)) != cudaSuccess)
      throw cclx::Error(comm.rank(), "cudaMalloc failed");
    cudaMemcpy(d, v.data(), n * sizeof(long), cudaMemcpyHostToDevice);
    comm.iallreduce(std::span(d, n), cclx::sum, cclx::algo::Ring{}).wait();
    cudaMemcpy(v.data(), d, n * sizeof(long), cudaMemcpyDeviceToHost);
    cudaFree(d);
    const long expect = static_cast<long>(comm.size()) * (comm.size() + 1) / 2;
    for (long x : v) rc |= x != expect;
    if (comm.rank() == 0) std::printf("consumer_cuda: %s\n", rc ? "WRONG" : "ok");
  } catch (const cclx::Error& e) {
    rc = std::string(e.what()).find("no usable CUDA device") == std::string::npos;
    std::printf("consumer_cuda: %s: %s\n",
                rc ? "unexpected error" : "no GPU, refused as documented", e.what());
  }
  MPI_Finalize();
  return rc;
}
