// expect: nonblocking point-to-point on device buffers is not supported
#include <cclx/cclx.hpp>
#include <cclx/cuda.hpp>
#include <span>

void f(cclx::Communicator<cclx::CudaBackend>& comm, std::span<int> device_buf) {
  comm.send(device_buf, 1);  // fine
#ifdef CCLX_EXPECT_FAIL
  cclx::Request r = comm.isend(device_buf, 1);
#endif
}
