// expect: nonblocking collectives on device buffers are not supported
#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <span>

// CudaBackend serves blocking calls: a nonblocking collective must not compile. (Compiling this
// needs no CUDA; only linking the backend does.)
void f(cclx::Communicator<cclx::CudaBackend>& comm, std::span<float> device_buf) {
  comm.allreduce(device_buf, cclx::sum, cclx::algo::Ring{});  // fine
#ifdef CCLX_EXPECT_FAIL
  cclx::Request r = comm.iallreduce(device_buf, cclx::sum, cclx::algo::Ring{});
#endif
}
