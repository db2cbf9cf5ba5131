// expect: pass a container that outlives it
#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <span>
#include <vector>

// CudaBackend serves the nonblocking and persistent forms (the control compiles them; compiling
// needs no CUDA, only linking the backend does); a temporary buffer is refused as on the host.
void f(cclx::Communicator<cclx::CudaBackend>& comm, std::span<float> device_buf) {
  cclx::Request r = comm.iallreduce(device_buf, cclx::sum, cclx::algo::Ring{});
  cclx::Request n = comm.ibcast(device_buf, 0);
  cclx::PersistentRequest p = comm.allreduce_init(device_buf, cclx::sum, cclx::algo::Ring{});
  cclx::PersistentRequest q = comm.reduce_scatter_init(device_buf, cclx::sum);
  cclx::Request s = comm.isend(device_buf, 1);
  cclx::Request t = comm.irecv(device_buf, 1);
#ifdef CCLX_EXPECT_FAIL
  cclx::Request bad = comm.iallreduce(std::vector<float>(4), cclx::sum);
#endif
}
